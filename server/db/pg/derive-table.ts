import { getTableColumns, is, SQL, sql, type Column } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  foreignKey,
  index,
  jsonb,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  type AnyPgColumn,
  type ExtraConfigColumn,
  type PgColumn,
  type PgColumnBuilderBase,
  type PgTable,
  type PgTableExtraConfigValue,
  type PgTableWithColumns,
} from 'drizzle-orm/pg-core';
import { getTableConfig, SQLiteSyncDialect, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';

/**
 * SQL written in SQLite's words inside tables.ts (a default or an index's `where`), and its PostgreSQL form. Every
 * fragment must be listed: an unknown one stops the derivation (decision 152). tables.ts has no SQL default today;
 * its one fragment is the partial index of open alerts.
 */
export const SQLITE_SQL_IN_POSTGRES: Readonly<Record<string, string>> = {
  // Booleans are integers in SQLite and booleans in PostgreSQL.
  'acknowledged_at IS NULL AND reminded_at IS NULL AND deleted = 0':
    'acknowledged_at IS NULL AND reminded_at IS NULL AND deleted = false',
};

/** The same columns as a SQLite table's, as PostgreSQL columns: the data each holds is typed as on SQLite. */
type PgColumnOf<C extends Column> = PgColumn<{
  name: C['_']['name'];
  tableName: C['_']['tableName'];
  dataType: C['_']['dataType'];
  columnType: string;
  data: C['_']['data'];
  driverParam: unknown;
  notNull: C['_']['notNull'];
  hasDefault: C['_']['hasDefault'];
  isPrimaryKey: C['_']['isPrimaryKey'];
  isAutoincrement: C['_']['isAutoincrement'];
  hasRuntimeDefault: C['_']['hasRuntimeDefault'];
  enumValues: C['_']['enumValues'];
  baseColumn: never;
  identity: undefined;
  generated: undefined;
}>;

/** The PostgreSQL table derived from a SQLite table: same name, same keys, same row types. */
export type PgTableOf<T extends SQLiteTable> = PgTableWithColumns<{
  name: T['_']['name'];
  schema: undefined;
  dialect: 'pg';
  columns: { [K in keyof T['_']['columns']]: PgColumnOf<T['_']['columns'][K]> };
}>;

/** A blob as PostgreSQL's bytea, read as a Buffer like better-sqlite3 gives. */
const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => 'bytea' });

const sqliteDialect = new SQLiteSyncDialect();

/** The PostgreSQL text of a SQLite SQL fragment, from the list above; throws on one it does not know. */
function postgresSql(fragment: SQL, where: string): SQL {
  const { sql: text, params } = sqliteDialect.sqlToQuery(fragment);
  const mapped = params.length === 0 ? SQLITE_SQL_IN_POSTGRES[text] : undefined;
  if (mapped === undefined)
    throw new Error(
      `No PostgreSQL form for the SQLite SQL "${text}" of ${where}: add it to SQLITE_SQL_IN_POSTGRES (server/db/pg/derive-table.ts).`,
    );
  return sql.raw(mapped);
}

/** The PostgreSQL builder of one SQLite column's type (decision 152); throws on a type it does not know. */
function typeOf(column: SQLiteColumn, where: string): PgColumnBuilderBase {
  const name = column.name;
  switch (column.columnType) {
    case 'SQLiteText':
      return column.enumValues ? text(name, { enum: column.enumValues as [string, ...string[]] }) : text(name); // enum values are a non-empty list when set
    case 'SQLiteTextJson':
      return jsonb(name);
    case 'SQLiteInteger':
      return bigint(name, { mode: 'number' });
    case 'SQLiteBoolean':
      return boolean(name);
    case 'SQLiteReal':
      return doublePrecision(name);
    case 'SQLiteBlobBuffer':
      return bytea(name);
    default:
      throw new Error(
        `No PostgreSQL type for ${where} (${column.columnType}): map it in server/db/pg/derive-table.ts (decision 152).`,
      );
  }
}

/** One column's PostgreSQL builder: its type, nullability, default and single-column key. */
function columnOf(column: SQLiteColumn, where: string): PgColumnBuilderBase {
  // The builders' chain methods are typed per builder; this one function applies them to any of them.
  let builder = typeOf(column, where) as unknown as AnyBuilder;
  if (column.notNull) builder = builder.notNull();
  if (column.default !== undefined)
    builder = builder.default(isSql(column.default) ? postgresSql(column.default, where) : column.default);
  if (column.defaultFn) builder = builder.$defaultFn(column.defaultFn);
  if (column.onUpdateFn) builder = builder.$onUpdateFn(column.onUpdateFn);
  if (column.primary) builder = builder.primaryKey();
  if (isAutoIncrement(column)) builder = builder.generatedByDefaultAsIdentity();
  if (column.isUnique) builder = builder.unique(column.uniqueName);
  return builder as unknown as PgColumnBuilderBase; // back to the type pgTable takes
}

