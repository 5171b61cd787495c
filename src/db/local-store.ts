import { appStore } from '../lib/store';
import { destroyUserDatabase, openUserDatabase } from './database';
import { takePrefetchedPull } from './first-pull';
import { countWipe, localStoreAtom, wipeCount, type LocalStore } from './local-store-state';
import { startSync } from './replication';
import { PENDING_FILES_DB, UPLOADS_CACHE } from '../../schema/offline';
import type { SyncCollection } from '../../schema/sync';

export { localStoreAtom, useLocalStore, type LocalStore } from './local-store-state';

let opening: Promise<LocalStore | null> | null = null;

/**
 * Opens the user's database and starts replicating it; calling again for the same user returns the same store.
 * Resolves with null, starting nothing, when the local store was wiped since `wipesBefore` was read (the user
 * signed out while it was on its way): the wipe removes the database once it has opened.
 */
export function startLocalStore(
  userId: string,
  onUnauthorized: () => void,
  wipesBefore = wipeCount(),
): Promise<LocalStore | null> {
  const existing = appStore.get(localStoreAtom);
  if (existing?.userId === userId) return Promise.resolve(existing);
  if (wipeCount() !== wipesBefore) return Promise.resolve(null);
  opening ??= (async () => {
    await stopLocalStore();
    const db = await openUserDatabase(userId);
    if (wipeCount() !== wipesBefore) return null;
    // RxDB's collection type is generic per collection; replication only needs each one as a collection.
    const sync = startSync(db as unknown as Record<SyncCollection, never>, {
      onUnauthorized,
      // The feed's first pages, when the sign-in already asked for them (decision 97).
      takePrefetched: (path) => takePrefetchedPull(userId, path),
    });
    const store = { userId, db, sync };
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
  if (typeof document !== 'undefined') delete document.documentElement.dataset.sync;
  await store?.sync.stop();
}

/** Sign-out and inactivity logout: stop syncing, then remove every local trace of the user. */
export async function wipeLocalStore(): Promise<void> {
  countWipe();
  await stopLocalStore();
  await destroyUserDatabase();
  // Posts still waiting for their files, and pictures kept for offline reading, belong to the user too. Both
  // are deleted by name, so they go even when the feature that wrote them was never loaded in this session.
  await deleteIndexedDb(PENDING_FILES_DB);
  if (typeof caches !== 'undefined') await caches.delete(UPLOADS_CACHE);
}

function deleteIndexedDb(name: string): Promise<void> {
  if (typeof indexedDB === 'undefined') return Promise.resolve();
  return new Promise((resolve) => {
    const request = indexedDB.deleteDatabase(name);
    request.onsuccess = request.onerror = request.onblocked = () => resolve();
  });
}
