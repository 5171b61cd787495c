import { useEffect, useState } from 'react';
import type { LocalStore } from '../db/local-store-state';
import { useOnline } from './use-online';

/** offline: the device has no network; unreachable: it has, but the server does not answer (decision 116). */
export type Connection = 'offline' | 'unreachable' | 'online';

/** The device's way to the server: navigator.onLine first, then whether the sync's requests are answered. */
export function useConnection(store: LocalStore | null): Connection {
  const online = useOnline();
  const [reachable, setReachable] = useState<{ store: LocalStore; value: boolean } | null>(null);
  useEffect(() => {
    if (!store) return;
    const subscription = store.sync.reachable$.subscribe((value) => setReachable({ store, value }));
    return () => subscription.unsubscribe();
  }, [store]);
  if (!online) return 'offline';
  return reachable?.store === store && !reachable.value ? 'unreachable' : 'online';
}
