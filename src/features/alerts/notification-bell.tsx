import { useSetAtom } from 'jotai';
import { AlertTriangle, Bell } from 'lucide-react';
import { useMemo } from 'react';
import { combineLatest, map } from 'rxjs';
import type { CurrentUser } from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../../components/ui/dropdown-menu';
import type { PostLocal } from '../../db/collections';
import { useLocalStore } from '../../db/local-store-state';
import { api } from '../../lib/api';
import { CountBadge } from '../../components/ui/count-badge';
import { highlightRequestAtom } from '../../lib/highlight-state';
import { useAuthors } from '../../lib/use-authors';
import { useObservable } from '../../lib/use-observable';
import { formatRelativeTime } from './alert-list';
import './alerts.css';
import { useUnviewedCount } from './use-unviewed-count';

const NO_POSTS: PostLocal[] = [];

/**
 * The notification bell (docs/behaviour.md, "Notifications"): the badge is the server's unviewed count; it lists the
 * user's newest urgent alerts (at most 5); opening it marks those viewed and resets the badge from the answer;
 * choosing one scrolls to the post and highlights it.
 */
export function NotificationBell({ user }: { user: CurrentUser }) {
  const store = useLocalStore();
  const db = store?.db ?? null;
  const authors = useAuthors(store, user);
  const [count, setCount] = useUnviewedCount(db);
  const requestHighlight = useSetAtom(highlightRequestAtom);
  const posts$ = useMemo(
    () =>
      db
        ? combineLatest([
            db.acknowledgements.find({ selector: { userId: user.id } }).$,
            db.posts.find({ selector: { isUrgent: true } }).$,
          ]).pipe(
            map(([acks, posts]) => {
              const mine = new Set(acks.map((ack) => ack.postId));
              return posts
                .map((doc): PostLocal => doc._data)
                .filter((post) => mine.has(post.id))
                .sort((a, b) => b.createdAt - a.createdAt)
                .slice(0, LIMITS.bellMaxPosts);
            }),
          )
        : null,
    [db, user.id],
  );
  const posts = useObservable(posts$, NO_POSTS).value;

  const onOpenChange = (open: boolean) => {
    if (!open || posts.length === 0) return;
    setCount(0);
    api
      .post('/api/notifications/mark-viewed', { postIds: posts.map((post) => post.id) })
      .then(async (answer) => {
        const { CountSchema } = await import('../../../schema/common');
        setCount(CountSchema.parse(answer).count);
      })
      .catch(() => undefined);
  };

  return (
    <DropdownMenu onOpenChange={onOpenChange}>
      <DropdownMenuTrigger
        className="header-icon-button"
        aria-label={count > 0 ? `Notifications, ${count} unviewed` : 'Notifications'}
      >
        <span className="chat-button-icon">
          <Bell aria-hidden size={20} />
          <CountBadge count={count} className="count-badge-corner" />
        </span>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="bell-menu">
        <DropdownMenuLabel>Urgent Notifications</DropdownMenuLabel>
        <DropdownMenuSeparator />
        {posts.length === 0 ? (
          <p className="bell-empty muted">No urgent notifications</p>
        ) : (
          posts.map((post) => (
            <DropdownMenuItem
              key={post.id}
              className="bell-item"
              onSelect={() => requestHighlight({ postId: post.id, seq: Date.now() })}
            >
              <AlertTriangle aria-hidden size={16} className="bell-item-icon" />
              <span className="bell-item-text">
                <span className="bell-item-content">{post.content}</span>
                <span className="muted">
                  {authors(post.authorId).name} · {formatRelativeTime(post.writtenAt)}
                </span>
              </span>
            </DropdownMenuItem>
          ))
        )}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
