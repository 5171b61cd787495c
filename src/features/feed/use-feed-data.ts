import { useEffect, useMemo, useState } from 'react';
import { map } from 'rxjs';
import type { PostLocal } from '../../db/collections';
import { feedPreviewAtom, isNewDevice, type FeedPreview } from '../../db/first-pull';
import { useFirstSyncOver, type LocalStore } from '../../db/local-store-state';
import { appStore } from '../../lib/store';
import { useAtomInTransition } from '../../lib/use-atom-in-transition';
import { useObservable } from '../../lib/use-observable';
import { useOnline } from '../../lib/use-online';

const NO_POSTS: PostLocal[] = [];

/** How long the feed waits for the first sync before showing what it has (a server that keeps failing). */
const FIRST_SYNC_PATIENCE_MS = 15_000;

/** Every live post, newest first, as plain documents (reactive: the list follows the local database). */
export function usePosts(store: LocalStore | null): { posts: PostLocal[]; ready: boolean } {
  const posts$ = useMemo(
    () =>
      store?.db.posts
        .find({ sort: [{ createdAt: 'desc' }] })
        .$.pipe(map((docs) => docs.map((doc): PostLocal => doc._data))) ?? null,
    [store],
  );
  const { value, ready } = useObservable(posts$, NO_POSTS);
  return { posts: value, ready };
}

/**
 * A new device's first page of posts and staff directory, fetched before the local database could hold them
 * (decision 97): the signed-in user's own, kept until the first sync is over.
 */
export function useFeedPreview(store: LocalStore | null, userId: string): FeedPreview | null {
  const preview = useAtomInTransition(feedPreviewAtom);
  const mine = preview?.userId === userId ? preview : null;
  const hasPreview = mine !== null;
  useEffect(() => {
    if (!hasPreview || !store) return;
    let live = true;
    const drop = () => {
      if (live) appStore.set(feedPreviewAtom, null);
    };
    store.sync.initialSyncDone.then(drop, drop);
    return () => {
      live = false;
    };
  }, [hasPreview, store]);
  return mine;
}

/**
 * Whether the feed can show its posts instead of skeletons (docs/behaviour.md, "Feed"): once the local store
 * is open and it holds posts (the first sync fills newest first, so the first page is today's), or the
 * first sync has finished, or the device is offline, or the server has kept us waiting too long. A new
 * device's preview (decision 97) shows at once.
 */
export function useFeedReady(
  store: LocalStore | null,
  postsReady: boolean,
  postCount: number,
  previewing = false,
): boolean {
  const online = useOnline();
  const [settled, setSettled] = useState<LocalStore | null>(null);
  useEffect(() => {
    if (!store) return;
    let live = true;
    const done = () => {
      if (live) setSettled(store);
    };
    const timer = setTimeout(done, FIRST_SYNC_PATIENCE_MS);
    store.sync.initialSyncDone.then(done, done);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [store]);

  if (previewing) return true;
  if (!store || !postsReady) return false;
  return postCount > 0 || settled === store || !online;
}

/** Whether a collection's first sync is over on a new device; at once on a device that already held the store. */
function useCollectionKnown(store: LocalStore | null, collection: 'comments' | 'reactions'): boolean {
  const filling = store !== null && isNewDevice(store.userId);
  const synced = useFirstSyncOver(store, collection, filling);
  return store !== null && (!filling || synced);
}

/**
 * Whether the cards' comment counts can be trusted (decision 100): on a device that already held the user's store,
 * at once (offline too: they are the counts as of its last sync); on a new device, once the comments' first sync
 * is over. Until then a post without comments here may have some on their way, and its toggle says "Comments"
 * rather than a wrong "0 comments".
 */
export function useCommentCountsKnown(store: LocalStore | null): boolean {
  return useCollectionKnown(store, 'comments');
}

/**
 * Whether the user's own reaction documents are on the device (decision 129): until then the cards take the user's
 * reaction from the posts' lists, and the reaction buttons wait, so a count never drops by one and comes back.
 */
export function useOwnReactionsKnown(store: LocalStore | null): boolean {
  return useCollectionKnown(store, 'reactions');
}
