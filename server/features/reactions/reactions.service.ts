import { REACTION_TYPES, type ReactionDetails, type ReactionState, type ReactionType } from '../../../schema/posts';
import { reactionId, type ReactionDoc } from '../../../schema/sync';
import type { AppDeps, SessionUser } from '../../lib/context';
import { loadPostView, requirePost } from '../posts/posts.service';
import {
  findReaction,
  listReactionsSince,
  listReactionUsers,
  markReactionDeleted,
  upsertReaction,
  type ReactionRow,
} from './reactions.queries';

/**
 * Sets the signed-in user's reaction to a post: a type, or null to remove it. One reaction per user and post,
 * so two users never conflict; REST's toggle and sync both come through here.
 */
export function setReaction(deps: AppDeps, actor: SessionUser, postId: string, type: ReactionType | null): void {
  requirePost(deps, postId);
  const id = reactionId(postId, actor.id);
  const current = findReaction(deps.db, id);
  const live = current && !current.deleted ? current : undefined;
  const at = deps.now();
  if (type === null) {
    if (!live) return;
    markReactionDeleted(deps.db, id, at);
  } else {
    if (live?.type === type) return;
    upsertReaction(deps.db, { id, postId, userId: actor.id, type, createdAt: live?.createdAt ?? at, updatedAt: at });
  }
  deps.hub.notify('reactions');
}

/** POST /api/posts/{id}/reactions: the same type again removes it, another type replaces it (spec section 4). */
export function toggleReaction(deps: AppDeps, actor: SessionUser, postId: string, type: ReactionType): ReactionState {
  requirePost(deps, postId);
  const current = findReaction(deps.db, reactionId(postId, actor.id));
  const same = current && !current.deleted && current.type === type;
  setReaction(deps, actor, postId, same ? null : type);
  const { reactionCounts, userReaction } = loadPostView(deps, postId, actor.id);
  return { reactionCounts, userReaction };
}

/** GET /api/posts/{id}/reactions: each chosen type with its people, in the reaction bar's order. */
export function listReactionDetails(deps: AppDeps, postId: string): ReactionDetails {
  requirePost(deps, postId);
  const rows = listReactionUsers(deps.db, postId);
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

export function findReactionDoc(deps: AppDeps, id: string): ReactionDoc | null {
  const row = findReaction(deps.db, id);
  return row ? toReactionDoc(row) : null;
}

export function listReactionDocsSince(deps: AppDeps, seq: number, id: string, limit: number) {
  return listReactionsSince(deps.db, seq, id, limit).map((row) => ({ seq: row.serverSeq, doc: toReactionDoc(row) }));
}
