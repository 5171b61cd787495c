import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import {
  PullQuerySchema,
  PushBodySchema,
  SYNC_EVENTS,
  SyncCollectionSchema,
  type SyncCollection,
} from '../../../schema/sync';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { acknowledgementsSync } from '../alerts/alerts.sync';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import { conversationsSync, messagesSync } from '../chat/chat.sync';
import { commentsSync } from '../comments/comments.sync';
import { postsSync } from '../posts/posts.sync';
import { reactionsSync } from '../reactions/reactions.sync';
import { residentsSync, residentViewsSync } from '../residents/residents.sync';
import { usersSync } from '../users/users.sync';
import { pullDocuments, pushDocuments, type SyncHandler } from './sync.service';

/** Each collection's handler, exported by its feature. */
const HANDLERS: Record<SyncCollection, SyncHandler> = {
  users: usersSync,
  posts: postsSync,
  comments: commentsSync,
  reactions: reactionsSync,
  conversations: conversationsSync,
  messages: messagesSync,
  acknowledgements: acknowledgementsSync,
  residents: residentsSync,
  residentViews: residentViewsSync,
};

const CollectionParamsSchema = z.object({ collection: SyncCollectionSchema });

/**
 * Replication (docs/sync.md): pull, push and the live stream. Every call is background traffic: it never
 * keeps an idle session alive (requireUser treats /api/sync/* so).
 */
export const syncRoutes = new Hono<AppEnv>()
  .use('/sync/*', requireUser)
  .get('/sync/stream', (c) => {
    const { hub } = c.var.deps;
    const userId = c.var.user.id;
    const sessionHash = c.var.sessionHash;
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      let finish = () => {};
      const ended = new Promise<void>((resolve) => (finish = resolve));
      stream.onAbort(finish);
      const disconnect = hub.connect({
        userId,
        sessionHash,
        send: (event, data) => stream.writeSSE({ event, data }),
        ping: () => stream.write(': ping\n\n'),
        close: finish,
      });
      try {
        await stream.writeSSE({ event: SYNC_EVENTS.resync, data: '{}' });
        await ended;
      } finally {
        disconnect();
      }
    });
  })
  .get('/sync/:collection/pull', validate('param', CollectionParamsSchema), validate('query', PullQuerySchema), (c) =>
    c.json(pullDocuments(c.var.deps, c.var.user, HANDLERS[c.req.valid('param').collection], c.req.valid('query'))),
  )
  .post('/sync/:collection/push', validate('param', CollectionParamsSchema), validate('json', PushBodySchema), (c) => {
    const { collection } = c.req.valid('param');
    const rows = c.req.valid('json');
    const conflicts = pushDocuments(c.var.deps, c.var.user, collection, HANDLERS[collection], rows, requestMeta(c));
    return c.json({ conflicts });
  });
