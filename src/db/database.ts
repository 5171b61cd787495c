import { addRxPlugin, createRxDatabase, type RxDatabase, type RxStorage } from 'rxdb';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { LOCAL_DATABASE_PREFIX } from '../../schema/offline';
import { PUSHABLE_COLLECTIONS } from '../../schema/sync-protocol';
import { DEXIE_PREFIX, databaseNameFor } from './database-name';
import { mergeBasesOf, SYNCED_COLLECTIONS, syncedCollections, type SyncedCollections } from './collections';
import { lostChangesOf } from './lost-changes';
import { forgetLostChanges } from './lost-changes-store';
import { forgetPostDrafts } from './post-draft-store';
import { yieldToMain } from '../lib/yield-to-main';
import { isWorkerStopped, startStorageWorker, workerStorage, type WorkerLike } from './worker-storage';

export { databaseNameFor };

export type UserDatabaseCollections = SyncedCollections;
export type UserDatabase = RxDatabase<UserDatabaseCollections>;

/** Where the database lives; the browser's IndexedDB unless a test passes fake-indexeddb. */
export interface DatabaseEnvironment {
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
  /** Share changes between tabs of one browser (BroadcastChannel); tests turn it off. */
  multiInstance?: boolean;
  /** Starts the storage worker; a browser's own by default, a stand-in in tests (decision 88). */
  worker?: () => WorkerLike;
  /** Keep the storage in the page: the worker could not start. */
  inPage?: boolean;
}

type Storage = RxStorage<unknown, unknown>;

const NAME_PREFIX = LOCAL_DATABASE_PREFIX;
const SYNCED_PUSHABLE: readonly (keyof typeof SYNCED_COLLECTIONS)[] = PUSHABLE_COLLECTIONS;

interface OpenDatabase {
  name: string;
  db: UserDatabase;
  env: DatabaseEnvironment;
}

let current: OpenDatabase | null = null;
let queue: Promise<unknown> = Promise.resolve();
let devModeLoaded: Promise<void> | undefined;

// Collections whose schema version went up migrate stored documents on open.
addRxPlugin(RxDBMigrationSchemaPlugin);

/** Runs database operations one after another so sign-in, sign-out and React's double effects cannot interleave. */
function enqueue<T>(operation: () => Promise<T>): Promise<T> {
  const run = queue.then(operation, operation);
  queue = run.catch(() => undefined);
  return run;
}

function factoryOf(env: DatabaseEnvironment): IDBFactory | undefined {
  return env.indexedDB ?? globalThis.indexedDB;
}

/** How the storage worker starts, or null to keep the storage in the page (tests on fake-indexeddb, or a fallback). */
function storageWorkerOf(env: DatabaseEnvironment): (() => WorkerLike) | null {
  if (env.inPage) return null;
  if (env.worker) return env.worker;
  return !env.indexedDB && typeof Worker !== 'undefined' ? startStorageWorker : null;
}

async function createStorage(env: DatabaseEnvironment): Promise<Storage> {
  // In a browser the IndexedDB work runs in a worker (decision 88); tests hand in fake-indexeddb instead.
  const worker = storageWorkerOf(env);
  const storage: Storage = worker
    ? workerStorage(worker)
    : ((await import('./dexie-storage')).dexieStorage(env) as Storage);
  if (!import.meta.env.DEV) return storage;
  // Development only: schema checks and validation; the import is dropped from production builds.
  devModeLoaded ??= import('rxdb/plugins/dev-mode').then(({ RxDBDevModePlugin, disableWarnings }) => {
    disableWarnings();
    addRxPlugin(RxDBDevModePlugin);
  });
  await devModeLoaded;
  const { wrappedValidateAjvStorage } = await import('rxdb/plugins/validate-ajv');
  return wrappedValidateAjvStorage({ storage });
}

function deleteIndexedDatabase(factory: IDBFactory, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = factory.deleteDatabase(name);
    request.onsuccess = () => resolve();
    request.onerror = () => reject(request.error ?? new Error(`Could not delete ${name}`));
    // Another tab still holds it open: the deletion completes when that tab closes its connection.
    request.onblocked = () => resolve();
  });
}

/** IndexedDB databases that belong to any user's local store. */
async function listUserIndexedDatabases(factory: IDBFactory): Promise<string[]> {
  if (typeof factory.databases !== 'function') return [];
  const infos = await factory.databases();
  return infos.map((info) => info.name ?? '').filter((name) => name.startsWith(DEXIE_PREFIX + NAME_PREFIX));
}

/** Deletes every user's IndexedDB data except the databases named in `keep`. */
async function deleteUserIndexedDatabases(
  factory: IDBFactory | undefined,
  keep: readonly string[] = [],
): Promise<void> {
  if (!factory) return;
  const names = await listUserIndexedDatabases(factory);
  const doomed = names.filter((name) => !keep.some((kept) => name.startsWith(`${DEXIE_PREFIX}${kept}--`)));
  await Promise.all(doomed.map((name) => deleteIndexedDatabase(factory, name)));
}

