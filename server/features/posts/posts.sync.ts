import { CreatePostBodySchema, UpdatePostBodySchema } from '../../../schema/posts';
import type { PostDoc } from '../../../schema/sync';
import { badRequest } from '../../lib/errors';
import { parseInput } from '../../lib/http';
import { sameJson } from '../../../schema/same-json';
import type { SyncHandler } from '../sync/sync.service';
import {
  deletePost,
  editPost,
  findPostDoc,
  listPostDocsBefore,
  listPostDocsSince,
  requiresConfirmation,
  writePost,
} from './posts.service';

/**
 * Posts replicate both ways. A new document is writePost (REST's createPost without the view it answers),
 * `_deleted` is deletePost, any other change is editPost: the author or an admin, the same validation as REST.
 * The author, times and counts are the server's; pictures and attachments are fixed once posted. A new post whose
 * `publishAt` is still ahead is scheduled: in no pull until published, its author's (or an admin's) later pushes of it
 * edit, move or cancel it (decisions 141 and 142). `mentions` go as with REST: a device's post from before them keeps
 * the stored ones (decision 144).
 */
export const postsSync: SyncHandler<PostDoc> = {
  pull: async (deps, _actor, seq, id, limit) => await listPostDocsSince(deps, seq, id, limit),
  sameForEveryone: true,
  pullNewest: (deps, _actor, until, before, limit) => listPostDocsBefore(deps, until, before, limit),
  findMaster: (deps, id, actor) => findPostDoc(deps, id, actor),
  mergesFields: true,
  async apply(deps, actor, doc, master, meta) {
    const { content, category, isUrgent, houseTags, audienceHouses, images, attachments, writtenAt, publishAt } =
      doc as Partial<PostDoc>;
    const { requiresConfirmation: confirmation, confirmBy, mentions } = doc as Partial<PostDoc>;
    if (!master) {
      if (doc._deleted) return; // written and removed while offline: nothing to keep
      await writePost(
        deps,
        actor,
        parseInput(CreatePostBodySchema, {
          id: doc.id,
          content,
          category,
          isUrgent,
          houseTags,
          audienceHouses,
          images,
          attachments,
          writtenAt,
          requiresConfirmation: confirmation,
          confirmBy,
          publishAt,
          mentions,
        }),
      );
      return;
    }
    if (master._deleted) badRequest('This post has been deleted');
    if (doc._deleted) return deletePost(deps, actor, doc.id, meta);
    if (!sameJson(images, master.images) || !sameJson(attachments, master.attachments)) {
      badRequest('Pictures and attachments cannot be changed after posting');
    }
    // Only an edit kept on a device from before posts carried requiresConfirmation comes without it; such a device
    // dropped the audience of a post that is not urgent, so the stored one stays unless it makes the post urgent
    // (decisions 136 and 137).
    const keepsAudience = confirmation === undefined && isUrgent !== true && (await requiresConfirmation(deps, doc.id));
    // A new time (null: now) moves a scheduled post; on a published one editPost refuses it (decision 142).
    const movedTo = publishAt === undefined || sameJson(publishAt, master.publishAt ?? null) ? undefined : publishAt;
    await editPost(
      deps,
      actor,
      doc.id,
      parseInput(UpdatePostBodySchema, {
        content,
        category,
        isUrgent,
        houseTags,
        audienceHouses: keepsAudience ? undefined : audienceHouses,
        requiresConfirmation: confirmation,
        confirmBy,
        mentions,
        publishAt: movedTo,
      }),
      meta,
    );
  },
};
