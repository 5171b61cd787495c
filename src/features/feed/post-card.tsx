import { CloudUpload, House, Pencil, Trash, TriangleExclamationPoint } from 'lucide-react';
import { AccountTypeBadge } from '../../components/account-type-badge';
import { useSetAtom } from 'jotai';
import { memo, useId, useMemo, useState, type ComponentType } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { canEditPost, canRequireConfirmation, canSeeAlertReport } from '../../../schema/permissions';
import { categoryLabel } from '../../../schema/post-rules';
import { roleLabel } from '../../../schema/role-rules';
import { UserAvatar } from '../../components/ui/avatar';
import { WrittenTime } from '../../components/written-time';
import { Badge } from '../../components/ui/badge';
import { Button } from '../../components/ui/button';
import type { PostLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { cx } from '../../lib/cx';
import { POST_TEXT_TIMING } from '../../lib/when-presented';
import { DeletePostDialog } from './delete-post-dialog';
import { editingPostAtom } from './edit-post-state';
import { PostAttachments } from './post-attachments';
import { CommentsPanel, CommentsToggle } from './post-comments';
import { PostImages } from './post-images';
import { PostText } from '../../components/post-text';
import { ReactionBar } from './reaction-bar';
import type { AuthorLookup } from '../../lib/use-authors';
import { mentionNamesOf } from '../../lib/mentions';

export interface PostCardProps {
  db: UserDatabase | null;
  post: PostLocal;
  user: CurrentUser;
  authors: AuthorLookup;
  highlighted?: boolean;
  /** Whether a count of no comments is true yet (decision 100); false while the comments' first sync runs. */
  commentCountsKnown?: boolean;
  /** Whether the user's own reactions are on the device (decision 129); false while their first sync runs. */
  ownReactionsKnown?: boolean;
  /** Position in the list, for screen readers' "article 3 of 120". */
  index?: number;
  total?: number;
  /** The urgent post's acknowledgement report button, given by the screen that composes the feed and the alerts. */
  AlertReport?: ComponentType<{ postId: string }>;
  /** A post's read-and-confirm state for the viewer, and its report for admins, given as the alert report is. */
  Confirmation?: ComponentType<{ db: UserDatabase | null; post: PostLocal; user: CurrentUser }>;
  ConfirmationReport?: ComponentType<{ postId: string }>;
}

/** DOM id of a post's card, for the search palette's scroll and focus. */
export const postDomId = (postId: string) => `post-${postId}`;

/** One post card (docs/behaviour.md, "Posts and categories"). */
export const PostCard = memo(function PostCard({
  db,
  post,
  user,
  authors,
  highlighted,
  index,
  total,
  commentCountsKnown = true,
  ownReactionsKnown = true,
  AlertReport,
  Confirmation,
  ConfirmationReport,
}: PostCardProps) {
  const id = useId();
  return (
    <article
      id={postDomId(post.id)}
      tabIndex={-1}
      className={cx('card', 'post-card', post.isUrgent && 'post-card-urgent', highlighted && 'post-card-highlight')}
      aria-labelledby={`${id}-author`}
      aria-describedby={`${id}-meta`}
      aria-posinset={index === undefined ? undefined : index + 1}
      aria-setsize={total}
    >
      <PostCardBody
        id={id}
        db={db}
        post={post}
        user={user}
        authors={authors}
        commentCountsKnown={commentCountsKnown}
        ownReactionsKnown={ownReactionsKnown}
        AlertReport={AlertReport}
        Confirmation={Confirmation}
        ConfirmationReport={ConfirmationReport}
      />
    </article>
  );
});

type PostCardBodyProps = Pick<
  PostCardProps,
  | 'db'
  | 'post'
  | 'user'
  | 'authors'
  | 'commentCountsKnown'
  | 'ownReactionsKnown'
  | 'AlertReport'
  | 'Confirmation'
  | 'ConfirmationReport'
> & {
  id: string;
};

/**
 * What the card holds. Its own memo: the card's place in the list and the highlight change its `<article>` only,
 * so a first sync adding posts (every card's "of N" changes) does not render every card's content again.
 */
const PostCardBody = memo(function PostCardBody({
  id,
  db,
  post,
  user,
  authors,
  commentCountsKnown = true,
  ownReactionsKnown = true,
  AlertReport,
  Confirmation,
  ConfirmationReport,
}: PostCardBodyProps) {
  const [expanded, setExpanded] = useState(false);
  const editPost = useSetAtom(editingPostAtom);
  const [deleting, setDeleting] = useState(false);
  const author = authors(post.authorId);
  const mentionNames = useMemo(() => mentionNamesOf(post.mentions, (id) => authors(id).name), [post.mentions, authors]);
  const mayEdit = canEditPost(user, post);

  return (
    <>
      {post.isUrgent ? (
        <div className="urgent-banner">
          <TriangleExclamationPoint aria-hidden size={16} />
          URGENT POST
        </div>
      ) : null}
      <header className="post-head">
        <UserAvatar user={author} size={44} />
        <div className="post-byline">
          <h3 className="post-author" id={`${id}-author`}>
            {author.name}
            <AccountTypeBadge type={author.type} />
          </h3>
          <div className="post-meta" id={`${id}-meta`}>
            {author.role ? <span className="post-role">{roleLabel(author.role)}</span> : null}
            <Badge tone="brand">{categoryLabel(post.category)}</Badge>
            <WrittenTime
              className="post-time"
              writtenAt={post.writtenAt}
              arrivedAt={post.createdAt}
              pending={post.localPending}
              dated
            />
            {/* Someone other than the author changed it: the card says who (decision 126). */}
            {post.editedBy ? <span className="post-edited">Edited by {authors(post.editedBy).name}</span> : null}
            {post.localPending ? (
              <span className="pending-marker" title="Waiting to reach the server">
                <CloudUpload aria-hidden size={12} />
                Pending sync
              </span>
            ) : null}
          </div>
        </div>
        {mayEdit && db ? (
          <div className="post-tools">
            <Button variant="ghost" size="icon" aria-label="Edit post" onClick={() => editPost(post)}>
              <Pencil aria-hidden size={16} />
            </Button>
            <Button variant="ghost" size="icon" aria-label="Delete post" onClick={() => setDeleting(true)}>
              <Trash aria-hidden size={16} />
            </Button>
          </div>
        ) : null}
      </header>

      <PostText text={post.content} timing={POST_TEXT_TIMING} fold mentionNames={mentionNames} />

      {post.houseTags.length > 0 ? (
        <ul className="post-houses" aria-label="Houses">
          {post.houseTags.map((house) => (
            <li key={house}>
              <Badge tone="info">
                <House aria-hidden size={12} />
                {house}
              </Badge>
            </li>
          ))}
        </ul>
      ) : null}

      {AlertReport && post.isUrgent && !post.localPending && canSeeAlertReport(user) ? (
        <AlertReport postId={post.id} />
      ) : null}
      {ConfirmationReport && post.requiresConfirmation && !post.localPending && canRequireConfirmation(user) ? (
        <ConfirmationReport postId={post.id} />
      ) : null}
      {Confirmation && post.requiresConfirmation ? <Confirmation db={db} post={post} user={user} /> : null}

      <PostImages images={post.images} authorName={author.name} />
      <PostAttachments attachments={post.attachments} />

      <footer className="post-foot">
        <ReactionBar
          db={db}
          postId={post.id}
          reactions={post.reactions}
          userId={user.id}
          authors={authors}
          ownKnown={ownReactionsKnown}
        />
        <CommentsToggle
          db={db}
          postId={post.id}
          expanded={expanded}
          onToggle={() => setExpanded((open) => !open)}
          controls={`${id}-comments`}
          // A post still waiting to reach the server can have no one else's comments yet.
          countKnown={commentCountsKnown || post.localPending}
        />
      </footer>
      {expanded ? <CommentsPanel id={`${id}-comments`} db={db} postId={post.id} user={user} authors={authors} /> : null}

      {/* Mounted only while open: closed, a card's dialog still costs the feed's first render its root and portal
          (decision 101). The edit dialog is the feed's (EditPostHost), so it outlives a card deleted meanwhile. */}
      {mayEdit && db && deleting ? <DeletePostDialog db={db} postId={post.id} open onOpenChange={setDeleting} /> : null}
    </>
  );
});
