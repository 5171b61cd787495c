import { getTableColumns, is, SQL, sql, Table } from 'drizzle-orm';
import { getTableConfig as getPgTableConfig, IndexedColumn, PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import {
  getTableConfig as getSqliteTableConfig,
  index as sqliteIndex,
  integer,
  sqliteTable,
  SQLiteSyncDialect,
  text,
  type SQLiteTable,
} from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as sqliteTables from '../tables';
import { pgTableOf, SQLITE_SQL_IN_POSTGRES } from './derive-table';
import * as pgTables from './tables';

/** One table as both dialects can describe it: what must be the same on SQLite and PostgreSQL. */
interface TableShape {
  name: string;
  columns: Record<string, { key: string; notNull: boolean; default: unknown; primary: boolean; type: string }>;
  primaryKeys: string[][];
  indexes: Record<string, { unique: boolean; columns: string[]; where: string | null }>;
  uniqueConstraints: Record<string, string[]>;
  foreignKeys: Record<string, { columns: string[]; table: string; foreignColumns: string[]; onDelete: string }>;
}

/** The PostgreSQL type each SQLite column type is stored as (decision 152). */
const PG_TYPE_OF: Record<string, string> = {
  SQLiteText: 'text',
  SQLiteTextJson: 'jsonb',
  SQLiteInteger: 'bigint',
  SQLiteBoolean: 'boolean',
  SQLiteReal: 'double precision',
  SQLiteBlobBuffer: 'bytea',
};

const sqliteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

/** SQLite's SQL in its PostgreSQL words, so both sides can be compared. */
function sqliteSqlText(fragment: SQL): string {
  const text = sqliteDialect.sqlToQuery(fragment).sql;
  return SQLITE_SQL_IN_POSTGRES[text] ?? `unmapped: ${text}`;
}

function sqlValue(value: unknown, toText: (fragment: SQL) => string): unknown {
  return is(value, SQL) ? toText(value) : (value ?? null);
}

function sqliteShape(table: SQLiteTable): TableShape {
  const config = getSqliteTableConfig(table);
  const columns = Object.entries(getTableColumns(table));
  const toText = sqliteSqlText;
  return {
    name: config.name,
    columns: Object.fromEntries(
      columns.map(([key, c]) => [
        c.name,
        {
          key,
          notNull: c.notNull,
          default: sqlValue(c.default, toText),
          primary: c.primary,
          type: PG_TYPE_OF[c.columnType] ?? c.columnType,
        },
      ]),
    ),
    primaryKeys: config.primaryKeys.map((k) => k.columns.map((c) => c.name)),
    indexes: Object.fromEntries(
      config.indexes.map(({ config: ix }) => [
        ix.name,
        {
          unique: ix.unique,
          columns: ix.columns.map((c) => (is(c, SQL) ? toText(c) : c.name)),
          where: ix.where ? toText(ix.where) : null,
        },
      ]),
    ),
    uniqueConstraints: Object.fromEntries(
      config.uniqueConstraints.map((u) => [u.getName() ?? '', u.columns.map((c) => c.name)]),
    ),
    foreignKeys: Object.fromEntries(
      config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        return [
          fk.getName(),
          {
            columns: ref.columns.map((c) => c.name),
            table: getSqliteTableConfig(ref.foreignTable).name,
            foreignColumns: ref.foreignColumns.map((c) => c.name),
            onDelete: fk.onDelete ?? 'no action',
          },
        ];
      }),
    ),
  };
}

