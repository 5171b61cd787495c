import { keptAudienceHouses, keptHouseTags, type PostCategory, type ReactionType } from '../../../schema/posts';
import { reactionId } from '../../../schema/sync';
import type { ReactionLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';

/**
 * Local writes of the feed. Each one marks the document pending (`localPending: true`, the spec's offline
 * item) and replication carries it to the server; times are set here for display and replaced by the
 * server's on sync.
 */

/**
 * Edits content, category and urgency (spec section 4) and an urgent post's audience (a missing audience
 * keeps the stored one); houses stay only on Residents Activities, the audience only on an urgent post.
 */
export async function editPost(
  db: UserDatabase,
  postId: string,
  changes: { content: string; category?: PostCategory; isUrgent: boolean; audienceHouses?: string[] },
): Promise<void> {
  const doc = await db.posts.findOne(postId).exec();
  if (!doc) throw new Error('Post not found');
  const category = changes.category ?? doc.category;
  await doc.incrementalPatch({
    content: changes.content.trim(),
    category,
    isUrgent: changes.isUrgent,
    houseTags: keptHouseTags(category, doc.houseTags),
    audienceHouses: keptAudienceHouses(changes.isUrgent, changes.audienceHouses ?? doc.audienceHouses),
    // Always after createdAt, even within its millisecond: an edited post must not look new (decision 65).
    updatedAt: Math.max(Date.now(), doc.updatedAt + 1),
    localPending: true,
  });
}

/** Deletes a post: a tombstone that replication pushes (the server removes its comments and reactions). */
export async function deletePost(db: UserDatabase, postId: string): Promise<void> {
  const doc = await db.posts.findOne(postId).exec();
  if (!doc) throw new Error('Post not found');
  await doc.incrementalModify((data) => ({ ...data, localPending: true, _deleted: true }));
}

/** Adds a comment with a client-made id, so a retry after a lost answer is stored once. */
export async function addComment(db: UserDatabase, postId: string, authorId: string, content: string): Promise<void> {
  const now = Date.now();
  await db.comments.insert({
    id: crypto.randomUUID(),
    postId,
    authorId,
    content: content.trim(),
    createdAt: now,
    updatedAt: now,
    localPending: true,
  });
}

export async function deleteComment(db: UserDatabase, commentId: string): Promise<void> {
  const doc = await db.comments.findOne(commentId).exec();
  if (!doc) throw new Error('Comment not found');
  await doc.incrementalModify((data) => ({ ...data, localPending: true, _deleted: true }));
}

/**
 * The reaction toggle of spec section 4 on the user's own document (id `${postId}:${userId}`): the same
 * type again removes it, another type replaces it, none yet inserts it (over an earlier tombstone too).
 */
export async function toggleReaction(
  db: UserDatabase,
  postId: string,
  userId: string,
  type: ReactionType,
  current: ReactionLocal | undefined,
): Promise<void> {
  const id = reactionId(postId, userId);
  const now = Date.now();
  const doc = current ? await db.reactions.findOne(id).exec() : null;
  if (doc && doc.type === type) {
    await doc.incrementalModify((data) => ({ ...data, localPending: true, _deleted: true }));
  } else if (doc) {
    await doc.incrementalPatch({ type, updatedAt: now, localPending: true });
  } else {
    await db.reactions.insert({ id, postId, userId, type, createdAt: now, updatedAt: now, localPending: true });
  }
}
