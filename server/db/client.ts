import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle as drizzleSync } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzleProxy } from 'drizzle-orm/sqlite-proxy';
import { sql, type Placeholder, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import { MIGRATIONS_DIR, PG_MIGRATIONS_DIR } from '../lib/paths';
import { PostgresEngine, SqliteEngine, type Connection, type Params } from './engine';

export type { Params } from './engine';

/** What a write returns: how many rows it changed. */
export interface RunResult {
  rows?: unknown[];
  changes: number;
}

/**
 * The database as the queries see it: drizzle's SQLite query builder, asynchronous, on SQLite or on PostgreSQL
 * (decision 157). `$conn` is the connection it runs on: the app's, or a transaction's inside `transaction`.
 */
export type Db = BaseSQLiteDatabase<'async', RunResult> & { readonly $conn: Connection };

const dbs = new WeakMap<Connection, Db>();

/** The query builder bound to one connection; made once per connection. */
function dbFor(conn: Connection): Db {
  let db = dbs.get(conn);
  if (db) return db;
  const proxy = drizzleProxy(async (text, params, method) => {
    if (method === 'run') return conn.query(text, params, 'run');
    const { rows } = await conn.query(text, params, 'arrays');
    return { rows: method === 'get' ? (rows[0] as unknown[]) : rows };
  });
  db = Object.assign(proxy, { $conn: conn }) as unknown as Db;
  dbs.set(conn, db);
  return db;
}

/**
 * Opens (creating if needed) the SQLite file in WAL mode with foreign keys and secure delete on, and applies
 * migrations.
 */
export function openDb(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  // Deleted and erased content is overwritten in the file, not left in free space (decision 126).
  sqlite.pragma('secure_delete = ON');
  migrate(drizzleSync(sqlite), { migrationsFolder: MIGRATIONS_DIR });
  return dbFor(new SqliteEngine(sqlite).root);
}

export class DatabaseCollationError extends Error {}

/** Lock held while one server applies PostgreSQL migrations, so servers starting together do not race. */
const MIGRATE_LOCK = 7_120_532;

/** Connects to PostgreSQL (`DATABASE_URL`) and applies its migrations. */
export async function openPostgres(url: string): Promise<Db> {
  const engine = new PostgresEngine(url);
  let refused: string | null = null;
  const client = await engine.pool.connect();
  try {
    // Through jsonb: PostgreSQL before 15 has no datlocprovider column (its collations are all the C library's).
    const { rows } = await client.query<{ collate: string; provider: string | null }>(
      `SELECT datcollate AS collate, to_jsonb(d) ->> 'datlocprovider' AS provider
       FROM pg_database d WHERE datname = current_database()`,
    );
    const { collate = '', provider = null } = rows[0] ?? {};
    // Pulls page by (server_seq, id) in SQLite's byte order (docs/sync.md); another collation orders ids otherwise.
    if (/^(C|POSIX)(\.utf-?8)?$/i.test(collate) && provider !== 'i') {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATE_LOCK]);
      await migratePg(drizzleNodePg(client), { migrationsFolder: PG_MIGRATIONS_DIR });
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATE_LOCK]);
    } else {
      refused =
        `The PostgreSQL database orders text by "${provider === 'i' ? 'an ICU locale' : collate}"; Staff Portal needs byte order ("C"). ` +
        'Create it with: createdb --locale=C --template=template0 -O <owner> <name>';
    }
  } finally {
    client.release();
  }
  if (refused !== null) {
    await engine.close();
    throw new DatabaseCollationError(refused);
  }
  return dbFor(engine.root);
}

/** PostgreSQL when a URL is given, otherwise the SQLite file. */
export async function openDatabase(where: { databaseUrl?: string | null; file: string }): Promise<Db> {
  return where.databaseUrl ? openPostgres(where.databaseUrl) : openDb(where.file);
}

/** The app's own handle on the database a handle belongs to: for work that outlives the transaction it began in. */
export function appDbOf(db: Db): Db {
  return dbFor(db.$conn.engine.root);
}

/** Which SQL a query must speak where the two differ. */
export function dialectOf(db: Db): 'sqlite' | 'postgres' {
  return db.$conn.engine.kind;
}

