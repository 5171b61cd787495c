import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { chooseServer, isServerLost, parseServers, type Servers } from './hosts';

/** Values bound to `?` (an array) or to `@name` (an object) in a statement's text. */
export type Params = readonly unknown[] | Readonly<Record<string, unknown>>;

/** How a statement's rows come back: objects by column name, arrays in column order, or only its count. */
export type RowMode = 'objects' | 'arrays' | 'run';

export interface Outcome {
  rows: unknown[];
  changes: number;
}

/**
 * One way to run SQL on a database: the app's connection (which waits while a transaction holds it, on SQLite) or a
 * transaction's own. Statements are written in SQLite's words with `?` or `@name`; PostgreSQL gets `$n`.
 */
export interface Connection {
  readonly engine: Engine;
  /** Set on a transaction's connection: the savepoint depth inside it. */
  readonly inTransaction: boolean;
  query(text: string, params: Params, mode: RowMode): Promise<Outcome>;
  /** Runs `work` in a transaction on a connection of its own, or in a savepoint when this is one. */
  transaction<T>(work: (tx: Connection) => Promise<T>): Promise<T>;
}

export interface Engine {
  readonly kind: 'sqlite' | 'postgres';
  /** The app's connection, shared by everything outside a transaction. */
  readonly root: Connection;
  /** Reads every row of a long query over many turns of the event loop, in arrays, without holding the app's. */
  iterate(text: string, params: Params): AsyncIterable<unknown[]>;
  /** Runs `work` unless another server is running the work of this name; null when it was not run. */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T | null>;
  /** Runs a read (a text without parameters) once every writing transaction running now has committed. */
  readAfterWriters(text: string): Promise<unknown[]>;
  close(): Promise<void>;
}

const STATEMENT_CACHE = 500;

/**
 * SQLite through better-sqlite3: one connection, so a transaction holds it until it ends and every other statement
 * waits (its awaits would otherwise let another request's statements into it). Statements are prepared once per text.
 */
export class SqliteEngine implements Engine {
  readonly kind = 'sqlite';
  readonly root: Connection;
  private readonly statements = new Map<string, Database.Statement>();
  /** The transaction holding the connection, if any; settled when it ends. */
  private holder: Promise<void> | null = null;
  private readonly txConnection: Connection;
  private depth = 0;

  constructor(readonly sqlite: Database.Database) {
    this.root = {
      engine: this,
      inTransaction: false,
      query: async (text, params, mode) => {
        while (this.holder) await this.holder;
        return this.run(text, params, mode);
      },
      transaction: (work) => this.begin(work),
    };
    this.txConnection = {
      engine: this,
      inTransaction: true,
      query: async (text, params, mode) => {
        if (this.depth === 0) throw new Error('A transaction’s connection was used after the transaction ended');
        return this.run(text, params, mode);
      },
      transaction: (work) => this.savepoint(work),
    };
  }

  private statement(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (statement) return statement;
    statement = this.sqlite.prepare(text);
    if (this.statements.size >= STATEMENT_CACHE) this.statements.delete(this.statements.keys().next().value!);
    this.statements.set(text, statement);
    return statement;
  }

  private run(text: string, params: Params, mode: RowMode): Outcome {
    const statement = this.statement(text);
    const bind = params as unknown[];
    if (mode === 'run' || !statement.reader) {
      const result = statement.run(bind);
      return { rows: [], changes: result.changes };
    }
    const rows = statement.raw(mode === 'arrays').all(bind);
    return { rows, changes: 0 };
  }

  private async begin<T>(work: (tx: Connection) => Promise<T>): Promise<T> {
    while (this.holder) await this.holder;
    let release!: () => void;
    this.holder = new Promise((resolve) => (release = resolve));
    this.depth = 1;
    try {
      this.sqlite.exec('BEGIN IMMEDIATE');
      const result = await work(this.txConnection);
      this.sqlite.exec('COMMIT');
      return result;
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.exec('ROLLBACK');
      throw error;
    } finally {
      this.depth = 0;
      this.holder = null;
      release();
    }
  }

  private async savepoint<T>(work: (tx: Connection) => Promise<T>): Promise<T> {
    const name = `sp${this.depth}`;
    this.sqlite.exec(`SAVEPOINT ${name}`);
    this.depth += 1;
    try {
      const result = await work(this.txConnection);
      this.sqlite.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.sqlite.exec(`ROLLBACK TO ${name}`);
      this.sqlite.exec(`RELEASE ${name}`);
      throw error;
    } finally {
      this.depth -= 1;
    }
  }

