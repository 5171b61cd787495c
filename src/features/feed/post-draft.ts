import { keptAudienceHouses, keptHouseTags, type PostCategory } from '../../../schema/post-rules';
import type { Attachment } from '../../../schema/posts';
import type { UploadView } from '../../../schema/uploads';
import type { PostLocal } from '../../db/collections';

/** What the composer collects, before any file is uploaded. */
export interface PostDraft {
  content: string;
  category: PostCategory;
  isUrgent: boolean;
  houseTags: string[];
  /** Urgent posts and posts requiring confirmation: the houses addressed; empty means all staff. */
  audienceHouses?: string[];
  /** Admins only: the audience must confirm they have read it (decision 136). */
  requiresConfirmation?: boolean;
  /** YYYY-MM-DD: when confirmations are due; only with requiresConfirmation. */
  confirmBy?: string | null;
  /** ISO 8601: when the post is to be published; missing or null: at once (decision 141). */
  publishAt?: string | null;
  /** User ids and `house:<name>` the text mentions (decision 144); missing: none. */
  mentions?: string[];
}

/** An upload as a post's attachment: the fields the server stores (schema/posts AttachmentSchema). */
export function toAttachment(upload: UploadView): Attachment {
  return {
    id: upload.id,
    url: upload.url,
    originalName: upload.originalName,
    fileType: upload.fileType,
    fileSize: upload.fileSize,
  };
}

/**
 * The local document of a new post (pending until the server has it). The server decides what is a
 * picture (by content), so its answer sorts uploads into images and attachments. authorId and the times
 * are the server's on sync; set here so the post shows at once.
 */
export function buildPostDoc(
  id: string,
  authorId: string,
  draft: PostDraft,
  uploads: readonly UploadView[],
  now = Date.now(),
): PostLocal {
  const requiresConfirmation = draft.requiresConfirmation ?? false;
  return {
    id,
    authorId,
    content: draft.content.trim(),
    category: draft.category,
    isUrgent: draft.isUrgent,
    houseTags: keptHouseTags(draft.category, draft.houseTags),
    audienceHouses: keptAudienceHouses(draft.isUrgent || requiresConfirmation, draft.audienceHouses ?? []),
    requiresConfirmation,
    confirmBy: requiresConfirmation ? (draft.confirmBy ?? null) : null,
    images: uploads.filter((u) => u.kind === 'image').map((u) => u.url),
    attachments: uploads.filter((u) => u.kind === 'file').map(toAttachment),
    createdAt: now,
    writtenAt: now,
    updatedAt: now,
    editedBy: null,
    mentions: draft.mentions ?? [],
    // Only on a scheduled post: the feed then shows it under "Scheduled" until it is published (decision 141).
    ...(draft.publishAt ? { publishAt: draft.publishAt } : {}),
    localPending: true,
  };
}
