import { z } from 'zod';

/**
 * Small schemas that several modules share, apart from them so that the app's header, which needs these, does not
 * build every schema of posts and chat with them (decision 106).
 */

/** A client-generated id (offline-created posts, comments and messages keep theirs). */
export const ClientIdSchema = z.uuid({ message: 'id must be a UUID' });

/** A count, as the notification calls answer it (spec section 9). */
export const CountSchema = z.object({ count: z.number().int().nonnegative() });
export type Count = z.infer<typeof CountSchema>;
