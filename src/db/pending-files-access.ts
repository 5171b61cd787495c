import { PENDING_FILES_DB } from '../../schema/offline';
import type { PendingFilesDatabase, WaitingPostRecord } from './pending-files-db';

type Environment = { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange };

/** How a feature opens the database of work waiting for its files (src/db/pending-files-db.ts). */
export interface PendingFilesAccess<T extends WaitingPostRecord> {
  /** The database, opened on first use; Dexie's code is loaded then (decision 97). */
  db: () => Promise<PendingFilesDatabase<T>>;
  /** Whether anything was ever saved: reading must not create the database, so a user who never wrote offline leaves nothing behind. */
  exists: () => Promise<boolean>;
  /** Tests run on fake-indexeddb. */
  setEnvironment: (env: Environment) => void;
  /** Removes the database and everything in it. */
  remove: () => Promise<void>;
}

export function pendingFilesAccess<T extends WaitingPostRecord = WaitingPostRecord>(): PendingFilesAccess<T> {
  let database: PendingFilesDatabase<T> | null = null;
  let environment: Environment | undefined;
  const db = async () => {
    if (database) return database;
    const { PendingFilesDatabase } = await import('./pending-files-db');
    database ??= new PendingFilesDatabase<T>(PENDING_FILES_DB, environment);
    return database;
  };
  const exists = async () => {
    if (database?.isOpen()) return true;
    const factory = environment?.indexedDB ?? globalThis.indexedDB;
    if (typeof factory?.databases !== 'function') return true;
    return (await factory.databases()).some((info) => info.name === PENDING_FILES_DB);
  };
  return {
    db,
    exists,
    setEnvironment(env) {
      database?.close();
      database = null;
      environment = env;
    },
    async remove() {
      const current = database ?? ((await exists()) ? await db() : null);
      database = null;
      await current?.delete();
    },
  };
}
