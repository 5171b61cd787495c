import { LOCAL_DATABASE_PREFIX } from '../../schema/offline';

/** storage-dexie keeps one IndexedDB database per collection, named `rxdb-dexie-{db}--{version}--{collection}`. */
export const DEXIE_PREFIX = 'rxdb-dexie-';

/**
 * RxDB names must match /^[a-z][_$a-z0-9-]*$/, so the user id is written as hex after a fixed prefix. Kept apart
 * from the database code so the first screen can ask whether a user's store exists without loading RxDB.
 */
export function databaseNameFor(userId: string): string {
  const hex = Array.from(new TextEncoder().encode(userId), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return LOCAL_DATABASE_PREFIX + hex;
}

/**
 * Whether this browser holds the user's local store. Without the listing API (an old browser), assume it does:
 * the answer only decides whether work that a store makes needless is done.
 */
export async function holdsUserDatabase(
  userId: string,
  factory: IDBFactory | undefined,
  listing: Promise<IDBDatabaseInfo[]> | null = null,
): Promise<boolean> {
  if (!factory) return false;
  if (typeof factory.databases !== 'function') return true;
  const prefix = `${DEXIE_PREFIX}${databaseNameFor(userId)}--`;
  return (await (listing ?? factory.databases())).some((info) => info.name?.startsWith(prefix));
}

/**
 * The browser's list of databases, asked for as the app starts (main.tsx) so that it is known by the time the server
 * says who is signed in: on a slow phone the listing took up to 140 ms. Null without the listing API.
 */
export function listDatabases(
  factory: IDBFactory | undefined = globalThis.indexedDB,
): Promise<IDBDatabaseInfo[]> | null {
  return factory && typeof factory.databases === 'function' ? factory.databases() : null;
}
