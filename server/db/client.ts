import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { MIGRATIONS_DIR } from '../lib/paths';
import * as tables from './tables';

export type Db = BetterSQLite3Database<typeof tables> & { $client: Database.Database };

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
  const db = drizzle(sqlite, { schema: tables }) as Db;
  migrate(db, { migrationsFolder: MIGRATIONS_DIR });
  return db;
}

/**
 * A read-only connection to the same file, for a long read streamed over many turns of the event loop: an open
 * better-sqlite3 iterator keeps its connection busy, so it must not be the one every request uses (decision 130).
 * WAL lets it read a steady snapshot while the app writes. Close it when done.
 */
export function openReader(db: Db): Db {
  const sqlite = new Database(db.$client.name, { readonly: true, fileMustExist: true });
  sqlite.pragma('busy_timeout = 5000');
  return drizzle(sqlite, { schema: tables }) as Db; // drizzle's type lacks the $client it does set
}

/**
 * A query prepared once per database, on first use. Drizzle otherwise builds the SQL text and has SQLite
 * prepare it again on every call; for the statements of a hot path (a chat message's send) that cost more
 * than running them (decision 78). Values go in as `sql.placeholder`s.
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