/** The chain methods a column builder of any PostgreSQL type has, as columnOf uses them. */
interface AnyBuilder {
  notNull(): AnyBuilder;
  default(value: unknown): AnyBuilder;
  $defaultFn(fn: () => unknown): AnyBuilder;
  $onUpdateFn(fn: () => unknown): AnyBuilder;
  primaryKey(): AnyBuilder;
  generatedByDefaultAsIdentity(): AnyBuilder;
  unique(name?: string): AnyBuilder;
}

function isSql(value: unknown): value is SQL {
  return is(value, SQL);
}

function isAutoIncrement(column: SQLiteColumn): boolean {
  return column.columnType === 'SQLiteInteger' && 'autoIncrement' in column && column.autoIncrement === true;
}

/** The PostgreSQL tables derived so far, by their SQLite table, for foreign keys to find their target. */
const derived = new Map<SQLiteTable, PgTable>();

/**
 * Derives the PostgreSQL table of a SQLite table of tables.ts (decision 152): same table and column names, types
 * mapped, nullability, defaults, primary keys, indexes (names and `where`), unique constraints and foreign keys.
 */
export function pgTableOf<T extends SQLiteTable>(table: T): PgTableOf<T> {
  const config = getTableConfig(table);
  if (config.checks.length > 0)
    throw new Error(`${config.name} has check constraints, which server/db/pg/derive-table.ts does not map yet.`);
  const columns = getTableColumns(table);
  const keyOf = new Map(Object.entries(columns).map(([key, column]) => [column.name, key]));
  const built = Object.fromEntries(
    Object.entries(columns).map(([key, column]) => [key, columnOf(column, `${config.name}.${column.name}`)]),
  );
  const pg = pgTable(config.name, built, (self) => {
    const col = (column: { name: string }) => self[keyOf.get(column.name) ?? column.name];
    const cols = (list: readonly { name: string }[]) => list.map(col) as [ExtraConfigColumn, ...ExtraConfigColumn[]]; // SQLite's lists are non-empty too
    const extra: PgTableExtraConfigValue[] = [];
    for (const key of config.primaryKeys) extra.push(primaryKey({ name: key.getName(), columns: cols(key.columns) }));
    for (const constraint of config.uniqueConstraints)
      extra.push(unique(constraint.name).on(...cols(constraint.columns)));
    for (const { config: ix } of config.indexes) {
      const on = cols(ix.columns.map((c) => columnNamed(c, `${config.name}'s index ${ix.name}`)));
      const built = (ix.unique ? uniqueIndex(ix.name) : index(ix.name)).on(...on);
      extra.push(ix.where ? built.where(postgresSql(ix.where, `${config.name}'s index ${ix.name}`)) : built);
    }
    for (const key of config.foreignKeys) {
      const ref = key.reference();
      const target = derived.get(ref.foreignTable);
      if (!target) throw new Error(`${config.name} refers to ${getTableConfig(ref.foreignTable).name}, not derived.`);
      const targetColumns = getTableColumns(target);
      const foreignColumns = ref.foreignColumns.map((c) => targetColumns[keyOfColumn(ref.foreignTable, c.name)]);
      const fk = foreignKey({
        name: key.getName(),
        columns: cols(ref.columns),
        foreignColumns: foreignColumns as [AnyPgColumn, ...AnyPgColumn[]], // as many as the local columns
      });
      if (key.onDelete) fk.onDelete(key.onDelete);
      if (key.onUpdate) fk.onUpdate(key.onUpdate);
      extra.push(fk);
    }
    return extra;
  });
  derived.set(table, pg);
  return pg as unknown as PgTableOf<T>; // built from T's own columns by the mapping PgTableOf describes
}

/** An index's column, which tables.ts always names as a column, never as an expression. */
function columnNamed(column: SQLiteColumn | SQL, where: string): SQLiteColumn {
  if (isSql(column)) throw new Error(`${where} is on an expression, which server/db/pg/derive-table.ts does not map.`);
  return column;
}

function keyOfColumn(table: SQLiteTable, name: string): string {
  const entry = Object.entries(getTableColumns(table)).find(([, column]) => column.name === name);
  if (!entry) throw new Error(`${getTableConfig(table).name} has no column ${name}.`);
  return entry[0];
}
