import { useEffect, useMemo, useState } from 'react';
import { map } from 'rxjs';
import type { CurrentUser } from '../../../schema/auth';
import { DELETED_AUTHOR } from '../../../schema/post-rules';
import { displayName } from '../../../schema/format';
import type { Role } from '../../../schema/role-rules';
import type { DirectoryUserLocal, PostLocal } from '../../db/collections';
import { feedPreviewAtom, isNewDevice, type FeedPreview } from '../../db/first-pull';
import type { LocalStore } from '../../db/local-store-state';
import { appStore } from '../../lib/store';
import { useAtomInTransition } from '../../lib/use-atom-in-transition';
import { useObservable } from './use-observable';
import { useOnline } from '../../lib/use-online';

/** How an author is shown: from the staff directory, or "Deleted user" when unknown (decision 9). */
export interface AuthorView {
  id: string | null;
  firstName: string;
  lastName: string;
  role: Role | null;
  profileImageUrl: string | null;
  name: string;
}

export const DELETED_AUTHOR_VIEW: AuthorView = {
  id: null,
  ...DELETED_AUTHOR,
  role: null,
  profileImageUrl: null,
  name: displayName(DELETED_AUTHOR),
};

export type AuthorLookup = (authorId: string | null) => AuthorView;

const NO_POSTS: PostLocal[] = [];
const NO_USERS: DirectoryUserLocal[] = [];

/** How long the feed waits for the first sync before showing what it has (a server that keeps failing). */
const FIRST_SYNC_PATIENCE_MS = 15_000;

function toAuthorView(user: Pick<DirectoryUserLocal, 'id' | 'firstName' | 'lastName' | 'role' | 'profileImageUrl'>) {
  return {
    id: user.id,
    firstName: user.firstName,
    lastName: user.lastName,
    role: user.role,
    profileImageUrl: user.profileImageUrl,
    name: displayName(user),
  };
}

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
 * Authors by id from the staff directory (or the preview's, until the directory is stored); the signed-in user is
 * known even before the directory arrives.
 */
export function useAuthors(
  store: LocalStore | null,
  me: CurrentUser,
  previewUsers: readonly DirectoryUserLocal[] = NO_USERS,
): AuthorLookup {
  const users$ = useMemo(
    () => store?.db.users.find().$.pipe(map((docs) => docs.map((doc): DirectoryUserLocal => doc._data))) ?? null,
    [store],
  );
  const { value: stored } = useObservable(users$, NO_USERS);
  const users = stored.length > 0 ? stored : previewUsers;
  return useMemo(() => {
    const byId = new Map(users.map((user) => [user.id, toAuthorView(user)]));
    if (!byId.has(me.id)) byId.set(me.id, toAuthorView(me));
    return (authorId) => (authorId ? byId.get(authorId) : undefined) ?? DELETED_AUTHOR_VIEW;
  }, [users, me]);
}

/**
 * Whether the feed can show its posts instead of skeletons (spec section 2, Loading): once the local store
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
function useFirstSyncOver(store: LocalStore | null, collection: 'comments' | 'reactions'): boolean {
  const [synced, setSynced] = useState<LocalStore | null>(null);
  const filling = store !== null && isNewDevice(store.userId);
  useEffect(() => {
    if (!store || !filling) return;
    let live = true;
    const done = () => {
      if (live) setSynced(store);
    };
    store.sync.collectionSynced(collection).then(done, done);
    return () => {
      live = false;
    };
  }, [store, filling, collection]);
  return store !== null && (!filling || synced === store);
}

/**
 * Whether the cards' comment counts can be trusted (decision 100): on a device that already held the user's store,
 * at once (offline too: they are the counts as of its last sync); on a new device, once the comments' first sync
 * is over. Until then a post without comments here may have some on their way, and its toggle says "Comments"
 * rather than a wrong "0 comments".
 */
export function useCommentCountsKnown(store: LocalStore | null): boolean {
  return useFirstSyncOver(store, 'comments');
}

/**
 * Whether the user's own reaction documents are on the device (decision 129): until then the cards take the user's
 * reaction from the posts' lists, and the reaction buttons wait, so a count never drops by one and comes back.
 */
export function useOwnReactionsKnown(store: LocalStore | null): boolean {
  return useFirstSyncOver(store, 'reactions');
}