  /** One server holds the data folder (its lock file), so nothing else runs this work. */
  exclusive<T>(_name: string, work: () => Promise<T>): Promise<T | null> {
    return work();
  }

  /** The app's connection waits for a running transaction anyway. */
  async readAfterWriters(text: string): Promise<unknown[]> {
    return (await this.root.query(text, [], 'objects')).rows;
  }

  /** A read-only connection of its own reads a steady snapshot (WAL) while the app writes (decision 130). */
  async *iterate(text: string, params: Params): AsyncIterable<unknown[]> {
    const reader = new Database(this.sqlite.name, { readonly: true, fileMustExist: true });
    try {
      reader.pragma('busy_timeout = 5000');
      const rows = reader
        .prepare(text)
        .raw(true)
        .iterate(params as unknown[]) as IterableIterator<unknown[]>;
      let n = 0;
      for (const row of rows) {
        yield row;
        // Let requests in between: the caller may only await a stream's drain now and then.
        if (++n % 500 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      reader.close();
    }
  }

  close(): Promise<void> {
    this.sqlite.close();
    return Promise.resolve();
  }
}

/** PostgreSQL's integers and numerics come back as JS numbers, and booleans as 1 and 0 as SQLite's do. */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    if (oid === 16) return (value: string) => (value === 't' ? 1 : 0);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

/** What a statement runs on: the app's pool, or a transaction's client. */
interface Runner {
  query(query: pg.QueryConfig | pg.QueryArrayConfig): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/** Every writing transaction takes this lock first, so transactions commit in sync-sequence order (docs/sync.md). */
const WRITE_LOCK = 7_120_531;

/**
 * A node-postgres pool on the server the URL chooses (the first writable one, with target_session_attrs=read-write;
 * see server/db/hosts.ts). When that server goes away or turns read-only (a failover), the pool is ended and the
 * next connection chooses again, so the process follows the new primary without a restart (docs/deploy.md).
 */
export class PrimaryPool {
  private readonly choice: Servers;
  private current: pg.Pool | null = null;
  private choosing: Promise<pg.Pool> | null = null;
  /** The pool each client handed out came from: a late error from an ended pool must not end its successor. */
  private readonly owners = new WeakMap<pg.PoolClient, pg.Pool>();
  private ended = false;

  constructor(
    url: string,
    private readonly config: Omit<pg.PoolConfig, 'connectionString'>,
  ) {
    this.choice = parseServers(url);
  }

  /** A client on the chosen server; its errors are watched, so a checked-out client's lost server is noticed too. */
  async connect(): Promise<pg.PoolClient> {
    const pool = await this.pool();
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      this.forget(pool, error);
      throw error;
    }
    if (!this.owners.has(client)) {
      this.owners.set(client, pool);
      // Without a listener, a checked-out client whose server goes away would throw it and end the process.
      client.on('error', (error) => this.forget(pool, error));
    }
    return client;
  }

  async query(query: pg.QueryConfig | pg.QueryArrayConfig): Promise<pg.QueryResult> {
    const pool = await this.pool();
    try {
      return await pool.query(query);
    } catch (error) {
      this.forget(pool, error);
      throw error;
    }
  }

  /** Tells the pool what a statement on one of its clients failed with: a lost server is chosen again. */
  failed(client: pg.PoolClient, error: unknown): void {
    const pool = this.owners.get(client);
    if (pool) this.forget(pool, error);
  }

  private forget(pool: pg.Pool, error: unknown): void {
    if (pool !== this.current || !isServerLost(error)) return;
    this.current = null;
    void pool.end().catch(() => undefined);
  }

  private pool(): Promise<pg.Pool> {
    if (this.current) return Promise.resolve(this.current);
    this.choosing ??= chooseServer(this.choice)
      .then((url) => {
        if (this.ended) throw new Error('The database pool was used after it was closed');
        const pool = new pg.Pool({ ...this.config, connectionString: url });
        // An idle client's error (the server restarted or was demoted): the next connection chooses again.
        pool.on('error', (error) => this.forget(pool, error));
        this.current = pool;
        return pool;
      })
      .finally(() => {
        this.choosing = null;
      });
    return this.choosing;
  }

  async end(): Promise<void> {
    this.ended = true;
    await this.choosing?.catch(() => undefined);
    await this.current?.end();
  }
}

/**
 * PostgreSQL through a pool of node-postgres clients. A transaction takes a client of its own and, first, a lock every
 * transaction takes: writers run one at a time as on SQLite, so `server_seq` values commit in order and a pull never
 * passes one that commits later.
 */
export class PostgresEngine implements Engine {
  readonly kind = 'postgres';
  readonly root: Connection;
  readonly pool: PrimaryPool;
  /** Connections that hold a background job's lock while it runs, apart from the requests' pool. */
  private readonly jobs: PrimaryPool;
  private readonly texts = new Map<string, Translated>();

  constructor(
    readonly url: string,
    max = 10,
  ) {
    this.pool = new PrimaryPool(url, { max, types });
    this.jobs = new PrimaryPool(url, { max: 8, types });
    this.root = {
      engine: this,
      inTransaction: false,
      query: (text, params, mode) => this.run(this.pool, text, params, mode),
      transaction: (work) => this.begin(work),
    };
  }

  private translate(text: string): Translated {
    let translated = this.texts.get(text);
    if (translated) return translated;
    translated = toPostgres(text);
    if (this.texts.size >= STATEMENT_CACHE) this.texts.delete(this.texts.keys().next().value!);
    this.texts.set(text, translated);
    return translated;
  }

  private async run(client: Runner, text: string, params: Params, mode: RowMode): Promise<Outcome> {
    const { sql, names, name } = this.translate(text);
    const values = valuesOf(names, params);
    const query: pg.QueryConfig | pg.QueryArrayConfig = { text: sql, values, ...(name && { name }) };
    const result = await client.query(mode === 'arrays' ? { ...query, rowMode: 'array' } : query);
    return { rows: result.rows, changes: result.rowCount ?? 0 };
  }

  private async begin<T>(work: (tx: Connection) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let depth = 1;
    let open = true;
    /**
     * Statements without parameters not sent yet: the transaction's start and lock, savepoints and their releases.
     * They go together, in one simple query, with the next statement's round trip before it; at COMMIT what is left
     * (releases, a savepoint nothing ran in) is dropped, since COMMIT ends them all.
     */
    let pending: { text: string; scope?: { sent: boolean } }[] = [
      { text: `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK})` },
    ];
    let begun = false;
    const sendPending = async () => {
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      begun = true;
      await client.query(batch.map(({ text }) => text).join('; '));
      for (const { scope } of batch) if (scope) scope.sent = true;
    };
    const tx: Connection = {
      engine: this,
      inTransaction: true,
      query: async (text, params, mode) => {
        if (!open) throw new Error('A transaction’s connection was used after the transaction ended');
        await sendPending();
        return this.run(client, text, params, mode);
      },
      transaction: async (inner) => {
        const name = `sp${depth}`;
        const scope = { sent: false };
        pending.push({ text: `SAVEPOINT ${name}`, scope });
        depth += 1;
        try {
          const result = await inner(tx);
          // A savepoint nothing ran in is dropped with its release.
          if (pending[pending.length - 1]?.scope === scope) pending.pop();
          else pending.push({ text: `RELEASE SAVEPOINT ${name}` });
          return result;
        } catch (error) {
          const unsent = pending.findIndex((entry) => entry.scope === scope);
          if (unsent >= 0)
            pending.splice(unsent); // nothing ran in it
          else if (scope.sent) {
            // What is still pending came after it, and goes with the rollback.
            pending = [];
            await client.query(`ROLLBACK TO SAVEPOINT ${name}`);
          }
          throw error;
        } finally {
          depth -= 1;
        }
      },
    };
    let broken = false;
    try {
      const result = await work(tx);
      pending = [];
      if (begun) {
        // PostgreSQL answers COMMIT of a transaction a failed statement aborted with a rollback, not an error.
        const ended = await client.query('COMMIT');
        if (ended.command !== 'COMMIT')
          throw new Error('The transaction was rolled back: one of its statements failed');
      }
      return result;
    } catch (error) {
      this.pool.failed(client, error);
      pending = [];
      if (begun) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true; // the connection is gone: the pool drops it
        }
      }
      throw error;
    } finally {
      open = false;
      client.release(broken);
    }
  }

