import { z } from 'zod';
import { CreateCommentBodySchema } from '../../../schema/posts';
import type { CommentDoc } from '../../../schema/sync';
import { badRequest } from '../../lib/errors';
import { parseInput } from '../../lib/http';
import type { SyncHandler } from '../sync/sync.service';
import { deleteComment, findCommentDoc, listCommentDocsSince, writeComment } from './comments.service';

const PostIdSchema = z.string({ message: 'postId is required' }).min(1, 'postId is required').max(100);

/** Comments are created once and never edited; a delete (author or System Administrator) wins. */
export const commentsSync: SyncHandler<CommentDoc> = {
  pull: async (deps, _actor, seq, id, limit) => await listCommentDocsSince(deps, seq, id, limit),
  sameForEveryone: true,
  findMaster: (deps, id) => findCommentDoc(deps, id),
  async apply(deps, actor, doc, master, meta) {
    const { postId, content, writtenAt, mentions } = doc as Partial<CommentDoc>;
    if (!master) {
      if (doc._deleted) return;
      await writeComment(
        deps,
        actor,
        parseInput(PostIdSchema, postId),
        parseInput(CreateCommentBodySchema, { id: doc.id, content, writtenAt, mentions }),
      );
      return;
    }
    if (master._deleted) badRequest('This comment has been deleted');
    if (doc._deleted) return deleteComment(deps, actor, doc.id, meta);
    badRequest('Comments cannot be edited');
  },
};
