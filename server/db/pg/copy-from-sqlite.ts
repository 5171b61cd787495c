import type Database from 'better-sqlite3';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import { getTableConfig, PgTable, type PgColumn } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import * as pgTables from './tables';

/** What a column holds in PostgreSQL, and so how its SQLite value is converted (decision 152's type mapping). */
export type ColumnKind = 'boolean' | 'integer' | 'double' | 'text' | 'jsonb' | 'bytea';

export interface TableToCopy {
  name: string;
  columns: { name: string; kind: ColumnKind }[];
  /** The identity column, whose sequence is moved past the copied ids; null when there is none. */
  identity: string | null;
  /** Whether the table has a `server_seq` column, checked against the sync counter (docs/sync.md). */
  hasServerSeq: boolean;
}

/** A refusal or failure told to the operator in one line; nothing was written when it is thrown. */
export class MigrateError extends Error {}

/** The kind of a derived PostgreSQL column; throws on a type this copy does not convert (decision 154). */
export function columnKind(column: PgColumn, where: string): ColumnKind {
  const type = column.getSQLType();
  switch (type) {
    case 'boolean':
      return 'boolean';
    case 'bigint':
      return 'integer';
    case 'double precision':
      return 'double';
    case 'text':
      return 'text';
    case 'jsonb':
      return 'jsonb';
    case 'bytea':
      return 'bytea';
    default:
      throw new Error(`No conversion for ${where} (${type}): add it to server/db/pg/copy-from-sqlite.ts.`);
  }
}

/**
 * The tables in an order where every foreign key's target comes before the table holding it, derived from the
 * tables' configs; ties keep the order given. A cycle or a table referring to itself is refused: its rows would
 * need ordering too (decision 154).
 */
export function inForeignKeyOrder(tables: readonly PgTable[]): PgTable[] {
  const names = new Set(tables.map((table) => getTableName(table)));
  const parents = new Map<PgTable, string[]>();
  for (const table of tables) {
    const name = getTableName(table);
    const targets = getTableConfig(table).foreignKeys.map((key) => getTableName(key.reference().foreignTable));
    if (targets.includes(name)) throw new Error(`${name} refers to itself, which the copy cannot order yet.`);
    const missing = targets.find((target) => !names.has(target));
    if (missing) throw new Error(`${name} refers to ${missing}, which is not among the tables to copy.`);
    parents.set(table, targets);
  }
  const placed = new Set<string>();
  const ordered: PgTable[] = [];
  while (ordered.length < tables.length) {
    const ready = tables.filter(
      (table) => !placed.has(getTableName(table)) && parents.get(table)!.every((p) => placed.has(p)), // set above
    );
    if (ready.length === 0) {
      const left = tables.filter((table) => !placed.has(getTableName(table))).map((table) => getTableName(table));
      throw new Error(`The foreign keys of ${left.join(', ')} form a cycle, which the copy cannot order.`);
    }
    for (const table of ready) {
      placed.add(getTableName(table));
      ordered.push(table);
    }
  }
  return ordered;
}

