import { useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { CurrentUser } from '../../schema/auth';
import { LIMITS } from '../../schema/constants';
import { CopyrightFooter } from '../components/copyright-footer';
import { previewPainted } from '../db/first-pull';
import { useLocalStore } from '../db/local-store-state';
import { useMediaQuery } from '../lib/use-media-query';
import { POST_TEXT_TIMING, whenPresented } from '../lib/when-presented';
import { chatOpenAtom } from '../features/chat/chat-state';
import { chatRequestAtom } from '../lib/chat-request';
import { PushPrompt } from '../features/push/push-prompt';
import { BackToTop } from '../features/feed/back-to-top';
import { DeletedPostsNotice } from '../features/feed/deleted-posts-notice';
import { EditPostHost } from '../features/feed/edit-post-dialog';
import { highlightRequestAtom } from '../lib/highlight-state';
import { FeedFiltersBar } from '../features/feed/feed-filters';
import { FeedSidebar } from './feed-sidebar';
import { FeedEmpty, FeedSkeleton } from '../features/feed/feed-states';
import { filterPosts, isSearchActive, NO_FILTERS, type FeedFilters } from '../features/feed/filter-posts';
import { PostCard } from '../features/feed/post-card';
import { PostComposer } from '../features/feed/post-composer';
import { PostList, type ScrollTarget } from '../features/feed/post-list';
import { SearchPalette } from '../features/feed/search-palette';
import { splitScheduled } from '../features/feed/scheduled-posts';
import { ScheduledSection } from '../features/feed/scheduled-section';
import {
  useCommentCountsKnown,
  useOwnReactionsKnown,
  useFeedPreview,
  useFeedReady,
  usePosts,
} from '../features/feed/use-feed-data';
import { useAuthors } from '../lib/use-authors';
import { AlertReportButton } from '../features/alerts/alert-report-dialog';
import { ConfirmationReportButton } from '../features/confirmations/confirmation-report-dialog';
import { PostConfirmation } from '../features/confirmations/post-confirmation';
import { useWaitingPosts } from '../features/feed/use-pending-uploads';
import { WaitingPostCard } from '../features/feed/waiting-post-card';
import '../features/feed/feed.css';
import { AppHeader } from './app-header';

/** Ctrl+K or Cmd+K opens the search palette (docs/behaviour.md, "Feed"). */
function useSearchShortcut(open: () => void): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        open();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [open]);
}

/** Which post is highlighted after the palette chose it; it fades after 3 s (docs/behaviour.md, "Feed"). */
function useHighlight(): [string | null, (postId: string) => void] {
  const [highlight, setHighlight] = useState<{ postId: string; seq: number } | null>(null);
  useEffect(() => {
    if (!highlight) return;
    const timer = setTimeout(() => setHighlight(null), LIMITS.highlightMs);
    return () => clearTimeout(timer);
  }, [highlight]);
  const start = useCallback((postId: string) => setHighlight({ postId, seq: Date.now() }), []);
  return [highlight?.postId ?? null, start];
}

/** How long `?highlightPost=` waits before scrolling, so the feed has rendered (1 s; docs/behaviour.md, "Feed"). */
const LINK_SCROLL_DELAY_MS = LIMITS.highlightLinkDelayMs;

/**
 * `?openChat=true` opens the chat and `?highlightPost={id}` scrolls to a post after 1 s and highlights it
 * (docs/behaviour.md, "Notifications"); both are taken off the address once read.
 */
function useLinkTargets(choosePost: (postId: string) => void): void {
  const [params, setParams] = useSearchParams();
  const openChat = useSetAtom(chatOpenAtom);
  const choose = useRef(choosePost);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => {
    choose.current = choosePost;
  });
  const wantsChat = params.get('openChat') === 'true';
  const postId = params.get('highlightPost');
  useEffect(() => {
    if (!wantsChat && !postId) return;
    if (wantsChat) openChat(true);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete('openChat');
        next.delete('highlightPost');
        return next;
      },
      { replace: true },
    );
    // Not cleared when the parameters go (that re-runs this effect), only on leaving the screen.
    if (postId) timer.current = setTimeout(() => choose.current(postId), LINK_SCROLL_DELAY_MS);
  }, [wantsChat, postId, openChat, setParams]);
  useEffect(() => () => clearTimeout(timer.current), []);
}

/**
 * A click on a push notification while the app is open: the service worker focuses this window and posts
 * NOTIFICATION_CLICK (docs/behaviour.md, "Notifications"); a chat opens the chat, an urgent post is scrolled to and
 * highlighted.
 */
function useNotificationClicks(choose: { current: (postId: string) => void }): void {
  const openChat = useSetAtom(chatOpenAtom);
  const requestChat = useSetAtom(chatRequestAtom);
  useEffect(() => {
    const container = 'serviceWorker' in navigator ? navigator.serviceWorker : null;
    if (!container) return;
    const onMessage = (event: MessageEvent) => {
      // The service worker's message (sw/notification-target.ts); the same targets as its targetUrl.
      const message = event.data as {
        type?: string;
        data?: { type?: string; postId?: string; conversationId?: string };
      } | null;
      if (message?.type !== 'NOTIFICATION_CLICK') return;
      if (message.data?.type === 'chat') openChat(true);
      // A mention in a chat message opens its conversation (decision 150).
      else if (message.data?.type === 'mention' && message.data.conversationId)
        requestChat({ conversationId: message.data.conversationId, seq: Date.now() });
      else if (message.data?.postId) choose.current(message.data.postId);
    };
    container.addEventListener('message', onMessage);
    return () => container.removeEventListener('message', onMessage);
  }, [openChat, requestChat, choose]);
}

