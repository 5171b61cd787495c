import { CloudUpload, MessageCircle, Send, Trash } from 'lucide-react';
import { useId, useMemo, useRef, useState, type FormEvent } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { canDeleteComment } from '../../../schema/permissions';
import { MENTIONS_MAX } from '../../../schema/mention-rules';
import { COMMENT_CONTENT_MAX } from '../../../schema/post-rules';
import { useMentionCandidates, useMentionField } from '../../components/mention-field';
import { EmojiButton } from '../../components/emoji/emoji-button';
import { UserAvatar } from '../../components/ui/avatar';
import { WrittenTime } from '../../components/written-time';
import { Button } from '../../components/ui/button';
import { Label } from '../../components/ui/label';
import type { CommentLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { useLocalStore } from '../../db/local-store-state';
import { mentionNamesOf, mentionsInText } from '../../lib/mentions';
import { toast } from '../../lib/toast';
import { addComment, deleteComment } from './feed-actions';
import { PostText } from '../../components/post-text';
import type { AuthorLookup } from '../../lib/use-authors';
import { useCommentCount, usePostComments } from './use-post-queries';

interface PostCommentsProps {
  db: UserDatabase | null;
  postId: string;
  user: CurrentUser;
  authors: AuthorLookup;
  /** Rendered in the card's footer row, beside the reactions. */
  expanded: boolean;
  onToggle: () => void;
}

/**
 * The toggle's words: "{n} comments" (docs/behaviour.md, "Comments and reactions"), or "Comments" while the number is
 * not known: without the database (a new device's preview, decision 97), or none here yet while the comments' first
 * sync is under way (decision 100), when "0 comments" could be wrong.
 */
export function commentsLabel(count: number | null, countKnown: boolean): string {
  if (count === null || (count === 0 && !countKnown)) return 'Comments';
  return count === 1 ? '1 comment' : `${count} comments`;
}

/**
 * "{n} comments", the toggle; the list below loads only while expanded (docs/behaviour.md, "Comments and reactions").
 */
export function CommentsToggle({
  db,
  postId,
  expanded,
  onToggle,
  controls,
  countKnown,
}: Pick<PostCommentsProps, 'db' | 'postId' | 'expanded' | 'onToggle'> & { controls: string; countKnown: boolean }) {
  const count = useCommentCount(db, postId);
  const label = commentsLabel(db ? count : null, countKnown);
  return (
    <Button
      variant="ghost"
      size="sm"
      aria-expanded={expanded}
      aria-controls={controls}
      disabled={!db}
      onClick={onToggle}
    >
      <MessageCircle aria-hidden size={16} />
      {label}
    </Button>
  );
}

function CommentItem({
  db,
  comment,
  user,
  authors,
}: {
  db: UserDatabase | null;
  comment: CommentLocal;
  user: CurrentUser;
  authors: AuthorLookup;
}) {
  const author = authors(comment.authorId);
  const mentionNames = useMemo(
    () => mentionNamesOf(comment.mentions, (id) => authors(id).name),
    [comment.mentions, authors],
  );
  const remove = async () => {
    if (!db) return;
    try {
      await deleteComment(db, comment.id);
      toast({ title: 'Comment deleted' });
    } catch (error) {
      console.error('Could not delete the comment', error);
      toast({ title: 'Error', description: 'Failed to delete comment. Please try again.', variant: 'destructive' });
    }
  };
  return (
    <li className="comment">
      <UserAvatar user={author} size={32} />
      <div className="comment-body">
        <div className="comment-head">
          <span className="comment-author">{author.name}</span>
          <WrittenTime
            className="comment-time"
            writtenAt={comment.writtenAt}
            arrivedAt={comment.createdAt}
            pending={comment.localPending}
            dated
          />
          {comment.localPending ? (
            <span className="pending-marker" title="Pending sync">
              <CloudUpload aria-hidden size={12} />
              Pending sync
            </span>
          ) : null}
        </div>
        <PostText text={comment.content} className="comment-text" mentionNames={mentionNames} />
      </div>
      {canDeleteComment(user, comment) ? (
        <Button
          variant="ghost"
          size="icon"
          className="comment-delete"
          aria-label={`Delete comment by ${author.name}`}
          onClick={() => void remove()}
        >
          <Trash aria-hidden size={16} />
        </Button>
      ) : null}
    </li>
  );
}

/**
 * The expanded comments of a post: the list, oldest first, and the add form
 * (docs/behaviour.md, "Comments and reactions").
 */
export function CommentsPanel({
  db,
  postId,
  user,
  authors,
  id,
}: Omit<PostCommentsProps, 'expanded' | 'onToggle'> & { id: string }) {
  const inputId = useId();
  const { comments, ready } = usePostComments(db, postId, true);
  const [draft, setDraft] = useState('');
  const [mentions, setMentions] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  const store = useLocalStore();
  const candidates = useMentionCandidates(store, user);
  const mention = useMentionField({
    listId: `${inputId}-mentions`,
    field,
    value: draft,
    onValueChange: setDraft,
    candidates,
    mentions,
    onMentionsChange: setMentions,
  });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const content = draft.trim();
    if (!content || !db || busy) return;
    setBusy(true);
    try {
      // A name taken out of the text again mentions nobody (decision 144).
      const kept = mentionsInText(mentions, content, (id) => authors(id).name, MENTIONS_MAX);
      await addComment(db, postId, user.id, content, kept);
      setDraft('');
      setMentions([]);
    } catch (error) {
      console.error('Could not add the comment', error);
      toast({ title: 'Error', description: 'Failed to add comment. Please try again.', variant: 'destructive' });
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="comments" id={id}>
      {ready && comments.length === 0 ? <p className="comments-empty">No comments yet.</p> : null}
      {comments.length > 0 ? (
        <ul className="comment-list" aria-label="Comments">
          {comments.map((comment) => (
            <CommentItem key={comment.id} db={db} comment={comment} user={user} authors={authors} />
          ))}
        </ul>
      ) : null}
      <form className="comment-form" onSubmit={(event) => void submit(event)}>
        <UserAvatar user={user} size={32} />
        <Label htmlFor={inputId} className="visually-hidden">
          Write a comment
        </Label>
        <input
          ref={field}
          id={inputId}
          className="input comment-input"
          placeholder="Write a comment..."
          value={draft}
          maxLength={COMMENT_CONTENT_MAX}
          {...mention.fieldProps}
        />
        {mention.suggestions}
        <EmojiButton field={field} onInsert={setDraft} disabled={busy} />
        <Button type="submit" size="icon" aria-label="Add comment" disabled={!draft.trim() || busy || !db}>
          <Send aria-hidden size={16} />
        </Button>
      </form>
    </div>
  );
}
