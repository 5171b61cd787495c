import { useSetAtom } from 'jotai';
import { AlertTriangle, AtSign, Bell } from 'lucide-react';
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
import type { AcknowledgementLocal, PostLocal } from '../../db/collections';
import { useLocalStore } from '../../db/local-store-state';
import { markMentionsViewed } from '../../lib/acknowledge';
import { api } from '../../lib/api';
import { CountBadge } from '../../components/ui/count-badge';
import { chatRequestAtom } from '../../lib/chat-request';
import { highlightRequestAtom } from '../../lib/highlight-state';
import { useAuthors } from '../../lib/use-authors';
import { useObservable } from '../../lib/use-observable';
import { formatRelativeTime, mentionNotices } from './alert-list';
import './alerts.css';
import { useUnviewedCount } from './use-unviewed-count';

const NO_POSTS: PostLocal[] = [];
const NO_ACKS: AcknowledgementLocal[] = [];

/**
 * The notification bell (docs/behaviour.md, "Notifications"): the badge is the server's unviewed count; it lists the
 * user's newest urgent alerts (at most 5) and the newest times someone mentioned them (at most 5, decision 144);
 * opening it marks those viewed and resets the badge from the answer; choosing one scrolls to the post and
 * highlights it.
 */
export function NotificationBell({ user }: { user: CurrentUser }) {
  const store = useLocalStore();
  const db = store?.db ?? null;
  const authors = useAuthors(store, user);
  const [count, setCount] = useUnviewedCount(db);
  const requestHighlight = useSetAtom(highlightRequestAtom);
  const requestChat = useSetAtom(chatRequestAtom);
  const acks$ = useMemo(
    () =>
      db?.acknowledgements
        .find({ selector: { userId: user.id } })
        .$.pipe(map((docs) => docs.map((doc): AcknowledgementLocal => doc._data))) ?? null,
    [db, user.id],
  );
  const acks = useObservable(acks$, NO_ACKS).value;
  const mentions = useMemo(() => mentionNotices(acks, (id) => authors(id).name, LIMITS.bellMaxPosts), [acks, authors]);
  const posts$ = useMemo(
    () =>
      db
        ? combineLatest([
            db.acknowledgements.find({ selector: { userId: user.id } }).$,
            db.posts.find({ selector: { isUrgent: true } }).$,
          ]).pipe(
            map(([acks, posts]) => {
              const mine = new Set(acks.filter((ack) => !ack.mention).map((ack) => ack.postId));
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
    if (!open || (posts.length === 0 && mentions.length === 0)) return;
    setCount(0);
    if (db) {
      const unseen = mentions.filter((mention) => !mention.viewed).map((mention) => mention.id);
      void markMentionsViewed(db, unseen).catch((error: unknown) => console.error('Could not mark mentions', error));
    }
    if (posts.length === 0) return;
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
        {mentions.length > 0 ? (
          <>
            <DropdownMenuSeparator />
            <DropdownMenuLabel>Mentions</DropdownMenuLabel>
            {mentions.map((mention) => (
              <DropdownMenuItem
                key={mention.id}
                className="bell-item"
                onSelect={() =>
                  mention.conversationId
                    ? requestChat({ conversationId: mention.conversationId, seq: Date.now() })
                    : requestHighlight({ postId: mention.postId, seq: Date.now() })
                }
              >
                <AtSign aria-hidden size={16} className="bell-item-icon" />
                <span className="bell-item-text">
                  <span className="bell-item-content">{mention.text}</span>
                  <span className="muted">
                    {mention.conversationId ? 'In a message · ' : mention.commentId ? 'In a comment · ' : ''}
                    {formatRelativeTime(mention.createdAt)}
                  </span>
                </span>
              </DropdownMenuItem>
            ))}
          </>
        ) : null}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
