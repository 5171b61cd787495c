import { Hono } from 'hono';
import { z } from 'zod';
import { PushUnsubscribeBodySchema, pushSubscribeBodySchema } from '../../../schema/push';
import type { AppEnv } from '../../lib/context';
import { badRequest } from '../../lib/errors';
import { parseInput, validate } from '../../lib/http';
import { pushEndpointRules } from '../../lib/push';
import { requireUser } from '../auth/auth.middleware';
import { pushStatus, sendTestNotification, subscribe, unsubscribe, vapidPublicKey } from './push.service';

const UserIdParamsSchema = z.object({ userId: z.string().min(1).max(100) });

/** Web push (docs/api-chat-alerts.md); every user manages their own subscriptions. */
export const pushRoutes = new Hono<AppEnv>()
  .get('/push/vapid-public-key', requireUser, async (c) => c.json(await vapidPublicKey(c.var.deps)))
  .get('/push/subscription-status', requireUser, async (c) => c.json(await pushStatus(c.var.deps, c.var.user)))
  .post('/push/subscribe', requireUser, async (c) => {
    const json: unknown = await c.req.json().catch(() => badRequest('The request body is not valid JSON'));
    const body = parseInput(pushSubscribeBodySchema(pushEndpointRules(c.var.deps.config)), json);
    return c.json(await subscribe(c.var.deps, c.var.user, body), 201);
  })
  .post('/push/unsubscribe', requireUser, validate('json', PushUnsubscribeBodySchema), async (c) =>
    c.json(await unsubscribe(c.var.deps, c.var.user, c.req.valid('json'))),
  )
  // Any body (an older client's title, body and urgent) is ignored: the server's own text goes out (docs/api-chat-alerts.md).
  .post('/test-notification/:userId', requireUser, validate('param', UserIdParamsSchema), async (c) =>
    c.json(await sendTestNotification(c.var.deps, c.var.user, c.req.valid('param').userId)),
  );
