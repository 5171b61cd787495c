/**
 * `npm run migrate-to-postgres -- <postgres://…>` (or DATABASE_URL): copies a stopped deployment's SQLite database
 * into an empty PostgreSQL database, in one transaction, and checks both sides before committing. Decision 154.
 */
import fs from 'node:fs';
import pg from 'pg';
import { ConfigError, loadConfig } from './config';
import { DataDirLockedError, lockDataDir, openDb, sqliteOf } from './db/client';
import {
  copyInOneTransaction,
  errorText,
  MigrateError,
  prepareSchema,
  tablesToCopy,
  type CopyResult,
} from './db/pg/copy-from-sqlite';
import { isCommand } from './lib/command';
import { PG_MIGRATIONS_DIR } from './lib/paths';
import { databaseFile } from './server';

const USAGE = 'Usage: npm run migrate-to-postgres -- postgres://user:password@host:5432/database (or set DATABASE_URL)';
/** How long to wait for PostgreSQL to answer a connection before saying it is unreachable. */
const CONNECT_TIMEOUT_MS = 10_000;

/** The target's URL from the argument, else DATABASE_URL; refuses anything but a postgres:// URL. */
export function targetUrl(argv: string[], env: NodeJS.ProcessEnv = process.env): URL {
  if (argv.length > 1) throw new MigrateError(`One URL only. ${USAGE}`);
  const raw = argv[0] ?? env.DATABASE_URL;
  if (!raw) throw new MigrateError(`Where to? ${USAGE}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MigrateError(`That is not a URL. ${USAGE}`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new MigrateError(`The URL must start with postgres:// (it starts with ${url.protocol}//). ${USAGE}`);
  return url;
}

/** The URL as it may be printed: the password never is. */
export function shownUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password) shown.password = '***';
  return shown.href;
}

interface PgFailure {
  code?: string;
  errors?: unknown[];
}

/** A connection failure in one line an operator can act on (no stack trace). */
export function connectionMessage(error: unknown, url: URL): string {
  const failure = (error ?? {}) as PgFailure; // pg and node report these codes on their errors
  // Node tries each address of a name (localhost: ::1 and 127.0.0.1) and reports them together.
  const code = failure.code ?? (failure.errors?.[0] as PgFailure | undefined)?.code; // an AggregateError's parts
  const where = `PostgreSQL at ${url.hostname || 'localhost'}:${url.port || 5432}`;
  const user = decodeURIComponent(url.username) || 'the default user';
  const database = decodeURIComponent(url.pathname.slice(1)) || 'the default database';
  switch (code) {
    case 'ECONNREFUSED':
      return `Could not reach ${where}: the connection was refused. Is it running, and are the host and port right?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Could not reach ${where}: no such host.`;
    case 'ETIMEDOUT':
      return `Could not reach ${where}: it did not answer within ${CONNECT_TIMEOUT_MS / 1000} s.`;
    case '28P01':
      return `${where} refused the password of ${user}.`;
    case '28000':
      return `${where} refused ${user}: ${errorText(error)}.`;
    case '3D000':
      return `${where} has no database ${database}: create it first (createdb), empty.`;
    default:
      return /timeout/i.test(errorText(error))
        ? `Could not reach ${where}: it did not answer within ${CONNECT_TIMEOUT_MS / 1000} s.`
        : `Could not connect to ${where}: ${errorText(error)}`;
  }
}

async function connect(url: URL): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url.href, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => undefined); // a connection lost mid-copy fails the query in progress, reported there
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new MigrateError(connectionMessage(error, url));
  }
}

/** The counts of both sides as a short table. */
export function countsTable({ sqlite, postgres }: CopyResult): string {
  const rows: [string, string, string][] = [['table', 'SQLite', 'PostgreSQL']];
  for (const [name, count] of sqlite.rows) rows.push([name, String(count), String(postgres.rows.get(name))]);
  rows.push(['sync_counter.seq', String(sqlite.seq), String(postgres.seq)]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
  return rows
    .map(([name, a, b]) => `  ${name.padEnd(widths[0])}  ${a.padStart(widths[1])}  ${b.padStart(widths[2])}`)
    .join('\n');
}

/** Runs the whole move; answers the exit code. */
async function main(): Promise<number> {
  const started = Date.now();
  const url = targetUrl(process.argv.slice(2));
  const config = loadConfig();
  const file = databaseFile(config);
  if (!fs.existsSync(file)) throw new MigrateError(`There is no Staff Portal database at ${file} (DATA_DIR).`);
  let unlock: () => void;
  try {
    unlock = lockDataDir(config.dataDir);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    throw new MigrateError(`Nothing was copied. ${error.message.split('. ')[0]}: stop it before migrating.`);
  }
  try {
    const tables = tablesToCopy();
    // The server's own opening: migrations a newer version brings are applied first, as its start would.
    const source = sqliteOf(openDb(file));
    try {
      const target = await connect(url);
      try {
        console.log(`Copying ${file} into ${shownUrl(url)} ...`);
        if (await prepareSchema(target, tables, PG_MIGRATIONS_DIR))
          console.log('  Created the tables (PostgreSQL migrations).');
        // One read transaction: every table is read from the same snapshot.
        source.exec('BEGIN');
        let result: CopyResult;
        try {
          result = await copyInOneTransaction(source, target, tables);
        } finally {
          source.exec('COMMIT');
        }
        console.log(countsTable(result));
        const seconds = ((Date.now() - started) / 1000).toFixed(1);
        if (result.problems.length > 0) {
          const problems = result.problems.map((p) => `  ${p}`).join('\n');
          console.error(`The two sides differ, so the copy was rolled back and nothing was written:\n${problems}`);
          return 1;
        }
        console.log(`All ${tables.length} tables and the sync counter match: committed in ${seconds} s.`);
        return 0;
      } finally {
        await target.end().catch(() => undefined);
      }
    } finally {
      source.close();
    }
  } finally {
    unlock();
  }
}

if (isCommand('migrate-to-postgres')) {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      if (error instanceof MigrateError || error instanceof ConfigError) console.error(error.message);
      else console.error(`The copy failed and nothing was written: ${errorText(error)}`);
      process.exit(1);
    },
  );
}
