import { z } from 'zod';
import { LIMITS } from './constants';
import { ClientIdSchema, WrittenAtSchema } from './common';
import { ConfirmBySchema, RequiresConfirmationSchema } from './confirmations';
import { MentionsSchema } from './mentions';
import {
  COMMENT_CONTENT_MAX,
  DEFAULT_POST_CATEGORY,
  HOUSE_NAME_MAX,
  POST_CONTENT_MAX,
  POST_MESSAGES,
  POSTS_PAGE_DEFAULT,
  POSTS_PAGE_MAX,
  REACTION_TYPES,
  keptAudienceHouses,
  keptHouseTags,
  toPostCategory,
} from './post-rules';
import { RoleSchema } from './roles';
import { UploadViewSchema } from './uploads';

export { ClientIdSchema } from './common';
export { ALLOWED_UPLOAD_EXTENSIONS } from './uploads';
export * from './post-rules';

/** A reaction type (docs/behaviour.md, "Comments and reactions"). */
export const ReactionTypeSchema = z.enum(REACTION_TYPES, {
  message: `Reaction must be one of: ${REACTION_TYPES.join(', ')}`,
});

const postContent = z
  .string({ message: POST_MESSAGES.contentRequired })
  .trim()
  .min(1, POST_MESSAGES.contentRequired)
  .max(POST_CONTENT_MAX, POST_MESSAGES.contentTooLong);

/** A modern or legacy category, stored as the modern one. */
const knownCategory = z.string({ message: POST_MESSAGES.unknownCategory }).transform((value, ctx) => {
  const category = toPostCategory(value);
  if (!category) {
    ctx.addIssue({ code: 'custom', message: POST_MESSAGES.unknownCategory });
    return z.NEVER;
  }
  return category;
});

/** A boolean, or "true"/"false" as a multipart form sends it. */
const booleanInput = z
  .union([z.boolean(), z.enum(['true', 'false'])], { message: POST_MESSAGES.urgentBoolean })
  .transform((value) => value === true || value === 'true');

/** House names; the server checks them against the ten houses (the tenth is the organisation's name). */
export const HouseTagsSchema = z
  .array(z.string().trim().min(1).max(HOUSE_NAME_MAX, `A house name must be at most ${HOUSE_NAME_MAX} characters`))
  .max(10, 'At most 10 houses can be tagged')
  .transform((tags) => [...new Set(tags)]);

/** One attachment of a post (the uploaded file and its name). */
export const AttachmentSchema = UploadViewSchema.pick({
  id: true,
  url: true,
  originalName: true,
  fileType: true,
  fileSize: true,
});
export type Attachment = z.infer<typeof AttachmentSchema>;

/** An attachment as a client refers to it: only the upload id is trusted, the rest is read from the server. */
export const AttachmentRefSchema = z.looseObject({ id: z.string().min(1).max(100) });

/**
 * When a post is to be published, as ISO 8601 with its offset; null (or a time already past) publishes it at once.
 * Until then only its author and admins see it (decision 141).
 */
export const PublishAtSchema = z.iso.datetime({ offset: true, message: POST_MESSAGES.invalidPublishAt }).nullable();

