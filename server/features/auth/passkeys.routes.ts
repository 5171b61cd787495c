import type { Context } from 'hono';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { IdParamsSchema } from '../../../schema/common';
import {
  PasskeySignInBodySchema,
  PasswordCheckBodySchema,
  RegisterPasskeyBodySchema,
  SIGN_IN_TICKET_MS,
} from '../../../schema/two-factor';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requestMeta, requireUser, setSessionCookie } from './auth.middleware';
import {
  completeSecondStepWithPasskey,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  registerPasskey,
  removePasskey,
  secondStepPasskeyOptions,
  signInWithPasskey,
} from './passkeys.service';
import { clearSignInCookie, readSignInCookie } from './two-factor.routes';

/** The cookie of a passkey ceremony under way (decision 148): its challenge is kept hashed by it on the server. */
const CEREMONY_COOKIE = 'sp_passkey';
const CEREMONY_PATH = '/api/auth';

function setCeremonyCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, CEREMONY_COOKIE, token, {
    maxAge: Math.floor(SIGN_IN_TICKET_MS / 1000),
    httpOnly: true,
    sameSite: 'Strict',
    secure: c.var.deps.config.secure,
    path: CEREMONY_PATH,
  });
}

function takeCeremonyCookie(c: Context<AppEnv>): string | undefined {
  const token = getCookie(c, CEREMONY_COOKIE);
  deleteCookie(c, CEREMONY_COOKIE, { path: CEREMONY_PATH, secure: c.var.deps.config.secure });
  return token;
}

/** Passkeys: adding and removing them, the second step with one, and signing in with one alone (docs/api-auth-admin.md). */
export const passkeyRoutes = new Hono<AppEnv>()
  .post('/auth/passkeys/options', requireUser, async (c) => {
    const { token, options } = await passkeyRegistrationOptions(c.var.deps, c.var.user);
    setCeremonyCookie(c, token);
    return c.json(options);
  })
  .post('/auth/passkeys', requireUser, validate('json', RegisterPasskeyBodySchema), async (c) =>
    c.json(
      await registerPasskey(c.var.deps, c.var.user, takeCeremonyCookie(c), c.req.valid('json'), requestMeta(c)),
      201,
    ),
  )
  .post(
    '/auth/passkeys/:id/remove',
    requireUser,
    validate('param', IdParamsSchema),
    validate('json', PasswordCheckBodySchema),
    async (c) =>
      c.json(await removePasskey(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .post('/auth/login/passkey/options', async (c) =>
    c.json(await secondStepPasskeyOptions(c.var.deps, readSignInCookie(c))),
  )
  .post('/auth/login/passkey', validate('json', PasskeySignInBodySchema), async (c) => {
    const body = c.req.valid('json');
    const { token, user } = await completeSecondStepWithPasskey(c.var.deps, readSignInCookie(c), body, requestMeta(c));
    clearSignInCookie(c);
    setSessionCookie(c, token);
    return c.json(user);
  })
  .post('/auth/passkey-sign-in/options', async (c) => {
    const { token, options } = await passkeySignInOptions(c.var.deps);
    setCeremonyCookie(c, token);
    return c.json(options);
  })
  .post('/auth/passkey-sign-in', validate('json', PasskeySignInBodySchema), async (c) => {
    const body = c.req.valid('json');
    const { token, user } = await signInWithPasskey(c.var.deps, takeCeremonyCookie(c), body, requestMeta(c));
    setSessionCookie(c, token);
    return c.json(user);
  });