function pgShape(table: PgTable): TableShape {
  const config = getPgTableConfig(table);
  const toText = (fragment: SQL) => pgDialect.sqlToQuery(fragment).sql;
  return {
    name: config.name,
    columns: Object.fromEntries(
      Object.entries(getTableColumns(table)).map(([key, c]) => [
        c.name,
        {
          key,
          notNull: c.notNull,
          default: sqlValue(c.default, toText),
          primary: c.primary,
          type: c.getSQLType(),
        },
      ]),
    ),
    primaryKeys: config.primaryKeys.map((k) => k.columns.map((c) => c.name)),
    indexes: Object.fromEntries(
      config.indexes.map(({ config: ix }) => [
        ix.name ?? '',
        {
          unique: ix.unique,
          columns: ix.columns.map((c) => (is(c, IndexedColumn) ? (c.name ?? '') : 'an expression')),
          where: ix.where ? toText(ix.where) : null,
        },
      ]),
    ),
    uniqueConstraints: Object.fromEntries(
      config.uniqueConstraints.map((u) => [u.getName() ?? '', u.columns.map((c) => c.name)]),
    ),
    foreignKeys: Object.fromEntries(
      config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        return [
          fk.getName(),
          {
            columns: ref.columns.map((c) => c.name),
            table: getPgTableConfig(ref.foreignTable).name,
            foreignColumns: ref.foreignColumns.map((c) => c.name),
            onDelete: fk.onDelete ?? 'no action',
          },
        ];
      }),
    ),
  };
}

/** The tables a module exports, by export name. */
function tablesOf(module: Record<string, unknown>): Record<string, Table> {
  return Object.fromEntries(Object.entries(module).filter((entry): entry is [string, Table] => is(entry[1], Table)));
}

const sqliteByName = tablesOf(sqliteTables);
const pgByName = tablesOf(pgTables);

describe('the PostgreSQL tables derived from tables.ts', () => {
  it('exports one PostgreSQL table under the name of every SQLite table, and no other', () => {
    expect(Object.keys(sqliteByName).length).toBeGreaterThan(30);
    expect(Object.keys(pgByName).sort()).toEqual(Object.keys(sqliteByName).sort());
  });

  it.each(Object.keys(sqliteByName))(
    'gives %s the same columns, nullability, defaults, keys, indexes and foreign keys',
    (name) => {
      const expected = sqliteShape(sqliteByName[name] as SQLiteTable); // every export of tables.ts is a sqliteTable
      expect(pgByName[name], `${name} has no PostgreSQL table`).toBeDefined();
      expect(pgShape(pgByName[name] as PgTable)).toEqual(expected); // every export of pg/tables.ts is a pgTable
    },
  );

  it('keeps times and the sync sequence in 64-bit integers read as numbers, and booleans as booleans', () => {
    const users = getTableColumns(pgTables.users);
    expect(users.createdAt.getSQLType()).toBe('bigint');
    expect(users.serverSeq.getSQLType()).toBe('bigint');
    expect(users.isActive.getSQLType()).toBe('boolean');
    expect(users.isActive.mapFromDriverValue(true)).toBe(true);
    expect(users.createdAt.mapFromDriverValue('1795303714386')).toBe(1795303714386);
  });

  it('makes an autoincrement key an identity generated by default', () => {
    expect(getTableColumns(pgTables.auditLog).id.generatedIdentity?.type).toBe('byDefault');
    expect(getTableColumns(pgTables.syncCounter).id.generatedIdentity).toBeUndefined();
  });

  it('refuses SQLite SQL it has no PostgreSQL form for, naming it', () => {
    const table = sqliteTable('with_sqlite_default', {
      id: text('id').primaryKey(),
      at: integer('at').default(sql`(unixepoch())`),
    });
    expect(() => getPgTableConfig(pgTableOf(table))).toThrow(
      'No PostgreSQL form for the SQLite SQL "(unixepoch())" of with_sqlite_default.at',
    );
  });

  it('refuses a column type it has no PostgreSQL type for, naming it', () => {
    const table = sqliteTable('with_timestamp', { at: integer('at', { mode: 'timestamp' }) });
    expect(() => pgTableOf(table)).toThrow('No PostgreSQL type for with_timestamp.at (SQLiteTimestamp)');
  });

  it('refuses an index where clause it has no PostgreSQL form for', () => {
    const table = sqliteTable('with_partial_index', { done: integer('done') }, (t) => [
      sqliteIndex('with_partial_index_done_idx')
        .on(t.done)
        .where(sql`done = 0`),
    ]);
    expect(() => getPgTableConfig(pgTableOf(table))).toThrow(
      `No PostgreSQL form for the SQLite SQL "done = 0" of with_partial_index's index with_partial_index_done_idx`,
    );
  });
});