/**
 * A JSON array bound as one parameter (`param`: `?` or `@name`), as rows of one `value` column to select from:
 * SQLite's json_each, PostgreSQL's json_array_elements_text. One statement then serves a list of any length.
 */
export function jsonValues(db: Db, param: string): string {
  return dialectOf(db) === 'postgres'
    ? `json_array_elements_text(CAST(${param} AS json)) AS j(value)`
    : `json_each(${param})`;
}

/** `jsonValues` for the query builder: the same rows from a bound value or placeholder. */
export function jsonValuesSql(db: Db, param: SQLWrapper | Placeholder): SQL {
  return dialectOf(db) === 'postgres'
    ? sql`json_array_elements_text(CAST(${param} AS json)) AS j(value)`
    : sql`json_each(${param})`;
}

/** The SQLite connection itself, for what only SQLite has (its online backup). */
export function sqliteOf(db: Db): Database.Database {
  const engine = db.$conn.engine;
  if (!(engine instanceof SqliteEngine)) throw new Error('This needs the SQLite database');
  return engine.sqlite;
}

export function closeDb(db: Db): Promise<void> {
  return db.$conn.engine.close();
}

/**
 * Runs `work` in one transaction and returns its result; a throw rolls it back. Pass the `tx` it gets to every query
 * inside: on SQLite the app's connection waits for the transaction, so a query on `db` inside it would never run.
 * Called inside a transaction, it is a savepoint of it.
 */
export function transaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  return db.$conn.transaction((conn) => work(dbFor(conn)));
}

/** What a transaction holds back until it commits: the live streams' news of its changes. */
interface Notifier {
  notify: (...args: never[]) => void;
  disconnectUser: (...args: never[]) => void;
  disconnectSession: (...args: never[]) => void;
}

/** Runs its function once the transaction it was given in has committed, never if it rolls back. */
export type AfterCommit = (fn: () => void) => void;

/** What `inTransaction` reads of the dependencies it passes on. */
interface TransactionDeps {
  db: Db;
  hub?: Notifier;
  outbox?: { wake: () => void };
  afterCommit?: AfterCommit;
}

/**
 * `transaction` for code that passes the app's dependencies along: `work` gets a copy of `deps` whose `db` is the
 * transaction's, so everything it calls with them runs inside it, and whose `hub`, `outbox.wake` and `afterCommit`
 * act only once the transaction has committed (nothing, if it rolls back): a device told or pushed to earlier could
 * pull before the change is there to see, on PostgreSQL, and wait for the next change to hear of it. Nested, they
 * wait for the outermost commit.
 */
export async function inTransaction<D extends TransactionDeps, T>(
  deps: D,
  work: (deps: D & { afterCommit: AfterCommit }) => Promise<T>,
): Promise<T> {
  const told: (() => void)[] = [];
  const afterCommit: AfterCommit = (fn) => told.push(() => whenCommitted(deps, fn));
  const result = await transaction(deps.db, (tx) => {
    const hub = deps.hub && heldUntilCommit(deps.hub, told);
    const outbox = deps.outbox && heldWake(deps.outbox, afterCommit);
    return work({ ...deps, db: tx, afterCommit, ...(hub && { hub }), ...(outbox && { outbox }) });
  });
  for (const tell of told) tell();
  return result;
}

/** Runs `fn` once the transaction `deps` belong to has committed, or now outside one. */
export function whenCommitted(deps: { afterCommit?: AfterCommit }, fn: () => void): void {
  if (deps.afterCommit) deps.afterCommit(fn);
  else fn();
}

function heldWake<O extends { wake: () => void }>(outbox: O, afterCommit: AfterCommit): O {
  const held = Object.create(outbox) as O;
  held.wake = () => afterCommit(() => outbox.wake());
  return held;
}

function heldUntilCommit<H extends Notifier>(hub: H, told: (() => void)[]): H {
  const held = Object.create(hub) as H;
  for (const name of ['notify', 'disconnectUser', 'disconnectSession'] as const) {
    const method = hub[name] as (...args: unknown[]) => void;
    (held as Record<string, unknown>)[name] = (...args: unknown[]) => told.push(() => method.apply(hub, args));
  }
  return held;
}

