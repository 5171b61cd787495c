import { randomUUID } from 'node:crypto';
import { canDeleteComment } from '../../../schema/permissions';
import { POST_MESSAGES, type CommentView, type CreateCommentBody } from '../../../schema/posts';
import type { CommentDoc } from '../../../schema/sync';
import { inTransaction } from '../../db/client';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { conflict, forbidden, notFound } from '../../lib/errors';
import { boundWrittenAt } from '../../lib/written-at';
import { recordAudit, textFingerprint } from '../audit/audit.service';
import { keptMentions, notifyMentions, withdrawMentions } from '../mentions/mentions.service';
import { parseList, postAudienceOf, requirePost, toAuthor } from '../posts/posts.service';
import {
  findComment,
  findCommentWithAuthor,
  insertComment,
  listCommentsOfPost,
  listCommentsSince,
  markCommentDeleted,
  type CommentRow,
} from './comments.queries';

type CommentWithAuthor = NonNullable<Awaited<ReturnType<typeof findCommentWithAuthor>>>;

function toCommentView({ comment, author }: CommentWithAuthor): CommentView {
  const { role: _role, ...shown } = toAuthor(author && { ...author, role: null });
  return {
    id: comment.id,
    postId: comment.postId,
    content: comment.content,
    createdAt: new Date(comment.createdAt).toISOString(),
    writtenAt: new Date(comment.writtenAt).toISOString(),
    author: shown,
    mentions: parseList<string>(comment.mentions),
  };
}

async function loadCommentView(deps: AppDeps, id: string): Promise<CommentView> {
  const row = await findCommentWithAuthor(deps.db, id);
  return row && !row.comment.deleted ? toCommentView(row) : notFound(POST_MESSAGES.commentNotFound);
}

/** GET /api/posts/{id}/comments: oldest first, with authors. */
export async function listComments(deps: AppDeps, postId: string): Promise<CommentView[]> {
  await requirePost(deps, postId);
  return (await listCommentsOfPost(deps.db, postId)).map(toCommentView);
}

/**
 * Adds a comment by the signed-in user at the server's time and answers its id. Its written time is never before
 * the author could see the post: the post's arrival, or its own written time for the post's author (decision 119).
 * A client id makes a re-send return the same comment instead of a second one. Sync calls this directly: it sends
 * no view back.
 */
export async function writeComment(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
  body: CreateCommentBody,
): Promise<string> {
  // One transaction from the id check to the insert: the same item sent twice at once is stored once.
  return await inTransaction(deps, async (deps) => {
    if (body.id) {
      const existing = await findComment(deps.db, body.id);
      if (existing) {
        if (existing.authorId !== actor.id || existing.postId !== postId || existing.deleted) {
          conflict('A comment with this id already exists');
        }
        return body.id;
      }
    }
    const post = await requirePost(deps, postId);
    const id = body.id ?? randomUUID();
    const at = deps.now();
    const seen = post.authorId === actor.id ? post.writtenAt : post.createdAt;
    const mentions = await keptMentions(deps, body.mentions);
    await insertComment(deps.db, {
      id,
      postId,
      authorId: actor.id,
      content: body.content,
      createdAt: at,
      writtenAt: boundWrittenAt(body.writtenAt, seen, at),
      updatedAt: at,
      mentions: JSON.stringify(mentions),
      deleted: false,
    });
    deps.hub.notify('comments');
    // Only the comment's first arrival tells anyone: a re-send returned above (decision 144).
    const source = {
      postId,
      commentId: id,
      authorId: actor.id,
      authorFirstName: actor.firstName,
      audienceHouses: await postAudienceOf(deps, postId),
    };
    await notifyMentions(deps, source, mentions);
    return id;
  });
}

/** POST /api/posts/{id}/comments: writeComment, answering the comment with its author. */
export async function addComment(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
  body: CreateCommentBody,
): Promise<CommentView> {
  return await loadCommentView(deps, await writeComment(deps, actor, postId, body));
}

/**
 * Deletes a comment (a tombstone without its words): its author or a System Administrator only (docs/api-feed.md).
 * A delete by anyone but the author is audited with the comment's fingerprint (decision 126).
 */
export async function deleteComment(deps: AppDeps, actor: SessionUser, id: string, meta: RequestMeta): Promise<void> {
  const comment = await findComment(deps.db, id);
  if (!comment || comment.deleted) return notFound(POST_MESSAGES.commentNotFound);
  if (!canDeleteComment(actor, comment)) forbidden(POST_MESSAGES.cannotDeleteComment);
  const at = deps.now();
  await inTransaction(deps, async (deps) => {
    await markCommentDeleted(deps.db, id, at);
    if (comment.authorId !== actor.id) {
      const details = {
        authorId: comment.authorId,
        postId: comment.postId,
        before: { content: textFingerprint(comment.content) },
      };
      await recordAudit(deps.db, {
        actor,
        action: 'comment.delete',
        ip: meta.ip,
        target: { type: 'comment', id },
        details,
        at,
      });
    }
  });
  deps.hub.notify('comments');
  await withdrawMentions(deps, { commentId: id });
}

/** A comment as replication sends it; a tombstone carries no content. */
export function toCommentDoc(row: CommentRow): CommentDoc {
  return {
    id: row.id,
    postId: row.postId,
    authorId: row.authorId,
    content: row.deleted ? '' : row.content,
    createdAt: row.createdAt,
    writtenAt: row.writtenAt,
    updatedAt: row.updatedAt,
    mentions: row.deleted ? [] : parseList<string>(row.mentions),
    _deleted: row.deleted,
  };
}

export async function findCommentDoc(deps: AppDeps, id: string): Promise<CommentDoc | null> {
  const row = await findComment(deps.db, id);
  return row ? toCommentDoc(row) : null;
}

export async function listCommentDocsSince(deps: AppDeps, seq: number, id: string, limit: number) {
  return (await listCommentsSince(deps.db, seq, id, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: toCommentDoc(row),
  }));
}
