import { z } from 'zod';
import { ReactionTypeSchema } from '../../../schema/posts';
import { reactionId, type ReactionDoc } from '../../../schema/sync';
import { forbidden } from '../../lib/errors';
import { parseInput } from '../../lib/http';
import type { SyncHandler } from '../sync/sync.service';
import { findOwnReactionDoc, listOwnReactionDocsSince, setReaction } from './reactions.service';

const PostIdSchema = z.string({ message: 'postId is required' }).min(1, 'postId is required').max(100);

/**
 * A reaction document is one user's choice on one post (id `${postId}:${userId}`): only that user writes it,
 * so the last push wins; `_deleted` removes it. Each user pulls only their own: everyone's reactions reach
 * clients on the post documents (docs/sync.md, decision 74).
 */
export const reactionsSync: SyncHandler<ReactionDoc> = {
  pull: async (deps, actor, seq, id, limit) => await listOwnReactionDocsSince(deps, actor.id, seq, id, limit),
  findMaster: (deps, id, actor) => findOwnReactionDoc(deps, id, actor.id),
  lastPushWins: true,
  async apply(deps, actor, doc) {
    const { postId, type } = doc as Partial<ReactionDoc>;
    const post = parseInput(PostIdSchema, postId);
    if (doc.id !== reactionId(post, actor.id)) forbidden('You can only change your own reaction');
    await setReaction(deps, actor, post, doc._deleted ? null : parseInput(ReactionTypeSchema, type));
  },
};