/** POST /api/posts (multipart or JSON) and a post created through sync. */
export const CreatePostBodySchema = z
  .object({
    id: ClientIdSchema.optional(),
    content: postContent,
    /** Missing or empty: the default category. */
    category: z
      .string({ message: POST_MESSAGES.unknownCategory })
      .optional()
      .transform((value) => value || undefined)
      .pipe(knownCategory.optional())
      .transform((value) => value ?? DEFAULT_POST_CATEGORY),
    isUrgent: booleanInput.optional().transform((value) => value ?? false),
    houseTags: HouseTagsSchema.default([]),
    /** Urgent posts: the houses the alert is addressed to; empty means all staff. */
    audienceHouses: HouseTagsSchema.default([]),
    /** Upload URLs (/api/uploads/{id}) of pictures uploaded first. */
    images: z.array(z.string().max(300)).default([]),
    attachments: z.array(AttachmentRefSchema).default([]),
    /** When the author wrote it, by the device's clock; the server bounds it (decision 119). */
    writtenAt: WrittenAtSchema,
    /** Its audience must confirm they have read it: admins only (decision 136). */
    requiresConfirmation: RequiresConfirmationSchema.optional().transform((value) => value ?? false),
    /** YYYY-MM-DD: when confirmations are due; only with requiresConfirmation. */
    confirmBy: ConfirmBySchema.optional().transform((value) => value ?? null),
    /** Missing or null: published at once (decision 141). */
    publishAt: PublishAtSchema.optional(),
    /** User ids and `house:<name>` mentioned in the text (decision 144). */
    mentions: MentionsSchema.default([]),
  })
  .refine((body) => body.images.length + body.attachments.length <= LIMITS.postUploaderFiles, {
    message: POST_MESSAGES.tooManyFiles,
    path: ['images'],
  })
  .transform((body) => ({
    ...body,
    houseTags: keptHouseTags(body.category, body.houseTags),
    audienceHouses: keptAudienceHouses(body.isUrgent || body.requiresConfirmation, body.audienceHouses),
    confirmBy: body.requiresConfirmation ? body.confirmBy : null,
  }));
export type CreatePostBody = z.infer<typeof CreatePostBodySchema>;
export type CreatePostInput = z.input<typeof CreatePostBodySchema>;

/**
 * PATCH /api/posts/{id}: content, category and urgency (docs/api-feed.md). A missing category or urgency keeps
 * the stored one; house tags may come along and are cleared when the category is not Residents Activities.
 * A missing audience keeps the stored one; it is cleared when the post is neither urgent nor requires confirmation.
 * A missing requiresConfirmation or confirmBy keeps the stored one (decision 136).
 */
export const UpdatePostBodySchema = z.object({
  content: postContent,
  category: knownCategory.optional(),
  isUrgent: booleanInput.optional(),
  houseTags: HouseTagsSchema.optional(),
  audienceHouses: HouseTagsSchema.optional(),
  requiresConfirmation: RequiresConfirmationSchema.optional(),
  confirmBy: ConfirmBySchema.optional(),
  /** A scheduled post only: its new time; null publishes it now; missing keeps it (decision 141). */
  publishAt: PublishAtSchema.optional(),
  /** The post's whole mention list; missing keeps the stored one. Only people newly mentioned are told (decision 144). */
  mentions: MentionsSchema.optional(),
});
export type UpdatePostBody = z.infer<typeof UpdatePostBodySchema>;

/** GET /api/posts: newest first, a page at a time. */
export const ListPostsQuerySchema = z.object({
  limit: z.coerce
    .number({ message: `limit must be a number from 1 to ${POSTS_PAGE_MAX}` })
    .int()
    .min(1, `limit must be a number from 1 to ${POSTS_PAGE_MAX}`)
    .max(POSTS_PAGE_MAX, `limit must be a number from 1 to ${POSTS_PAGE_MAX}`)
    .default(POSTS_PAGE_DEFAULT),
  cursor: z.string().max(200).optional(),
  /** A category, a legacy alias of one, or "all". */
  category: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === '' || value === 'all') return undefined;
      const category = toPostCategory(value);
      if (!category) {
        ctx.addIssue({ code: 'custom', message: POST_MESSAGES.unknownCategory });
        return z.NEVER;
      }
      return category;
    }),
});
export type ListPostsQuery = z.infer<typeof ListPostsQuerySchema>;

/** The header that carries the cursor of the next page of GET /api/posts (absent on the last page). */
export const NEXT_CURSOR_HEADER = 'X-Next-Cursor';

/** POST /api/posts/{id}/comments */
export const CreateCommentBodySchema = z.object({
  id: ClientIdSchema.optional(),
  content: z
    .string({ message: POST_MESSAGES.commentRequired })
    .trim()
    .min(1, POST_MESSAGES.commentRequired)
    .max(COMMENT_CONTENT_MAX, POST_MESSAGES.commentTooLong),
  /** When the author wrote it, by the device's clock; the server bounds it (decision 119). */
  writtenAt: WrittenAtSchema,
  /** User ids and `house:<name>` mentioned in the text (decision 144). */
  mentions: MentionsSchema.default([]),
});
export type CreateCommentBody = z.infer<typeof CreateCommentBodySchema>;

