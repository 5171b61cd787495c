/**
 * Page sizes of the sync protocol (docs/sync.md), apart from its zod schemas so the first screen can use them
 * without loading those (src/db/first-pull.ts).
 */
export const PULL_LIMIT_DEFAULT = 500;
export const PULL_LIMIT_MAX = 1000;
/** The first page of posts a new device pulls, small so the feed shows at once (and enough to fill a screen). */
export const FIRST_FEED_PAGE = 50;
