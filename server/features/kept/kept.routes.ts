import { Hono } from 'hono';
import { UnsealKeptBodySchema } from '../../../schema/kept';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requireUser } from '../auth/auth.middleware';
import { keptPublicKey, unsealKeptKey } from './kept.service';

/** Work kept on a device after its session ended (docs/sync.md, "Kept work"). */
export const keptRoutes = new Hono<AppEnv>()
  .get('/kept/key', async (c) => c.json(await keptPublicKey(c.var.deps)))
  .post('/kept/unseal', requireUser, validate('json', UnsealKeptBodySchema), async (c) =>
    c.json(await unsealKeptKey(c.var.deps, c.var.user, c.req.valid('json'))),
  );
