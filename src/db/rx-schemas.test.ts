import path from 'node:path';
import { createRxSchema, defaultHashSha256, type RxJsonSchema } from 'rxdb';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SYNC_COLLECTIONS } from '../../schema/sync-protocol';
import { SYNCED_COLLECTIONS } from './collections';
import { RX_NUMBER_MAX, rxSchemaOf } from './rx-schema-of';
import * as rxSchemasModule from './rx-schemas';
import { RX_SCHEMAS } from './rx-schemas';
import { rxSchemasAsData } from './rx-schemas-build';
/**
 * The schemas devices store, as they were written by hand before they were derived from zod (decision 133). A
 * schema that differs from its entry here (other than in key order, which RxDB sorts away) has another hash, and
 * RxDB refuses a database whose stored schema differs at the same version.
 */
import stored from './rx-schemas.stored.json';

type Name = keyof typeof RX_SCHEMAS;
// The snapshot's keys are the collections' names (the first test checks it).
const names = Object.keys(stored) as Name[];
/** RxDB's hash of a schema, as it compares it with the one a database was stored with. */
const hashOf = (schema: object) =>
  // A schema of any document type: the hash reads only its JSON.
  createRxSchema(schema as RxJsonSchema<unknown>, defaultHashSha256, false).hash;

describe('the RxDB schemas derived from zod', () => {
  it('cover every synced collection', () => {
    expect(new Set(Object.keys(RX_SCHEMAS))).toEqual(new Set(SYNC_COLLECTIONS));
    expect(new Set(names)).toEqual(new Set(SYNC_COLLECTIONS));
  });

  it('open at most 13 collections on a device, the free RxDB limit per process', () => {
    expect(Object.keys(SYNCED_COLLECTIONS).length).toBeLessThanOrEqual(13);
    expect(Object.keys(SYNCED_COLLECTIONS)).toContain('handovers');
  });

  it.each(names)('%s: is the schema devices store, so its version and hash are unchanged', async (name) => {
    expect(RX_SCHEMAS[name]).toEqual(stored[name]);
    expect(SYNCED_COLLECTIONS[name].schema).toBe(RX_SCHEMAS[name]);
    expect(await hashOf(RX_SCHEMAS[name])).toBe(await hashOf(stored[name]));
  });

  it('are replaced in the build by the same schemas as data, importing nothing', async () => {
    expect(Object.keys(rxSchemasModule)).toEqual(['RX_SCHEMAS']);
    const plugin = rxSchemasAsData();
    // Vite types a hook as a function or an object with a handler; this plugin's is a plain function.
    const transform = plugin.transform as (code: string, id: string) => Promise<{ code: string } | null>;
    const { code } = (await transform('', `${path.resolve('src/db/rx-schemas.ts')}?v=1`))!;
    expect(code).not.toMatch(/\bimport\b/);
    // The built module stands for rx-schemas.ts, so it has its exports (checked just below).
    const built = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as typeof rxSchemasModule;
    expect(built.RX_SCHEMAS).toEqual(RX_SCHEMAS);
  });

  it('the build plugin replaces only src/db/rx-schemas.ts and fails when it did not', async () => {
    const plugin = rxSchemasAsData();
    // Vite types a hook as a function or an object with a handler; this plugin's are plain functions.
    const transform = plugin.transform as (code: string, id: string) => Promise<unknown>;
    const buildEnd = plugin.buildEnd as (this: { error(message: string): never }, error?: Error) => void;
    const context = {
      error(message: string): never {
        throw new Error(message);
      },
    };
    expect(await transform('', path.resolve('src/db/collections.ts'))).toBeNull();
    expect(() => buildEnd.call(context)).toThrow('src/db/rx-schemas.ts was not in the build');
    await transform('', path.resolve('src/db/rx-schemas.ts'));
    expect(() => buildEnd.call(context)).not.toThrow();
  });
});

describe('rxSchemaOf', () => {
  const Doc = z.object({
    id: z.string(),
    at: z.number().int().nonnegative().nullable(),
    tags: z.partialRecord(z.enum(['a', 'b']), z.array(z.string())),
    _deleted: z.boolean(),
  });
  type DocLocal = Omit<z.infer<typeof Doc>, '_deleted'> & { localPending: boolean };
  const base = { title: 'docs', version: 0, primaryKey: 'id', local: { localPending: { type: 'boolean' } } } as const;

  it('turns nullable whole numbers, enum-keyed records and local fields into what RxDB stores', () => {
    const schema = rxSchemaOf<DocLocal>(Doc, { ...base, indexes: ['localPending'], maxLength: { id: 10 } });
    expect(schema).toEqual({
      title: 'docs',
      version: 0,
      primaryKey: 'id',
      type: 'object',
      properties: {
        id: { type: 'string', maxLength: 10 },
        at: { type: ['number', 'null'], minimum: 0, maximum: RX_NUMBER_MAX, multipleOf: 1 },
        tags: {
          type: 'object',
          properties: {
            a: { type: 'array', items: { type: 'string' } },
            b: { type: 'array', items: { type: 'string' } },
          },
          additionalProperties: false,
        },
        localPending: { type: 'boolean' },
      },
      required: ['id', 'at', 'tags', 'localPending'],
      indexes: ['localPending'],
      additionalProperties: false,
    });
  });

  it('refuses a primary key or an indexed string without maxLength, as RxDB would on the device', () => {
    expect(() => rxSchemaOf<DocLocal>(Doc, { ...base, indexes: [] })).toThrow('id: RxDB indexes only');
    expect(() =>
      rxSchemaOf<{ id: string; name: string; localPending: boolean }>(z.object({ id: z.string(), name: z.string() }), {
        ...base,
        indexes: [['name', 'id']],
        maxLength: { id: 10 },
      }),
    ).toThrow('name: RxDB indexes only');
  });
});