/** POST /api/posts/{id}/reactions */
export const ReactionBodySchema = z.object({ type: ReactionTypeSchema });
export type ReactionBody = z.infer<typeof ReactionBodySchema>;

/** The author as a post shows it; an account that was deleted shows as "Deleted user" (decision 9). */
export const PostAuthorSchema = z.object({
  id: z.string().nullable(),
  firstName: z.string(),
  lastName: z.string(),
  role: RoleSchema.nullable(),
  profileImageUrl: z.string().nullable(),
});
export type PostAuthor = z.infer<typeof PostAuthorSchema>;

/** A post as GET /api/posts answers it (docs/behaviour.md, "Posts and categories"). */
export const PostViewSchema = z.object({
  id: z.string(),
  content: z.string(),
  /** As stored: one of the five, or a legacy value (show it with categoryLabel). */
  category: z.string(),
  isUrgent: z.boolean(),
  houseTags: z.array(z.string()),
  /** Urgent posts and posts requiring confirmation: the houses addressed; empty means all staff. */
  audienceHouses: z.array(z.string()),
  images: z.array(z.string()),
  attachments: z.array(AttachmentSchema),
  /** Its audience must confirm they have read it (decision 136). */
  requiresConfirmation: z.boolean(),
  /** YYYY-MM-DD: when confirmations are due; null when none is set. */
  confirmBy: z.string().nullable(),
  /** ISO 8601: when the viewer confirmed it (their device's clock, bounded); null when they have not or need not. */
  confirmedAt: z.string().nullable(),
  /** ISO 8601, set by the server: when the post arrived. */
  createdAt: z.string(),
  /** ISO 8601: when the author wrote it (the device's clock, bounded by the server; decision 119). */
  writtenAt: z.string(),
  author: PostAuthorSchema,
  /** Who last edited the post when that was not its author (the card's "Edited by …"), else null (decision 126). */
  editedBy: PostAuthorSchema.pick({ id: true, firstName: true, lastName: true }).nullable(),
  /** Only the types someone chose, with their counts. */
  reactionCounts: z.partialRecord(ReactionTypeSchema, z.number().int().positive()),
  userReaction: ReactionTypeSchema.nullable(),
  commentCount: z.number().int().nonnegative(),
  /** User ids and `house:<name>` the post mentions, as the server kept them (decision 144). */
  mentions: z.array(z.string()),
});
export type PostView = z.infer<typeof PostViewSchema>;

/** A post waiting for its publish time, as its author and admins see it (GET /api/posts/scheduled, decision 141). */
export const ScheduledPostViewSchema = PostViewSchema.extend({
  /** ISO 8601: when it is to be published. */
  publishAt: z.string(),
});
export type ScheduledPostView = z.infer<typeof ScheduledPostViewSchema>;

/** A comment (docs/behaviour.md, "Comments and reactions"). */
export const CommentViewSchema = z.object({
  id: z.string(),
  postId: z.string(),
  content: z.string(),
  createdAt: z.string(),
  /** ISO 8601: when the author wrote it (decision 119). */
  writtenAt: z.string(),
  author: PostAuthorSchema.omit({ role: true }),
  /** User ids and `house:<name>` the comment mentions, as the server kept them (decision 144). */
  mentions: z.array(z.string()),
});
export type CommentView = z.infer<typeof CommentViewSchema>;

/** GET /api/posts/{id}/reactions: who chose what (docs/behaviour.md, "Comments and reactions"). */
export const ReactionDetailsSchema = z.array(
  z.object({
    type: ReactionTypeSchema,
    users: z.array(z.object({ firstName: z.string(), lastName: z.string() })),
  }),
);
export type ReactionDetails = z.infer<typeof ReactionDetailsSchema>;

/** Answer of POST /api/posts/{id}/reactions: the user's reaction after the toggle and the new counts. */
export const ReactionStateSchema = PostViewSchema.pick({ reactionCounts: true, userReaction: true });
export type ReactionState = z.infer<typeof ReactionStateSchema>;
