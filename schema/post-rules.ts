/**
 * The rules of posts, comments and reactions that the app shows and checks (docs/behaviour.md, "Posts and categories"),
 * apart from their zod schemas in posts.ts: the feed uses these, and building the schemas cost a slow phone's first
 * screen time it did not need (decision 106). posts.ts exports them too.
 */
import { LIMITS } from './constants';

/** Post categories (docs/behaviour.md, "Posts and categories"), in the order the chips show them. */
export const POST_CATEGORIES = [
  'buildings_maintenance',
  'company_announcement',
  'residents_activities',
  'wages_hr',
  'shifts_lifts',
] as const;
export type PostCategory = (typeof POST_CATEGORIES)[number];
export const DEFAULT_POST_CATEGORY: PostCategory = 'company_announcement';

export const POST_CATEGORY_LABELS: Record<PostCategory, string> = {
  buildings_maintenance: 'Buildings and Maintenance',
  company_announcement: 'Company Announcement',
  residents_activities: 'Residents Activities',
  wages_hr: 'Wages and HR',
  shifts_lifts: 'Shifts & Lifts',
};

/** Older category values still found in data; each shows and filters as its modern category. */
export const LEGACY_CATEGORY_ALIASES = {
  business: 'buildings_maintenance',
  activity: 'residents_activities',
  wages: 'wages_hr',
} as const satisfies Record<string, PostCategory>;

/** The category that carries house tags (docs/behaviour.md, "Posts and categories"). */
export const HOUSE_TAGGED_CATEGORY: PostCategory = 'residents_activities';

/** The modern category of a modern or legacy value; null for anything else. */
export function toPostCategory(value: string): PostCategory | null {
  if ((POST_CATEGORIES as readonly string[]).includes(value)) return value as PostCategory;
  return (LEGACY_CATEGORY_ALIASES as Record<string, PostCategory>)[value] ?? null;
}

/**
 * Label of a stored category: legacy values show their modern label, anything else "General"
 * (docs/behaviour.md, "Posts and categories").
 */
export function categoryLabel(value: string | null | undefined): string {
  const category = value ? toPostCategory(value) : null;
  return category ? POST_CATEGORY_LABELS[category] : 'General';
}

/** Every stored value that belongs to a category: the modern one and its legacy aliases. */
export function categoryValues(category: PostCategory): string[] {
  const legacy = Object.entries(LEGACY_CATEGORY_ALIASES)
    .filter(([, modern]) => modern === category)
    .map(([old]) => old);
  return [category, ...legacy];
}

/** Reaction types (docs/behaviour.md, "Comments and reactions"), in the order the reaction bar shows them. */
export const REACTION_TYPES = ['like', 'love', 'laugh', 'wow', 'sad', 'angry'] as const;
export type ReactionType = (typeof REACTION_TYPES)[number];

/** Bounds of posts, comments and files that docs/behaviour.md does not list (decision 16). */
export const POST_CONTENT_MAX = 10_000;
export const COMMENT_CONTENT_MAX = 2000;
export const HOUSE_NAME_MAX = 100;
export const POSTS_PAGE_DEFAULT = 20;
export const POSTS_PAGE_MAX = 100;

/** How far ahead a post may be scheduled (decision 141). */
export const SCHEDULE_AHEAD_MAX_DAYS = 366;

/** How often the server looks for scheduled posts whose time has come: each is published within this (decision 141). */
export const SCHEDULED_POSTS_CHECK_MS = 30_000;

export const POST_MESSAGES = {
  contentRequired: 'Post content is required',
  contentTooLong: `Post content must be at most ${POST_CONTENT_MAX} characters`,
  commentRequired: 'Comment cannot be empty',
  commentTooLong: `Comment must be at most ${COMMENT_CONTENT_MAX} characters`,
  unknownCategory: `Category must be one of: ${POST_CATEGORIES.join(', ')}`,
  urgentBoolean: 'isUrgent must be true or false',
  tooManyFiles: `At most ${LIMITS.postUploaderFiles} files can be attached to a post`,
  postNotFound: 'Post not found',
  commentNotFound: 'Comment not found',
  cannotEditPost: 'Only the author or an administrator can edit this post',
  cannotDeletePost: 'Only the author or an administrator can delete this post',
  cannotDeleteComment: 'Only the author or a System Administrator can delete this comment',
  invalidCursor: 'Invalid cursor',
  invalidPublishAt: 'publishAt must be a date and time with its offset (ISO 8601, e.g. 2026-12-01T09:00:00Z)',
  publishAtTooFar: `A post can be scheduled at most ${SCHEDULE_AHEAD_MAX_DAYS} days ahead`,
  alreadyPublished: 'This post is already published: it cannot be scheduled',
} as const;

/**
 * House tags stay only on Residents Activities posts (another category clears them;
 * docs/behaviour.md, "Posts and categories").
 */
export function keptHouseTags(category: string, houseTags: string[]): string[] {
  return toPostCategory(category) === HOUSE_TAGGED_CATEGORY ? houseTags : [];
}

/**
 * The audience stays only while the post addresses one: it is urgent (decision 33) or, on the server, requires
 * confirmation (decision 136); an ordinary post has none.
 */
export function keptAudienceHouses(addressed: boolean, audienceHouses: string[]): string[] {
  return addressed ? audienceHouses : [];
}

/** How a post or comment of a deleted account shows its author. */
export const DELETED_AUTHOR = { firstName: 'Deleted', lastName: 'user' } as const;
