import type { Context } from 'hono';
import { Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import {
  ConfirmTotpBodySchema,
  PasswordCheckBodySchema,
  SecondFactorBodySchema,
  SIGN_IN_TICKET_MS,
} from '../../../schema/two-factor';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requestMeta, requireUser, setSessionCookie } from './auth.middleware';
import {
  completeSecondFactor,
  confirmTotpSetup,
  regenerateRecoveryCodes,
  removeTotp,
  startTotpSetup,
  twoFactorStatus,
} from './two-factor.service';

/** The cookie of a sign-in waiting for its second factor (decision 148); sent only to the sign-in calls. */
export const SIGN_IN_COOKIE = 'sp_sign_in';
const SIGN_IN_COOKIE_PATH = '/api/auth';

export function setSignInCookie(c: Context<AppEnv>, ticket: string): void {
  setCookie(c, SIGN_IN_COOKIE, ticket, {
    maxAge: Math.floor(SIGN_IN_TICKET_MS / 1000),
    httpOnly: true,
    sameSite: 'Strict',
    secure: c.var.deps.config.secure,
    path: SIGN_IN_COOKIE_PATH,
  });
}

export function readSignInCookie(c: Context<AppEnv>): string | undefined {
  return getCookie(c, SIGN_IN_COOKIE);
}

export function clearSignInCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SIGN_IN_COOKIE, { path: SIGN_IN_COOKIE_PATH, secure: c.var.deps.config.secure });
}

/** Two-factor sign-in: the authenticator app, recovery codes and the second step (docs/api-auth-admin.md). */
export const twoFactorRoutes = new Hono<AppEnv>()
  .post('/auth/login/second-factor', validate('json', SecondFactorBodySchema), async (c) => {
    const { token, user } = await completeSecondFactor(
      c.var.deps,
      readSignInCookie(c),
      c.req.valid('json'),
      requestMeta(c),
    );
    clearSignInCookie(c);
    setSessionCookie(c, token);
    return c.json(user);
  })
  .get('/auth/two-factor', requireUser, async (c) => c.json(await twoFactorStatus(c.var.deps, c.var.user)))
  .post('/auth/two-factor/totp/start', requireUser, async (c) => c.json(await startTotpSetup(c.var.deps, c.var.user)))
  .post('/auth/two-factor/totp/confirm', requireUser, validate('json', ConfirmTotpBodySchema), async (c) =>
    c.json(await confirmTotpSetup(c.var.deps, c.var.user, c.req.valid('json'), requestMeta(c))),
  )
  .post('/auth/two-factor/totp/remove', requireUser, validate('json', PasswordCheckBodySchema), async (c) =>
    c.json(await removeTotp(c.var.deps, c.var.user, c.req.valid('json'), requestMeta(c))),
  )
  .post('/auth/two-factor/recovery-codes', requireUser, validate('json', PasswordCheckBodySchema), async (c) =>
    c.json(await regenerateRecoveryCodes(c.var.deps, c.var.user, c.req.valid('json'), requestMeta(c))),
  );
