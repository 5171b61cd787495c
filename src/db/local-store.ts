import { firstValueFrom, type Subscription } from 'rxjs';
import { appStore } from '../lib/store';
import {
  destroyUserDatabase,
  getUserDatabase,
  listStoredUsers,
  openStoreForSealing,
  openUserDatabase,
  type UserDatabase,
} from './database';
import { databaseNameFor } from './database-name';
import { takePrefetchedPull } from './first-pull';
import { dropLeftConversations } from './left-conversations';
import { deliverKeptWork } from './kept-send';
import { countWaitingFiles, keptPublicKey, sealUnsentRows, sealWaitingFiles, waitingFilesUsers } from './kept-work';
import { forgetLostChanges } from './lost-changes-store';
import { countWipe, localStoreAtom, wipeCount, type LocalStore } from './local-store-state';
import { startSync } from './replication';
import { PENDING_FILES_DB, UPLOADS_CACHE } from '../../schema/offline';
import type { SyncCollection } from '../../schema/sync';

export { localStoreAtom, useLocalStore, type LocalStore } from './local-store-state';

let opening: Promise<LocalStore | null> | null = null;
/** The watch that removes the messages of conversations the user left, while the store runs. */
let dropping: Subscription | null = null;

/**
 * Opens the user's database and starts replicating it; calling again for the same user returns the same store.
 * Resolves with null, starting nothing, when the local store was wiped since `wipesBefore` was read (the user
 * signed out while it was on its way): the wipe removes the database once it has opened.
 */
export function startLocalStore(
  userId: string,
  onUnauthorized: (code: string | undefined) => void,
  wipesBefore = wipeCount(),
): Promise<LocalStore | null> {
  const existing = appStore.get(localStoreAtom);
  if (existing?.userId === userId) return Promise.resolve(existing);
  if (wipeCount() !== wipesBefore) return Promise.resolve(null);
  opening ??= (async () => {
    await stopLocalStore();
    // Another user's store left on this device: their unsent work is sealed for them before it is removed.
    const unsealed = await keepUnsentWork(userId);
    const db = await openUserDatabase(userId, {}, unsealed);
    if (wipeCount() !== wipesBefore) return null;
    // What this user kept at the end of an earlier session goes first (decision 114); the sign-in started sending it
    // already (decision 121), and this waits for that. The server's sealing key is fetched now, while online, so that
    // this session's end can seal its work even offline.
    void keptPublicKey();
    await deliverKeptWork(userId);
    if (wipeCount() !== wipesBefore) return null;
    // RxDB's collection type is generic per collection; replication only needs each one as a collection.
    const sync = startSync(db as unknown as Record<SyncCollection, never>, {
      onUnauthorized,
      // The feed's first pages, when the sign-in already asked for them (decision 97).
      takePrefetched: (path) => takePrefetchedPull(userId, path),
    });
    // A conversation the user left or was removed from leaves the device with its messages (decision 146).
    dropping = dropLeftConversations(db);
    const store = { userId, db, sync };
    // Kept work that could not go before (offline, a server fault) goes once the server is reachable again.
    sync.connected$.subscribe((connected) => {
      if (connected && appStore.get(localStoreAtom) === store) void deliverKeptWork(userId);
    });
    // Marks the page once the first sync is complete (the benches and journeys wait on it); in a tab that does not
    // replicate, once the leading tab's is (decision 115).
    void sync.initialSyncDone.then(() => {
      if (appStore.get(localStoreAtom) === store) document.documentElement.dataset.sync = 'ready';
    });
    // Screens read it with useAtomInTransition: they render again with it in short slices.
    appStore.set(localStoreAtom, store);
    return store;
  })().finally(() => {
    opening = null;
  });
  return opening;
}

/** Stops replication (pending items stay in the database until it is destroyed). */
export async function stopLocalStore(): Promise<void> {
  const store = appStore.get(localStoreAtom);
  appStore.set(localStoreAtom, null);
  dropping?.unsubscribe();
  dropping = null;
  if (typeof document !== 'undefined') delete document.documentElement.dataset.sync;
  await store?.sync.stop();
}

/**
 * The session is over (sign-out, inactivity, a dead session): stop syncing, seal what the user wrote and the server
 * has not confirmed (decision 114), then remove every other local trace of the user.
 */
export async function wipeLocalStore(): Promise<void> {
  countWipe();
  await stopLocalStore();
  forgetLostChanges();
  const unsealed = await keepUnsentWork();
  await destroyUserDatabase({}, unsealed);
  // Posts still waiting for their files (now sealed), and pictures kept for offline reading, belong to the user
  // too. Both are deleted by name, so they go even when the feature that wrote them was never loaded.
  if (unsealed.length === 0) await deleteIndexedDb(PENDING_FILES_DB);
  if (typeof caches !== 'undefined') await caches.delete(UPLOADS_CACHE);
}

/**
 * Seals the unsent work of every user whose store or waiting files this browser holds, but `except`. Answers the
 * users whose work could not be sealed (no server key was ever fetched, a storage failure): their stores are left
 * as they are rather than lose what they wrote.
 */
async function keepUnsentWork(except?: string): Promise<string[]> {
  const stored = await listStoredUsers();
  const users = new Set([...stored, ...(await waitingFilesUsers())]);
  users.delete(except ?? '');
  if (users.size === 0) return [];
  const publicKey = await keptPublicKey();
  if (!publicKey) {
    console.error('Unsent work cannot be sealed without the server key; the local store is kept');
    return [...users];
  }
  const unsealed: string[] = [];
  for (const userId of users) {
    try {
      const open = getUserDatabase();
      const db: UserDatabase | null =
        open?.name === databaseNameFor(userId)
          ? open
          : stored.includes(userId)
            ? await openStoreForSealing(userId)
            : null;
      if (db) await sealUnsentRows(db, userId, publicKey).finally(() => (db === open ? undefined : db.close()));
      await sealWaitingFiles(userId, publicKey);
    } catch (error) {
      console.error('Could not seal unsent work', error);
      unsealed.push(userId);
    }
  }
  return unsealed;
}

function deleteIndexedDb(name: string): Promise<void> {
  if (typeof indexedDB === 'undefined') return Promise.resolve();
  return new Promise((resolve) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  });
}

/** What the signed-in user wrote that the server has not confirmed: the banner's count, asked for once. */
export async function countUnsentItems(): Promise<number> {
  const store = appStore.get(localStoreAtom);
  if (!store) return 0;
  return (await firstValueFrom(store.sync.pending$)) + (await countWaitingFiles(store.userId));
}
