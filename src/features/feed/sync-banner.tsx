import { RefreshCw, WifiOff } from 'lucide-react';
import { useMemo } from 'react';
import type { LocalStore } from '../../db/local-store-state';
import { cx } from '../../lib/cx';
import { useObservable } from './use-observable';
import { useOnline } from './use-online';

/**
 * The offline/sync banner of spec section 4. Pending items are the local writes not yet confirmed by the
 * server plus the posts whose files wait to upload. Offline: "Working Offline" with the count or "Synced";
 * online with pending items: "Syncing Changes"; online and in sync: nothing.
 */
export function SyncBanner({ store, waiting }: { store: LocalStore | null; waiting: number }) {
  const online = useOnline();
  const pending$ = useMemo(() => store?.sync.pending$ ?? null, [store]);
  const pending = useObservable(pending$, 0).value + waiting;
  if (online && pending === 0) return null;
  return (
    <div className={cx('sync-banner', online ? 'sync-banner-syncing' : 'sync-banner-offline')} role="status">
      {online ? <RefreshCw aria-hidden size={18} className="spin" /> : <WifiOff aria-hidden size={18} />}
      <div className="sync-banner-text">
        <p className="sync-banner-title">
          {online ? 'Syncing Changes' : 'Working Offline'}
          <span className="sync-banner-count">{pending > 0 ? `${pending} pending` : 'Synced'}</span>
        </p>
        <p className="sync-banner-note">
          {online ? 'Uploading offline changes...' : 'Your changes will sync when reconnected'}
        </p>
      </div>
    </div>
  );
}
