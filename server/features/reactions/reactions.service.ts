import { REACTION_TYPES, type ReactionDetails, type ReactionState, type ReactionType } from '../../../schema/posts';
import { reactionId, type ReactionDoc } from '../../../schema/sync';
import type { AppDeps, SessionUser } from '../../lib/context';
import { loadPostView, requirePost } from '../posts/posts.service';
import {
  findReaction,
  listUserReactionsSince,
  listReactionUsers,
  markReactionDeleted,
  upsertReaction,
  type ReactionRow,
} from './reactions.queries';

/**
 * Sets the signed-in user's reaction to a post: a type, or null to remove it. One reaction per user and post,
 * so two users never conflict; REST's toggle and sync both come through here.
 */
export async function setReaction(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
  type: ReactionType | null,
): Promise<void> {
  await requirePost(deps, postId);
  const id = reactionId(postId, actor.id);
  const current = await findReaction(deps.db, id);
  const live = current && !current.deleted ? current : undefined;
  const at = deps.now();
  if (type === null) {
    if (!live) return;
    await markReactionDeleted(deps.db, id, postId, at);
  } else {
    if (live?.type === type) return;
    await upsertReaction(deps.db, {
      id,
      postId,
      userId: actor.id,
      type,
      createdAt: live?.createdAt ?? at,
      updatedAt: at,
    });
  }
  // Everyone pulls the post (it carries the reactions); only this user pulls the reaction document.
  deps.hub.notify('posts');
  deps.hub.notify('reactions', [actor.id]);
}

/**
 * POST /api/posts/{id}/reactions: the same type again removes it, another type replaces it
 * (docs/behaviour.md, "Comments and reactions").
 */
export async function toggleReaction(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
  type: ReactionType,
): Promise<ReactionState> {
  await requirePost(deps, postId);
  const current = await findReaction(deps.db, reactionId(postId, actor.id));
  const same = current && !current.deleted && current.type === type;
  await setReaction(deps, actor, postId, same ? null : type);
  const { reactionCounts, userReaction } = await loadPostView(deps, postId, actor.id);
  return { reactionCounts, userReaction };
}

/** GET /api/posts/{id}/reactions: each chosen type with its people, in the reaction bar's order. */
export async function listReactionDetails(deps: AppDeps, postId: string): Promise<ReactionDetails> {
  await requirePost(deps, postId);
  const rows = await listReactionUsers(deps.db, postId);
  return REACTION_TYPES.map((type) => ({
    type,
    users: rows.filter((r) => r.type === type).map(({ firstName, lastName }) => ({ firstName, lastName })),
  })).filter((entry) => entry.users.length > 0);
}

/** A reaction as replication sends it. */
export function toReactionDoc(row: ReactionRow): ReactionDoc {
  return {
    id: row.id,
    postId: row.postId,
    // The user part of the id survives the account's deletion (user_id is then null).
    userId: row.userId ?? row.id.slice(row.postId.length + 1),
    type: row.type as ReactionType,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    _deleted: row.deleted,
  };
}

/** The user's own reaction document, or null: another user's is not theirs to see through sync (docs/sync.md). */
export async function findOwnReactionDoc(deps: AppDeps, id: string, userId: string): Promise<ReactionDoc | null> {
  const row = await findReaction(deps.db, id);
  return row && row.userId === userId ? toReactionDoc(row) : null;
}

/** The user's own reaction documents changed after a checkpoint; other people's reach clients on the posts. */
export async function listOwnReactionDocsSince(deps: AppDeps, userId: string, seq: number, id: string, limit: number) {
  return (await listUserReactionsSince(deps.db, userId, seq, id, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: toReactionDoc(row),
  }));
}
