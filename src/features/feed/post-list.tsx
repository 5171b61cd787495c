import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import type { PostLocal } from '../../db/collections';
import { postDomId } from './post-card';

/** Where the list asks to be scrolled: a post id, and a number so choosing the same post again still scrolls. */
export interface ScrollTarget {
  postId: string;
  seq: number;
}

interface PostListProps {
  posts: readonly PostLocal[];
  renderPost: (post: PostLocal, index: number) => ReactNode;
  scrollTarget: ScrollTarget | null;
}

/** Room left above a post scrolled into view, for the sticky header. */
const HEADER_ROOM = 88;
const ESTIMATED_CARD_PX = 260;
/** Cards kept mounted beyond each edge of the screen: none while the feed first shows, more once the page is idle. */
const FIRST_OVERSCAN = 0;
/**
 * Where the list is taken to start until it is on the page: a little above where it starts on a phone, under the
 * header, the composer and the filters (about 400 px). The first render then mounts the two or three cards a phone
 * shows instead of the five that would fill the screen from its top; the list's real place follows at once.
 */
const FIRST_LIST_TOP = 320;
const OVERSCAN = 4;
/** The screen's size stands for the window's until the list is on the page (reading `screen` lays nothing out). */
const INITIAL_RECT =
  typeof screen === 'undefined' ? { width: 0, height: 0 } : { width: screen.width, height: screen.height };

/**
 * The feed, virtualised over the window's scroll (@tanstack/react-virtual): only the cards near the screen
 * are mounted, each measured as it renders (cards grow when comments open), so 10,000 posts scroll
 * smoothly on a phone. Marked up as an ARIA feed of articles.
 */
export function PostList({ posts, renderPost, scrollTarget }: PostListProps) {
  const listRef = useRef<HTMLDivElement>(null);
  // The list's distance from the top of the page; the composer and filters above it change size.
  const [scrollMargin, setScrollMargin] = useState(FIRST_LIST_TOP);
  useLayoutEffect(() => {
    const list = listRef.current;
    if (!list) return;
    const observer = new ResizeObserver(() => {
      setScrollMargin(Math.round(list.getBoundingClientRect().top + window.scrollY));
    });
    // Anything above the list resizing moves it; the body's size changes with it. Observing starts with a call.
    observer.observe(document.body);
    return () => observer.disconnect();
  }, []);

  // The feed's first render mounts the cards on the screen and one more; the rest of the margin comes in a later
  // task once the page is idle, so showing the feed is not one long task (decision 96).
  const [overscan, setOverscan] = useState(FIRST_OVERSCAN);
  useEffect(() => {
    const widen = () => setOverscan(OVERSCAN);
    if (typeof requestIdleCallback === 'undefined') {
      const timer = setTimeout(widen, 500);
      return () => clearTimeout(timer);
    }
    const idle = requestIdleCallback(widen, { timeout: 2000 });
    return () => cancelIdleCallback(idle);
  }, []);

  const virtualizer = useWindowVirtualizer({
    // The first render assumes the screen's size and no scroll, so it already holds the cards on the screen; the
    // window's own size and scroll are read once the list is on the page. Reading them while rendering made the
    // browser lay out the page just before the commit laid it out again (tens of milliseconds on a slow phone).
    initialRect: INITIAL_RECT,
    initialOffset: 0,
    count: posts.length,
    estimateSize: () => ESTIMATED_CARD_PX,
    overscan,
    scrollMargin,
    scrollPaddingStart: HEADER_ROOM,
    getItemKey: (index) => posts[index]?.id ?? index,
    // Scrolling and measuring re-render the list as ordinary updates, not inside flushSync (which rendered the
    // whole list again within the commit that measured it).
    useFlushSync: false,
  });

  // The search palette chose a post: bring it into view once it is in the list, then focus it.
  const handled = useRef<number | null>(null);
  useEffect(() => {
    if (!scrollTarget || handled.current === scrollTarget.seq) return;
    const index = posts.findIndex((post) => post.id === scrollTarget.postId);
    if (index < 0) return;
    handled.current = scrollTarget.seq;
    virtualizer.scrollToIndex(index, { align: 'start' });
    // Measuring the cards on the way can move the target; settle, then focus without another jump.
    const timer = setTimeout(() => {
      virtualizer.scrollToIndex(index, { align: 'start' });
      document.getElementById(postDomId(scrollTarget.postId))?.focus({ preventScroll: true });
    }, 150);
    return () => clearTimeout(timer);
  }, [scrollTarget, posts, virtualizer]);

  const items = virtualizer.getVirtualItems();
  return (
    <div
      ref={listRef}
      role="feed"
      aria-label="Posts"
      className="post-list"
      style={{ height: virtualizer.getTotalSize(), position: 'relative' }}
    >
      {items.map((item) => (
        <div
          key={item.key}
          data-index={item.index}
          ref={virtualizer.measureElement}
          className="post-list-row"
          style={{ transform: `translateY(${item.start - scrollMargin}px)` }}
        >
          {renderPost(posts[item.index], item.index)}
        </div>
      ))}
    </div>
  );
}
