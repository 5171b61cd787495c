import { keptAudienceHouses, keptHouseTags, type PostCategory, type ReactionType } from '../../../schema/post-rules';
import { reactionId } from '../../../schema/sync-protocol';
import { sameJson } from '../../../schema/same-json';
import type { PostLocal, ReactionLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';

/**
 * Local writes of the feed. Each one marks the document pending (`localPending: true`, an offline item of
 * docs/behaviour.md, "Offline") and replication carries it to the server; times are set here for display and replaced by the
 * server's on sync.
 */

/** The post as the edit form showed it when it opened. */
export type ShownPost = Pick<
  PostLocal,
  'content' | 'isUrgent' | 'audienceHouses' | 'requiresConfirmation' | 'confirmBy'
>;

/** What the edit form asks to write; a missing field keeps what the post holds. */
export interface PostChanges {
  content: string;
  category?: PostCategory;
  isUrgent: boolean;
  audienceHouses?: string[];
  /** Admins only (decision 136); with it, `confirmBy` (null: no due date). */
  requiresConfirmation?: boolean;
  confirmBy?: string | null;
}

/** A field the user left as the form showed it keeps what the post holds now (a colleague's change meanwhile). */
function chosen<T>(changed: T | undefined, shown: T | undefined, now: T, hasShown: boolean): T {
  return changed === undefined || (hasShown && sameJson(changed, shown)) ? now : changed;
}

/**
 * Edits content, category and urgency (docs/behaviour.md, "Posts and categories"), whether confirmation is required
 * and the audience (a missing one keeps the stored one); houses stay only on Residents Activities, the audience only
 * on a post that is urgent or requires confirmation (decision 137). Only what the user changed is written, onto the post as it is now: a field still as the form showed it
 * (`shown`) keeps what it holds now, and a missing category keeps the current one. So saving new words does not undo a
 * colleague's move to another category, or an author's edit, that arrived while the form was open (posts merge field by
 * field, docs/sync.md); the chaos test caught the category being written back so.
 */
export async function editPost(
  db: UserDatabase,
  postId: string,
  changes: PostChanges,
  shown?: ShownPost,
): Promise<void> {
  const doc = await db.posts.findOne(postId).exec();
  if (!doc) throw new Error('Post not found');
  const content = changes.content.trim();
  await doc.incrementalModify((now) => {
    const category = changes.category ?? now.category;
    const isUrgent = chosen(changes.isUrgent, shown?.isUrgent, now.isUrgent, Boolean(shown));
    const audience = chosen(changes.audienceHouses, shown?.audienceHouses, now.audienceHouses, Boolean(shown));
    const confirmation = confirmationOf(changes, shown, now);
    return {
      ...now,
      content: shown && content === shown.content ? now.content : content,
      category,
      isUrgent,
      houseTags: keptHouseTags(category, now.houseTags),
      audienceHouses: keptAudienceHouses(isUrgent || confirmation.requiresConfirmation === true, audience),
      ...confirmation,
      // Always after createdAt, even within its millisecond: an edited post must not look new (decision 65).
      updatedAt: Math.max(Date.now(), now.updatedAt + 1),
      localPending: true,
    };
  });
}

/**
 * Whether confirmation is required and by when, after an edit: what the user changed, else what the post holds. A
 * post kept from before version 5 may hold neither: nothing is written then unless the user changed it (decision 137).
 */
function confirmationOf(
  changes: PostChanges,
  shown: ShownPost | undefined,
  now: PostLocal,
): Pick<PostLocal, 'requiresConfirmation' | 'confirmBy'> {
  const has = Boolean(shown);
  const requires = chosen(changes.requiresConfirmation, shown?.requiresConfirmation, now.requiresConfirmation, has);
  if (requires === undefined) return {};
  const confirmBy = chosen(changes.confirmBy, shown?.confirmBy, now.confirmBy, has);
  return { requiresConfirmation: requires, confirmBy: requires ? (confirmBy ?? null) : null };
}

/** Deletes a post: a tombstone that replication pushes (the server removes its comments and reactions). */
export async function deletePost(db: UserDatabase, postId: string): Promise<void> {
  const doc = await db.posts.findOne(postId).exec();
  if (!doc) throw new Error('Post not found');
  await doc.incrementalModify((data) => ({ ...data, localPending: true, _deleted: true }));
}

/**
 * Adds a comment with a client-made id, so a retry after a lost answer is stored once, and those it mentions are told
 * once (decision 144).
 */
export async function addComment(
  db: UserDatabase,
  postId: string,
  authorId: string,
  content: string,
  mentions: readonly string[] = [],
): Promise<void> {
  const now = Date.now();
  await db.comments.insert({
    id: crypto.randomUUID(),
    postId,
    authorId,
    content: content.trim(),
    createdAt: now,
    writtenAt: now,
    updatedAt: now,
    mentions: [...mentions],
    localPending: true,
  });
}

export async function deleteComment(db: UserDatabase, commentId: string): Promise<void> {
  const doc = await db.comments.findOne(commentId).exec();
  if (!doc) throw new Error('Comment not found');
  await doc.incrementalModify((data) => ({ ...data, localPending: true, _deleted: true }));
}

/**
 * The reaction toggle (docs/behaviour.md, "Comments and reactions") on the user's own document (id
 * `${postId}:${userId}`): the same type as shown (`current`, what the user sees) removes it, another type replaces it,
 * none yet inserts it (over an earlier tombstone too). The choice is the user's, made on what they saw; it is applied
 * to the document as it is stored now, which a sync may have changed since: the chaos test saw an insert refused
 * because a pulled copy of the same document had been stored between the read and the write.
 */
export async function toggleReaction(
  db: UserDatabase,
  postId: string,
  userId: string,
  type: ReactionType,
  current: ReactionLocal | undefined,
): Promise<void> {
  const id = reactionId(postId, userId);
  const removes = current?.type === type;
  for (let attempt = 1; ; attempt += 1) {
    const now = Date.now();
    const doc = await db.reactions.findOne(id).exec();
    if (doc) {
      await doc.incrementalModify((data) =>
        removes
          ? { ...data, localPending: true, _deleted: true }
          : { ...data, type, updatedAt: now, localPending: true },
      );
      return;
    }
    if (removes) return; // already gone
    try {
      await db.reactions.insert({ id, postId, userId, type, createdAt: now, updatedAt: now, localPending: true });
      return;
    } catch (error) {
      // Stored meanwhile by a pull: apply the choice to that copy.
      if (attempt > 1 || (error as { code?: string }).code !== 'CONFLICT') throw error;
    }
  }
}
