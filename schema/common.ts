import { z } from 'zod';

/**
 * Small schemas that several modules share, apart from them so that the app's header, which needs these, does not
 * build every schema of posts and chat with them (decision 106).
 */

/** A client-generated id (offline-created posts, comments and messages keep theirs). */
export const ClientIdSchema = z.uuid({ message: 'id must be a UUID' });

/** A count, as the notification calls answer it (docs/behaviour.md, "Notifications"). */
export const CountSchema = z.object({ count: z.number().int().nonnegative() });
export type Count = z.infer<typeof CountSchema>;

/**
 * When the user wrote something, by the device's clock (docs/sync.md, "Two times: written and arrived"). The
 * server bounds it, and a missing or unreadable value means the arrival time: a skewed clock never costs a write
 * (decision 119). A number, or digits as a multipart form sends them.
 */
export const WrittenAtSchema = z
  .unknown()
  .transform((value): number | undefined => {
    const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
    return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : undefined;
  })
  .optional();

/** A route's `{id}` (a post, comment, upload, user, resident or alert): the one shape every such route validates. */
export const IdParamsSchema = z.object({ id: z.string().min(1).max(100) });

/** A conversation's `{id}`: two user ids joined, so longer than other ids (schema/chat-rules.ts). */
export const ConversationIdParamsSchema = z.object({ id: z.string().min(1).max(250) });