  /**
   * A session advisory lock named after the work, tried on a connection of its own and held while the work runs: of
   * several servers, one runs it and the others skip this turn. A lost connection frees the lock.
   */
  async exclusive<T>(name: string, work: () => Promise<T>): Promise<T | null> {
    const client = await this.jobs.connect();
    let broken = false;
    try {
      const got = await client.query<{ ok: number }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [name]);
      if (got.rows[0]?.ok !== 1) return null;
      try {
        return await work();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [name]).catch(() => {
          broken = true; // the pool drops the connection, and the lock with it
        });
      }
    } catch (error) {
      this.jobs.failed(client, error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * The lock every writer holds, then the read, sent as one simple query: PostgreSQL runs the two in one implicit
   * transaction (the lock is let go at its end, or if it fails) and takes the read's snapshot once the lock is granted.
   */
  async readAfterWriters(text: string): Promise<unknown[]> {
    const results = (await this.pool.query({
      text: `SELECT pg_advisory_xact_lock(${WRITE_LOCK}); ${text}`,
    })) as unknown as pg.QueryResult[];
    return results[1]!.rows;
  }

  /** A cursor in a read-only transaction on a client of its own, fetched a page at a time. */
  async *iterate(text: string, params: Params): AsyncIterable<unknown[]> {
    const client = await this.pool.connect();
    const { sql, names } = this.translate(text);
    const values = valuesOf(names, params);
    let broken = false;
    try {
      await client.query('BEGIN READ ONLY');
      await client.query({ text: `DECLARE rows NO SCROLL CURSOR FOR ${sql}`, values: values as unknown[] });
      for (;;) {
        const page = await client.query({ text: 'FETCH 500 FROM rows', rowMode: 'array' });
        for (const row of page.rows as unknown[][]) yield row;
        if (page.rows.length < 500) break;
      }
      await client.query('COMMIT');
    } catch (error) {
      this.pool.failed(client, error);
      broken = true;
      throw error;
    } finally {
      if (broken) await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.end(), this.jobs.end()]);
  }
}