/**
 * Runs a background job's work unless another server is running it now (several servers on PostgreSQL); answers null
 * when it did not run. One server on SQLite always runs it.
 */
export function exclusive<T>(db: Db, name: string, work: () => Promise<T>): Promise<T | null> {
  return db.$conn.engine.exclusive(name, work);
}

/**
 * Reads (a text without parameters) once every writing transaction running now has committed, so what it reads holds
 * every change numbered before it; one round trip on either engine.
 */
export async function readAfterWriters<R>(db: Db, text: string): Promise<R[]> {
  return (await db.$conn.engine.readAfterWriters(text)) as R[];
}

/** A statement in SQL text, with `?` or `@name` parameters: for what the query builder does not say well. */
export interface Statement<P extends Params, R> {
  all(params?: P): Promise<R[]>;
  get(params?: P): Promise<R | undefined>;
  /** Its rows as arrays in column order. */
  rows(params?: P): Promise<unknown[][]>;
  /** Its first column. */
  pluck<V = unknown>(params?: P): Promise<V[]>;
  /** Runs it and says how many rows it changed. */
  run(params?: P): Promise<number>;
}

export function statement<P extends Params = unknown[], R = Record<string, unknown>>(
  db: Db,
  text: string,
): Statement<P, R> {
  const conn = db.$conn;
  const none = [] as unknown as P;
  return {
    all: async (params = none) => (await conn.query(text, params, 'objects')).rows as R[],
    get: async (params = none) => (await conn.query(text, params, 'objects')).rows[0] as R | undefined,
    rows: async (params = none) => (await conn.query(text, params, 'arrays')).rows as unknown[][],
    pluck: async <V>(params = none) =>
      ((await conn.query(text, params, 'arrays')).rows as unknown[][]).map((row) => row[0] as V),
    run: async (params = none) => (await conn.query(text, params, 'run')).changes,
  };
}

/**
 * Reads a long query's rows (arrays) over many turns of the event loop, on a connection of its own, so the app's
 * stays free while a large export streams (decision 130).
 */
export function iterate(db: Db, text: string, params: Params = []): AsyncIterable<unknown[]> {
  return db.$conn.engine.iterate(text, params);
}

/**
 * A value built once per database connection, on first use: statements prepared by the query builder, so a hot
 * path does not build the same SQL text on every call (decision 78). Values go in as `sql.placeholder`s.
 */
export function preparedFor<T>(build: (db: Db) => T): (db: Db) => T {
  const byDb = new WeakMap<Db, T>();
  return (db) => {
    let prepared = byDb.get(db);
    if (prepared === undefined) byDb.set(db, (prepared = build(db)));
    return prepared;
  };
}

export class DataDirLockedError extends Error {}

/** Refuses early (before a slow client build) when another live server holds the data folder. */
export function assertDataDirFree(dataDir: string): void {
  const lockFile = path.join(dataDir, 'server.pid');
  if (!fs.existsSync(lockFile)) return;
  const pid = Number(fs.readFileSync(lockFile, 'utf8'));
  if (pid && pid !== process.pid && isRunning(pid)) throw lockedError(pid, dataDir);
}

function lockedError(pid: number, dataDir: string): DataDirLockedError {
  return new DataDirLockedError(
    `Another Staff Portal server (process ${pid}) is already using the data folder ${dataDir}. ` +
      'Stop it first, or start this one with a different DATA_DIR.',
  );
}

/**
 * Takes the data folder for this process: a second server on the same folder would corrupt nothing in
 * SQLite, but would double-send mail and split live streams, so it refuses with a clear message.
 */
export function lockDataDir(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'server.pid');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => {
        try {
          if (fs.readFileSync(lockFile, 'utf8') === String(process.pid)) fs.unlinkSync(lockFile);
        } catch {
          /* already gone */
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const pid = Number(fs.readFileSync(lockFile, 'utf8'));
      if (pid && isRunning(pid)) {
        throw lockedError(pid, dataDir);
      }
      fs.unlinkSync(lockFile); // left behind by a server that crashed
    }
  }
  throw new DataDirLockedError(`Could not lock the data folder ${dataDir}`);
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
