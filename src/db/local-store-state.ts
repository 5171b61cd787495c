import { atom } from 'jotai';
import { useEffect, useState } from 'react';
import type { SyncCollection } from '../../schema/sync-protocol';
import { useAtomInTransition } from '../lib/use-atom-in-transition';
import type { UserDatabase } from './database';
import type { SyncController } from './replication';

/** The signed-in user's local database and its replication, or null while signed out or opening. */
export interface LocalStore {
  userId: string;
  db: UserDatabase;
  sync: SyncController;
}

/**
 * Kept apart from the code that opens the store (local-store.ts) so that screens reading it do not need the
 * database code to render: a new device's feed paints its preview before that code has loaded (decision 97).
 */
export const localStoreAtom = atom<LocalStore | null>(null);

/** The local store for components; null until it is open. */
export function useLocalStore(): LocalStore | null {
  return useAtomInTransition(localStoreAtom);
}

/**
 * Whether the store's first sync is over (ended or failed): of every collection (`'all'`), or of one. False while
 * there is no store or `enabled` is false.
 */
export function useFirstSyncOver(store: LocalStore | null, of: SyncCollection | 'all', enabled = true): boolean {
  const [over, setOver] = useState<LocalStore | null>(null);
  useEffect(() => {
    if (!store || !enabled) return;
    let live = true;
    const done = () => {
      if (live) setOver(store);
    };
    (of === 'all' ? store.sync.initialSyncDone : store.sync.collectionSynced(of)).then(done, done);
    return () => {
      live = false;
    };
  }, [store, of, enabled]);
  return store !== null && over === store;
}

let wipes = 0;

/**
 * How many times this page has wiped the local store (sign-out, inactivity, a dead session). A store asked for
 * before a wipe and opened after it is not started: the wipe removes it (src/db/local-store.ts).
 */
export function wipeCount(): number {
  return wipes;
}

/** A wipe begins: stores asked for until now are not to start. */
export function countWipe(): void {
  wipes += 1;
}