/** The values in `$n` order: by name for `@name`, as given for `?` (and none for a text with neither). */
function valuesOf(names: string[] | null, params: Params): unknown[] {
  if (names) return names.map((name) => (params as Record<string, unknown>)[name]);
  return Array.isArray(params) ? (params as unknown[]) : [];
}

interface Translated {
  sql: string;
  /** For `@name` parameters: the name of each `$n` in order. */
  names: string[] | null;
  /**
   * The name it is prepared under on each connection, so PostgreSQL parses it once per connection rather than at
   * every run; null for a text with many parameters, whose variants (a list's length) would each stay prepared, and
   * for several statements in one text.
   */
  name: string | null;
}

/** Texts with more parameters run unprepared (a long `IN` list or a multi-row insert comes in many lengths). */
const PREPARED_MAX_PARAMS = 32;

/** SQLite's `?` and `@name` become PostgreSQL's `$n`; quoted text and identifiers are left as they are. */
export function toPostgres(text: string): Translated {
  let out = '';
  let n = 0;
  const names: string[] = [];
  const numbered = new Map<string, number>();
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (ch === "'" || ch === '"') {
      const end = text.indexOf(ch, i + 1);
      const stop = end === -1 ? text.length : end + 1;
      out += text.slice(i, stop);
      i = stop - 1;
    } else if (ch === '?') {
      n += 1;
      out += `$${n}`;
    } else if (ch === '@' && /[A-Za-z_]/.test(text[i + 1] ?? '')) {
      const name = /^[A-Za-z_]\w*/.exec(text.slice(i + 1))![0];
      let index = numbered.get(name);
      if (index === undefined) {
        names.push(name);
        numbered.set(name, (index = names.length));
      }
      out += `$${index}`;
      i += name.length;
    } else {
      out += ch;
    }
  }
  if (n > 0 && names.length > 0) throw new Error('A statement mixes ? and @name parameters');
  // drizzle's SQLite builder names an upsert's conflict target with its table, which PostgreSQL refuses.
  out = out.replace(
    /\bon conflict \(([^)]*)\)/gi,
    (_, target: string) => `on conflict (${target.replace(/"[^"]+"\./g, '')})`,
  );
  const count = Math.max(n, names.length);
  // Named after its text: the same text always has the same name, on every connection and after the cache forgets it.
  const prepared = count <= PREPARED_MAX_PARAMS && !out.includes(';'); // several statements go as a simple query
  const name = prepared ? `s${createHash('sha1').update(out).digest('base64url')}` : null;
  return { sql: out, names: names.length > 0 ? names : null, name };
}
