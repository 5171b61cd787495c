import { useAtomValue } from 'jotai';
import { RefreshCw, ServerOff, WifiOff } from 'lucide-react';
import { useMemo } from 'react';
import type { LocalStore } from '../db/local-store-state';
import { cx } from '../lib/cx';
import { useConnection } from '../lib/use-connection';
import { chatOpenAtom } from '../features/chat/chat-state';
import { useWaitingPosts } from '../features/feed/use-pending-uploads';
import { useObservable } from '../lib/use-observable';
import { useWaitingPhotos } from '../features/residents/use-pending-photos';

interface SyncBannerProps {
  store: LocalStore | null;
  userId: string;
  /** In the chat panel: the banner alone. Otherwise a strip under the header, not seen while the chat is open. */
  inChat?: boolean;
}

const TEXTS = {
  offline: { title: 'Working Offline', note: 'Your changes will sync when reconnected' },
  unreachable: {
    title: 'Server Unreachable',
    note: 'Your changes are kept on this device and will be sent when the server is back',
  },
  online: { title: 'Syncing Changes', note: 'Uploading offline changes...' },
} as const;

/**
 * The offline/sync banner, on every signed-in screen (decision 116). Pending items are the local
 * writes not yet confirmed by the server plus the posts whose files wait to upload and residents' new photos waiting
 * to be sent (decision 123). Offline: "Working Offline" with
 * the count or "Synced"; online but the server does not answer: "Server Unreachable", without a spinner; online
 * with pending items: "Syncing Changes"; online and in sync: nothing.
 */
export function SyncBanner({ store, userId, inChat = false }: SyncBannerProps) {
  const connection = useConnection(store);
  const chatOpen = useAtomValue(chatOpenAtom);
  const pending$ = useMemo(() => store?.sync.pending$ ?? null, [store]);
  const pending = useObservable(pending$, 0).value + useWaitingPosts(userId).length + useWaitingPhotos(userId).length;
  if (connection === 'online' && pending === 0) return null;
  const { title, note } = TEXTS[connection];
  const Icon = connection === 'offline' ? WifiOff : connection === 'unreachable' ? ServerOff : RefreshCw;
  const banner = (
    <div className={cx('sync-banner', `sync-banner-${connection}`)} role="status">
      <Icon aria-hidden size={18} className={connection === 'online' ? 'spin' : undefined} />
      <div className="sync-banner-text">
        <p className="sync-banner-title">
          {title}
          <span className="sync-banner-count">{pending > 0 ? `${pending} pending` : 'Synced'}</span>
        </p>
        <p className="sync-banner-note">{note}</p>
      </div>
    </div>
  );
  if (inChat) return banner;
  return (
    <section className={cx('sync-strip', chatOpen && 'sync-strip-covered')} aria-label="Sync status">
      {banner}
    </section>
  );
}