/**
 * Tells the local database, waiting to open (decision 103), once the preview's cards are on the screen: presented,
 * not only committed (decision 112), so that the database's code loads after what the user is waiting to see.
 */
function usePreviewPainted(previewing: boolean, userId: string): void {
  useEffect(() => {
    if (!previewing) return;
    return whenPresented(POST_TEXT_TIMING, () => previewPainted(userId));
  }, [previewing, userId]);
}

/**
 * Where the feed's sidebar shows (feed.css); below it the sidebar is not rendered at all, rather than rendered
 * and hidden: its cards and dialogs cost a phone's first render for nothing (the menu offers the same).
 */
const SIDEBAR_MEDIA = '(min-width: 1024px)';

/** Signed-in "/": the home feed (docs/behaviour.md, "Feed"), read from and written to the local database. */
export function HomeScreen({ user }: { user: CurrentUser }) {
  const store = useLocalStore();
  const db = store?.db ?? null;
  const { posts: stored, ready: postsReady } = usePosts(store);
  // A new device shows the first page it fetched, read-only, until the database holds posts (decision 97).
  const preview = useFeedPreview(store, user.id);
  const previewing = stored.length === 0 && preview !== null;
  usePreviewPainted(previewing, user.id);
  // The user's own scheduled posts wait in their own section, out of the feed, until published (decision 141).
  const { published: storedPublished, scheduled } = useMemo(() => splitScheduled(stored, user.id), [stored, user.id]);
  const posts = previewing ? preview.posts : storedPublished;
  const authors = useAuthors(store, user, preview?.users);
  const ready = useFeedReady(store, postsReady, posts.length, previewing);
  const wide = useMediaQuery(SIDEBAR_MEDIA);
  const commentCountsKnown = useCommentCountsKnown(store);
  const ownReactionsKnown = useOwnReactionsKnown(store);
  const waiting = useWaitingPosts(user.id);

  const [filters, setFilters] = useState<FeedFilters>(NO_FILTERS);
  // The date filters count from the moment they were chosen.
  const [now, setNow] = useState(() => Date.now());
  const changeFilters = useCallback((next: FeedFilters) => {
    setFilters(next);
    setNow(Date.now());
  }, []);
  const deferred = useDeferredValue(filters);
  const visible = useMemo(
    () => filterPosts(posts, deferred, { now, authorName: (authorId) => authors(authorId).name }),
    [posts, deferred, now, authors],
  );

  const [searchOpen, setSearchOpen] = useState(false);
  const openSearch = useCallback(() => setSearchOpen(true), []);
  useSearchShortcut(openSearch);
  const [highlighted, highlight] = useHighlight();
  const [scrollTarget, setScrollTarget] = useState<ScrollTarget | null>(null);

  const choosePost = (postId: string) => {
    // A post hidden by the filters is brought back by clearing them.
    if (!visible.some((post) => post.id === postId)) changeFilters(NO_FILTERS);
    setScrollTarget({ postId, seq: Date.now() });
    highlight(postId);
  };
  useLinkTargets(choosePost);
  // The bell and notification clicks ask for a post from outside the feed.
  const highlightRequest = useAtomValue(highlightRequestAtom);
  const chooseRef = useRef(choosePost);
  useEffect(() => {
    chooseRef.current = choosePost;
  });
  useEffect(() => {
    if (highlightRequest) chooseRef.current(highlightRequest.postId);
  }, [highlightRequest]);
  useNotificationClicks(chooseRef);

  const renderPost = useCallback(
    (post: (typeof visible)[number], index: number) => (
      <PostCard
        db={previewing ? null : db}
        post={post}
        user={user}
        authors={authors}
        highlighted={post.id === highlighted}
        index={index}
        total={visible.length}
        commentCountsKnown={commentCountsKnown}
        ownReactionsKnown={ownReactionsKnown}
        AlertReport={AlertReportButton}
        Confirmation={PostConfirmation}
        ConfirmationReport={ConfirmationReportButton}
      />
    ),
    [db, previewing, user, authors, highlighted, visible.length, commentCountsKnown, ownReactionsKnown],
  );

  return (
    <div className="app-page feed-page">
      <AppHeader user={user} onOpenSearch={openSearch} />
      <div className="feed-layout">
        <main className="feed-main" aria-label="Home feed">
          <h1 className="visually-hidden">Home Feed</h1>
          {db ? <DeletedPostsNotice databaseName={db.name} /> : null}
          <PostComposer db={db} user={user} />
          <FeedFiltersBar filters={filters} onChange={changeFilters} />
          {previewing ? null : <ScheduledSection db={db} user={user} posts={scheduled} />}
          {waiting.length > 0 ? (
            <section className="waiting-list" aria-label="Waiting to upload">
              {waiting.map((post) => (
                <WaitingPostCard key={post.id} post={post} user={user} />
              ))}
            </section>
          ) : null}
          {!ready ? (
            <FeedSkeleton />
          ) : visible.length === 0 ? (
            <FeedEmpty searching={isSearchActive(deferred)} />
          ) : (
            <PostList posts={visible} renderPost={renderPost} scrollTarget={scrollTarget} />
          )}
        </main>
        {wide ? <FeedSidebar user={user} /> : null}
      </div>
      <CopyrightFooter />
      <BackToTop />
      <EditPostHost db={previewing ? null : db} user={user} />
      <PushPrompt user={user} />
      <SearchPalette
        open={searchOpen}
        onOpenChange={setSearchOpen}
        posts={posts}
        authors={authors}
        onChoose={choosePost}
      />
    </div>
  );
}
