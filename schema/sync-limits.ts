/**
 * Page sizes of the sync protocol (docs/sync.md), apart from its zod schemas so the first screen can use them
 * without loading those (src/db/first-pull.ts).
 */
export const PULL_LIMIT_DEFAULT = 500;
export const PULL_LIMIT_MAX = 1000;
/** The first page of posts a new device pulls, small so the feed shows at once (and enough to fill a screen). */
export const FIRST_FEED_PAGE = 50;

/**
 * A new device's first requests of the collections the feed shows (src/db/sync/collection-sync.ts pullPage): the page for a
 * signed-in user asks for them in its HTML (decision 111), the feed's preview asks again and is given those answers.
 */
export const FIRST_PULL_PATHS = {
  posts: `/api/sync/posts/pull?limit=${FIRST_FEED_PAGE}&backfill=1`,
  users: `/api/sync/users/pull?limit=${PULL_LIMIT_MAX}&backfill=1`,
} as const;