/** The users whose local store this browser holds, read from the stores' names (databaseNameFor). */
export async function listStoredUsers(env: DatabaseEnvironment = {}): Promise<string[]> {
  const factory = factoryOf(env);
  if (!factory) return [];
  const prefix = DEXIE_PREFIX + NAME_PREFIX;
  const users = new Set<string>();
  for (const name of await listUserIndexedDatabases(factory)) {
    const hex = name.slice(prefix.length).split('--')[0];
    if (!/^(?:[0-9a-f]{2})+$/.test(hex)) continue;
    const bytes = Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16));
    users.add(new TextDecoder().decode(bytes));
  }
  return [...users];
}

/**
 * Opens a user's store, other than the signed-in one, only to seal its unsent work (decision 114): the collections
 * that push, nothing else.
 */
export function openStoreForSealing(userId: string, env: DatabaseEnvironment = {}): Promise<UserDatabase> {
  const open = (at: DatabaseEnvironment) => createSyncedDatabase(databaseNameFor(userId), at, SYNCED_PUSHABLE);
  // Sealing is rare and short: when the worker fails in any way, the page does the work.
  return open(env).catch((error: unknown) => {
    console.warn('Sealing unsent work in the page: the storage worker failed', error);
    return open({ ...env, inPage: true });
  });
}

/**
 * Creates an RxDB database with every synced collection (tests use it to run several clients at once). Tests
 * may ask for only some collections: the free RxDB opens at most 13 collections per process (STACK-NOTES),
 * and a device has nine.
 */
export async function createSyncedDatabase(
  name: string,
  env: DatabaseEnvironment = {},
  only?: readonly (keyof typeof SYNCED_COLLECTIONS)[],
): Promise<UserDatabase> {
  const db = await createRxDatabase<UserDatabaseCollections>({
    name,
    storage: await createStorage(env),
    multiInstance: env.multiInstance ?? true,
    eventReduce: true,
  });
  try {
    const all = syncedCollections(mergeBasesOf(db), lostChangesOf(db).report);
    const wanted = only ? Object.fromEntries(only.map((key) => [key, all[key]])) : all;
    // One collection at a time, each in its own task: RxDB prepares every schema synchronously (tens of
    // milliseconds for all of them on a slow phone), and a first sign-in's feed is rendering meanwhile.
    for (const [key, creator] of Object.entries(wanted)) {
      // A subset is typed as the whole: only tests ask for one, and they touch only what they asked for.
      await db.addCollections({ [key]: creator } as unknown as typeof SYNCED_COLLECTIONS);
      await yieldToMain();
    }
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/**
 * Opens (or returns) the signed-in user's local database; data of any other user on this browser is wiped, except
 * the stores of `spare` (users whose unsent work could not be sealed, decision 114).
 */
export function openUserDatabase(
  userId: string,
  env: DatabaseEnvironment = {},
  spare: readonly string[] = [],
): Promise<UserDatabase> {
  return enqueue(async () => {
    const name = databaseNameFor(userId);
    if (current && current.name === name && !current.db.closed) return current.db;
    if (current) {
      await current.db.close();
      current = null;
    }
    await deleteUserIndexedDatabases(factoryOf(env), [name, ...spare.map(databaseNameFor)]);
    forgetLostChanges([name, ...spare.map(databaseNameFor)]);
    // Drafts are never kept for anyone else: unlike unsent work, another user could read them here.
    forgetPostDrafts([name]);
    const db = await createSyncedDatabase(name, env).catch((error: unknown) => {
      if (!isWorkerStopped(error)) throw error;
      // The storage worker did not start (its script failed to load, for one): the same database in the page
      // still works, only less smoothly during a first sync.
      console.warn('The local database runs in the page: its worker did not start', error);
      return createSyncedDatabase(name, { ...env, inPage: true });
    });
    current = { name, db, env };
    return db;
  });
}

/** The database opened for the signed-in user, if any. */
export function getUserDatabase(): UserDatabase | null {
  return current && !current.db.closed ? current.db : null;
}

/** Closes the local database and keeps its data (used by tests and on page unload). */
export function closeUserDatabase(): Promise<void> {
  return enqueue(async () => {
    if (!current) return;
    const { db } = current;
    current = null;
    await db.close();
  });
}

/**
 * Removes the local database on sign-out so nothing of the user stays in IndexedDB; the stores of
 * `spare` stay (users whose unsent work could not be sealed, decision 114).
 */
export function destroyUserDatabase(env: DatabaseEnvironment = {}, spare: readonly string[] = []): Promise<void> {
  return enqueue(async () => {
    const factory = factoryOf(current?.env.indexedDB ? current.env : env);
    try {
      if (current && !spare.map(databaseNameFor).includes(current.name)) {
        const { db } = current;
        current = null;
        await db.remove();
      }
    } finally {
      // db.remove() empties the Dexie tables but leaves the IndexedDB databases behind; delete them too, and
      // delete them even when it failed (its storage worker stopped, for one): nothing may stay after sign-out.
      await deleteUserIndexedDatabases(factory, spare.map(databaseNameFor));
    }
  });
}
