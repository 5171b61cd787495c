import { Hono } from 'hono';
import { compress } from 'hono/compress';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { z } from 'zod';
import {
  PullQuerySchema,
  PushBodySchema,
  PushHeadersSchema,
  SYNC_EVENTS,
  SyncCollectionSchema,
} from '../../../schema/sync';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import { sharedPullBody } from './sync.delivery';
import { SYNC_HANDLERS as HANDLERS } from './sync.handlers';
import { pullDocuments, pushDocuments } from './sync.service';

const CollectionParamsSchema = z.object({ collection: SyncCollectionSchema });

/** The live stream's answer headers; it is never stored, and proxies must not buffer it. */
const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Accel-Buffering': 'no',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'",
  Connection: 'keep-alive',
};

const PING = Buffer.from(': ping\n\n');

/**
 * One SSE event as bytes. A change sent to every stream is encoded once: the last two frames are kept, as a change
 * for everyone may alternate with each user's own event.
 */
interface Frame {
  event: string;
  data: string;
  bytes: Buffer;
}
let newest: Frame = { event: '', data: '', bytes: Buffer.alloc(0) };
let previous: Frame = newest;
function frameOf(event: string, data: string): Buffer {
  const same = (frame: Frame) => frame.data === data && frame.event === event;
  if (!same(newest)) {
    const known = same(previous) ? previous : { event, data, bytes: Buffer.from(`event: ${event}\ndata: ${data}\n\n`) };
    previous = newest;
    newest = known;
  }
  return newest.bytes;
}

/**
 * Replication (docs/sync.md): pull, push and the live stream. Every call is background traffic: it never
 * keeps an idle session alive (requireUser treats /api/sync/* so).
 */
export const syncRoutes = new Hono<AppEnv>()
  .use('/sync/*', requireUser)
  .get('/sync/stream', async (c) => {
    const { hub, log } = c.var.deps;
    const { incoming, outgoing } = c.env;
    // Written straight to Node's response: a web stream per client cost about 30 KB each and a copy of every
    // event; this way a connected client is its socket, and one event is encoded once for all (decision 44).
    outgoing.writeHead(200, STREAM_HEADERS);
    let open = true;
    let corked = false;
    let disconnect: (() => void) | undefined;
    const finish = () => {
      if (!open) return;
      open = false;
      disconnect?.();
      outgoing.end();
    };
    outgoing.once('close', finish);
    incoming.once('close', finish);
    try {
      disconnect = await hub.connect({
        userId: c.var.user.id,
        sessionHash: c.var.sessionHash,
        send: (event, data) => {
          if (!open) return false;
          // Several events of a fan-out (an urgent post and this user's alert row) leave in one write to the socket.
          if (typeof data !== 'string')
            return outgoing.write(data.map((each) => `event: ${event}\ndata: ${each}\n\n`).join(''));
          // So do the events of one change sent one by one (a chat message and its conversation).
          if (!corked) {
            corked = true;
            outgoing.cork();
            process.nextTick(() => {
              corked = false;
              outgoing.uncork();
            });
          }
          return outgoing.write(frameOf(event, data));
        },
        ping: () => open && outgoing.write(PING),
        close: finish,
        // Before any change event: the client pulls everything, then follows the events.
        opened: () => open && outgoing.write(frameOf(SYNC_EVENTS.resync, '{}')),
      });
    } catch (error) {
      // The answer has begun: the client sees the stream end and connects again.
      log.error('Live stream: the stream could not be registered', error);
      finish();
      return RESPONSE_ALREADY_SENT;
    }
    // The client went away while the stream was being registered.
    if (!open) disconnect();
    return RESPONSE_ALREADY_SENT;
  })
  .get(
    '/sync/:collection/pull',
    // A page of up to 1,000 documents is hundreds of KB of JSON: gzip takes it to a fraction on a care home's Wi-Fi.
    compress({ encoding: 'gzip', contentTypeFilter: /^application\/json/ }),
    validate('param', CollectionParamsSchema),
    validate('query', PullQuerySchema),
    async (c) => {
      const { collection } = c.req.valid('param');
      const query = c.req.valid('query');
      const body = await sharedPullBody(c.var.deps, collection, query, async () =>
        JSON.stringify(await pullDocuments(c.var.deps, c.var.user, HANDLERS[collection], query)),
      );
      // With its length, an answer under compress's threshold (1 KB) goes as it is: most pulls are a change or two
      // that the live stream announced, and gzip made each a chunked stream, 1-2 ms more per pull (decision 110).
      return c.body(body, 200, {
        'Content-Type': 'application/json',
        'Content-Length': String(Buffer.byteLength(body)),
      });
    },
  )
  .post(
    '/sync/:collection/push',
    validate('param', CollectionParamsSchema),
    validate('header', PushHeadersSchema),
    validate('json', PushBodySchema),
    async (c) => {
      const { collection } = c.req.valid('param');
      const rows = c.req.valid('json');
      const device = c.req.valid('header')['x-sync-device'];
      return c.json(
        await pushDocuments(c.var.deps, c.var.user, collection, HANDLERS[collection], rows, requestMeta(c), device),
      );
    },
  );
