import type { JsonSchema, RxJsonSchema } from 'rxdb';
import { z } from 'zod';

/**
 * The largest whole number a local document holds: RxDB needs a bounded range to index a number, and every whole
 * number in a document is a time in milliseconds (1e15 is past the year 30,000).
 */
export const RX_NUMBER_MAX = 1e15;

type Field<T> = keyof T & string;

/** What RxDB needs about a collection that its zod document schema does not say (decision 133). */
export interface RxSchemaOptions<T> {
  /** RxDB's title; part of the stored schema, so it never changes. */
  title: string;
  version: number;
  primaryKey: Field<T>;
  indexes: (Field<T> | Field<T>[])[];
  /** Fields only this device keeps (never on the wire), each required: `localPending` (decision 25). */
  local: Partial<Record<Field<T>, JsonSchema>>;
  /** `maxLength` of string fields: RxDB requires one on the primary key and on indexed strings. */
  maxLength?: Partial<Record<Field<T>, number>>;
  /** Wire fields a local document may lack (left out of `required`). */
  optional?: Field<T>[];
  /** Fields whose stored schema differs from what zod says, kept exactly as devices store it (decision 133). */
  stored?: Partial<Record<Field<T>, JsonSchema>>;
}

type Json = Record<string, unknown>;

/**
 * RxDB's JSON schema of a collection, derived from the zod schema of its wire document (schema/sync.ts): RxDB keeps
 * `_deleted` itself; whole numbers get the bounds RxDB indexes need; nullable fields are `type: [x, 'null']`; a
 * record keyed by an enum lists its keys. Throws when RxDB would refuse the schema's primary key or an index.
 */
export function rxSchemaOf<T>(schema: z.ZodObject, options: RxSchemaOptions<T>): RxJsonSchema<T> {
  // toJSONSchema of a z.object always gives its properties and required list.
  const { properties, required } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'throw' }) as {
    properties: Record<string, Json>;
    required: string[];
  };
  const stored: Partial<Record<string, JsonSchema>> = options.stored ?? {};
  const maxLengths: Partial<Record<string, number>> = options.maxLength ?? {};
  const fields: Record<string, Json> = {};
  for (const [name, json] of Object.entries(properties)) {
    if (name === '_deleted') continue;
    const field = stored[name] ?? rxFieldOf(json);
    const maxLength = maxLengths[name];
    fields[name] = maxLength === undefined ? field : { ...field, maxLength };
  }
  const localFields: Partial<Record<string, JsonSchema>> = options.local;
  const local = Object.keys(localFields);
  for (const name of local) fields[name] = { ...localFields[name] };
  const optional: readonly string[] = options.optional ?? [];
  const result = {
    title: options.title,
    version: options.version,
    primaryKey: options.primaryKey,
    type: 'object',
    properties: fields,
    required: [...required.filter((name) => name !== '_deleted' && !optional.includes(name)), ...local],
    indexes: options.indexes,
    additionalProperties: false,
  };
  checkIndexable(result);
  // T is the local form of the zod schema's type, which these properties describe.
  return result as unknown as RxJsonSchema<T>;
}

/** One field in RxDB's terms (recursively through arrays, objects and records). */
function rxFieldOf(json: Json): Json {
  const union: unknown[] = Array.isArray(json.anyOf) ? json.anyOf : [];
  const [inner, other] = union;
  if (union.length === 2 && isJson(inner) && isJson(other) && isNull(other)) {
    const field = rxFieldOf(inner);
    return { ...field, type: [field.type, 'null'] };
  }
  const out: Json = { ...json };
  if (json.type === 'integer') Object.assign(out, { type: 'number', maximum: RX_NUMBER_MAX, multipleOf: 1 });
  if (isJson(json.items)) out.items = rxFieldOf(json.items);
  if (isJson(json.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(json.properties).map(([k, v]) => [k, isJson(v) ? rxFieldOf(v) : v]),
    );
  }
  const keys = isJson(json.propertyNames) ? json.propertyNames.enum : undefined;
  if (Array.isArray(keys) && isJson(json.additionalProperties)) {
    const value = rxFieldOf(json.additionalProperties);
    delete out.propertyNames;
    out.properties = Object.fromEntries(keys.map((key) => [String(key), value]));
    out.additionalProperties = false;
  }
  return out;
}

const isJson = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNull = (json: Json) => json.type === 'null' && Object.keys(json).length === 1;

/** RxDB's rules for the primary key and indexed fields, checked here so a bad option fails at build, not on a phone. */
function checkIndexable(schema: { primaryKey: string; properties: Record<string, Json>; indexes: unknown[] }) {
  const indexed = new Set([schema.primaryKey, ...schema.indexes.flat().map(String)]);
  for (const name of indexed) {
    const field = schema.properties[name];
    const bounded = (keys: string[]) => field && keys.every((key) => typeof field[key] === 'number');
    const ok =
      field?.type === 'boolean' ||
      (field?.type === 'string' && bounded(['maxLength'])) ||
      (field?.type === 'number' && bounded(['minimum', 'maximum', 'multipleOf']));
    if (!ok) throw new Error(`${name}: RxDB indexes only booleans, strings with maxLength and bounded numbers`);
  }
  const primary = schema.properties[schema.primaryKey];
  if (primary?.type !== 'string') throw new Error(`${schema.primaryKey}: the primary key must be a string`);
}
