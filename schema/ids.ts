import { z } from 'zod';

/**
 * A client-generated id (offline-created posts, comments and messages keep theirs). Apart from posts.ts so that
 * chat.ts, which the app's header loads, does not build every schema of posts with it (decision 106).
 */
export const ClientIdSchema = z.uuid({ message: 'id must be a UUID' });
