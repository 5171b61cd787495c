import { Hono } from 'hono';
import type { PublicConfig } from '../../../schema/auth';
import { listHouses } from '../../../schema/constants';
import type { AppEnv } from '../../lib/context';
import { needsSetup } from '../auth/auth.service';
import { signInOptions } from '../auth/oidc.service';
import { keptPublicKey } from '../kept/kept.service';

/** GET /api/config: the public settings the screens show before and after sign-in. */
export const configRoutes = new Hono<AppEnv>().get('/config', async (c) => {
  const { config } = c.var.deps;
  const body: PublicConfig = {
    orgName: config.orgName,
    supportEmail: config.supportEmail,
    handbookUrl: config.handbookUrl,
    registration: config.registration,
    houses: listHouses(config.orgName),
    needsSetup: await needsSetup(c.var.deps),
    keptKey: (await keptPublicKey(c.var.deps)).publicKey,
    ...signInOptions(config),
  };
  return c.json(body);
});