/** Every table of tables.ts, as derived for PostgreSQL, in foreign key order with what the copy needs of each. */
export function tablesToCopy(): TableToCopy[] {
  const tables: PgTable[] = Object.values(pgTables).filter((value) => is(value, PgTable));
  return inForeignKeyOrder(tables).map((table) => {
    const name = getTableName(table);
    const columns = Object.values(getTableColumns(table));
    return {
      name,
      columns: columns.map((column) => ({ name: column.name, kind: columnKind(column, `${name}.${column.name}`) })),
      identity: columns.find((column) => column.generatedIdentity !== undefined)?.name ?? null,
      hasServerSeq: columns.some((column) => column.name === 'server_seq'),
    };
  });
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A SQLite value (read with safe integers, so a bigint) as the parameter PostgreSQL's column takes. */
function toPostgres(value: unknown, kind: ColumnKind, where: string): unknown {
  if (value === null) return null;
  switch (kind) {
    case 'boolean':
      if (value === 0n || value === 1n) return value === 1n;
      throw new Error(`${where} holds ${String(value)}, not 0 or 1.`);
    case 'integer':
      return typeof value === 'bigint' ? value.toString() : value; // exact past 2^53, as PostgreSQL's bigint
    case 'double':
      return typeof value === 'bigint' ? Number(value) : value;
    default:
      return value; // text and JSON as text, a blob as a Buffer that pg sends as bytea
  }
}

/** PostgreSQL takes at most 65,535 parameters in a statement; a few thousand rows per INSERT stay below it. */
const MAX_PARAMETERS = 60_000;
const MAX_ROWS_PER_INSERT = 5_000;

/** Copies one table's rows, read from SQLite in the caller's read transaction, in multi-row INSERTs. */
async function copyTable(source: Database.Database, target: pg.ClientBase, table: TableToCopy): Promise<number> {
  const columnList = table.columns.map((column) => quote(column.name)).join(', ');
  const perInsert = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / table.columns.length)));
  const width = table.columns.length;
  const insert = (rows: unknown[][]) => {
    const values = rows.map(
      (_, r) => `(${table.columns.map((_c, c) => `$${r * width + c + 1}`).join(', ')})`, // numbered parameters
    );
    return target.query(`INSERT INTO ${quote(table.name)} (${columnList}) VALUES ${values.join(', ')}`, rows.flat());
  };
  const read = source
    .prepare(`SELECT ${columnList} FROM ${quote(table.name)}`)
    .raw(true)
    .safeIntegers(true);
  let batch: unknown[][] = [];
  let copied = 0;
  // Raw mode answers each row as an array of its columns.
  for (const row of read.iterate() as Iterable<unknown[]>) {
    batch.push(
      row.map((value, i) =>
        toPostgres(value, table.columns[i].kind, `${table.name}.${table.columns[i].name} of row ${copied + 1}`),
      ),
    );
    copied += 1;
    if (batch.length === perInsert) {
      await insert(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await insert(batch);
  return copied;
}

/** A number SQLite answers for one value (a count, a max), 0 when it answers none or NULL. */
function sqliteNumber(source: Database.Database, text: string, ...params: string[]): number {
  const value = source
    .prepare(text)
    .pluck()
    .get(...params) as number | null | undefined; // pluck answers the one column's value, untyped
  return Number(value ?? 0);
}

/** Moves an identity's sequence past the copied ids, and past ids SQLite handed out to rows since deleted. */
async function moveIdentity(source: Database.Database, target: pg.ClientBase, table: TableToCopy): Promise<void> {
  if (table.identity === null) return;
  const hasSequences = sqliteNumber(
    source,
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'",
  );
  const handedOut = hasSequences
    ? sqliteNumber(source, 'SELECT seq FROM sqlite_sequence WHERE name = ?', table.name)
    : 0;
  const copied = sqliteNumber(source, `SELECT max(${quote(table.identity)}) FROM ${quote(table.name)}`);
  const last = Math.max(handedOut, copied);
  // With nothing handed out the next id is 1, as in SQLite; else the one after the last.
  await target.query('SELECT setval(pg_get_serial_sequence($1, $2), $3, $4)', [
    quote(table.name),
    table.identity,
    Math.max(last, 1),
    last > 0,
  ]);
}

/** One side's figures, compared before the copy commits. */
export interface Figures {
  rows: Map<string, number>;
  /** sync_counter.seq, 0 before the first synced write. */
  seq: number;
  /** The greatest server_seq of each table that has one (0 when empty). */
  maxServerSeq: Map<string, number>;
}

async function postgresFigures(target: pg.ClientBase, tables: TableToCopy[]): Promise<Figures> {
  const one = async (text: string) => Number((await target.query<{ n: string | null }>(text)).rows[0].n ?? 0);
  const figures: Figures = { rows: new Map(), seq: 0, maxServerSeq: new Map() };
  for (const table of tables) {
    figures.rows.set(table.name, await one(`SELECT count(*) AS n FROM ${quote(table.name)}`));
    if (table.hasServerSeq)
      figures.maxServerSeq.set(table.name, await one(`SELECT max(server_seq) AS n FROM ${quote(table.name)}`));
  }
  figures.seq = await one('SELECT max(seq) AS n FROM sync_counter');
  return figures;
}

function sqliteFigures(source: Database.Database, tables: TableToCopy[]): Figures {
  const one = (text: string) => sqliteNumber(source, text);
  const figures: Figures = { rows: new Map(), seq: 0, maxServerSeq: new Map() };
  for (const table of tables) {
    figures.rows.set(table.name, one(`SELECT count(*) FROM ${quote(table.name)}`));
    if (table.hasServerSeq)
      figures.maxServerSeq.set(table.name, one(`SELECT max(server_seq) FROM ${quote(table.name)}`));
  }
  figures.seq = one('SELECT max(seq) FROM sync_counter');
  return figures;
}

/** What differs between the two sides, in words; empty when everything matched. */
export function compareFigures(sqlite: Figures, postgres: Figures): string[] {
  const problems: string[] = [];
  for (const [name, rows] of sqlite.rows) {
    if (postgres.rows.get(name) !== rows)
      problems.push(`${name}: ${rows} rows in SQLite, ${postgres.rows.get(name)} in PostgreSQL`);
  }
  if (sqlite.seq !== postgres.seq)
    problems.push(`sync_counter.seq: ${sqlite.seq} in SQLite, ${postgres.seq} in PostgreSQL`);
  for (const [name, max] of sqlite.maxServerSeq) {
    if (postgres.maxServerSeq.get(name) !== max)
      problems.push(`${name}.server_seq: greatest ${max} in SQLite, ${postgres.maxServerSeq.get(name)} in PostgreSQL`);
    if (max > sqlite.seq) problems.push(`${name}.server_seq reaches ${max}, past sync_counter.seq ${sqlite.seq}`);
  }
  return problems;
}

/** The app's tables the target already has: none (a new database), all, or (refused) some. */
async function existingTables(target: pg.ClientBase, tables: TableToCopy[]): Promise<string[]> {
  const found = await target.query<{ name: string }>(
    'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY($1)',
    [tables.map((table) => table.name)],
  );
  return found.rows.map((row) => row.name);
}

/**
 * Gives the target the app's schema when it has none of its tables (drizzle's migrations, in their own
 * transaction: a copy that fails after leaves the empty schema, which a second run accepts). Answers whether
 * it did.
 */
export async function prepareSchema(
  target: pg.Client,
  tables: TableToCopy[],
  migrationsFolder: string,
): Promise<boolean> {
  const existing = await existingTables(target, tables);
  if (existing.length === tables.length) return false;
  if (existing.length > 0) {
    const missing = tables.map((table) => table.name).filter((name) => !existing.includes(name));
    throw new MigrateError(
      `The database has some of the app's tables but not ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}: ` +
        'copy into an empty database. Nothing was written.',
    );
  }
  await migrate(drizzle(target), { migrationsFolder });
  return true;
}

export interface CopyResult {
  sqlite: Figures;
  postgres: Figures;
  /** Empty when every figure matched and the copy was committed; else it was rolled back. */
  problems: string[];
}

/**
 * Copies every table inside ONE PostgreSQL transaction (decision 154): locks the app's tables, refuses any holding
 * a row, copies in foreign key order, moves identities past the copied ids, compares the figures of both sides,
 * and commits only when they match. `source` must be in a read transaction, so every read sees one snapshot.
 */
export async function copyInOneTransaction(
  source: Database.Database,
  target: pg.Client,
  tables: TableToCopy[],
): Promise<CopyResult> {
  await target.query('BEGIN');
  try {
    const list = tables.map((table) => quote(table.name)).join(', ');
    await target.query(`LOCK TABLE ${list} IN ACCESS EXCLUSIVE MODE`);
    const holding = await target.query<{ name: string }>(
      tables
        .map((table) => `SELECT '${table.name}' AS name WHERE EXISTS (SELECT 1 FROM ${quote(table.name)})`)
        .join(' UNION ALL '),
    );
    if (holding.rows.length > 0) {
      const names = holding.rows.map((row) => row.name);
      throw new MigrateError(
        `The database is not empty: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''} already hold rows. ` +
          'migrate-to-postgres copies only into an empty database. Nothing was written.',
      );
    }
    for (const table of tables) {
      try {
        await copyTable(source, target, table);
        await moveIdentity(source, target, table);
      } catch (error) {
        throw new MigrateError(
          `Copying ${table.name} failed: ${errorText(error).replace(/\.$/, '')}. Nothing was written.`,
        );
      }
    }
    const sqlite = sqliteFigures(source, tables);
    const postgres = await postgresFigures(target, tables);
    const problems = compareFigures(sqlite, postgres);
    await target.query(problems.length === 0 ? 'COMMIT' : 'ROLLBACK');
    return { sqlite, postgres, problems };
  } catch (error) {
    await target.query('ROLLBACK').catch(() => undefined); // the connection itself may be what failed
    throw error;
  }
}

/** An error's first line: pg's and SQLite's messages are one line, and no stack reaches the operator. */
export function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0];
}
