import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { SsoCallbackQuerySchema, type SsoReason } from '../../../schema/sso';
import type { AppEnv } from '../../lib/context';
import { requestMeta, setSessionCookie } from './auth.middleware';
import {
  beginSsoSignIn,
  checkPasswordAllowed,
  checkRegistrationAllowed,
  checkResetAllowed,
  finishSsoSignIn,
  SSO_ATTEMPT_MS,
  SsoFailure,
} from './oidc.service';

/** Binds a started sign-in to the browser that started it (decision 149). */
const STATE_COOKIE = 'sp_sso';
const STATE_COOKIE_PATH = '/api/auth/sso';

const toLogin = (c: Context<AppEnv>, reason: SsoReason) => c.redirect(`/login?sso=${reason}`, 302);

function clearState(c: Context<AppEnv>): void {
  deleteCookie(c, STATE_COOKIE, { path: STATE_COOKIE_PATH, secure: c.var.deps.config.secure });
}

/** Single sign-on with the configured OpenID provider (docs/api-auth-admin.md, decision 149). */
export const oidcRoutes = new Hono<AppEnv>()
  .get('/auth/sso/start', async (c) => {
    try {
      const { location, state } = await beginSsoSignIn(c.var.deps, requestMeta(c));
      setCookie(c, STATE_COOKIE, state, {
        maxAge: SSO_ATTEMPT_MS / 1000,
        httpOnly: true,
        // Lax: sent on the provider's top-level redirect back to the callback, never on a cross-site subrequest.
        sameSite: 'Lax',
        secure: c.var.deps.config.secure,
        path: STATE_COOKIE_PATH,
      });
      return c.redirect(location, 302);
    } catch (error) {
      if (error instanceof SsoFailure) return toLogin(c, error.reason);
      throw error;
    }
  })
  .get('/auth/sso/callback', async (c) => {
    const browserState = getCookie(c, STATE_COOKIE);
    clearState(c);
    const query = SsoCallbackQuerySchema.safeParse(c.req.query());
    if (!query.success) return toLogin(c, 'failed');
    try {
      const { token } = await finishSsoSignIn(c.var.deps, query.data, browserState, requestMeta(c));
      setSessionCookie(c, token);
      return c.redirect('/', 302);
    } catch (error) {
      if (error instanceof SsoFailure) return toLogin(c, error.reason);
      throw error;
    }
  });

/** Before password sign-in and a reset request: refused with PASSWORD_SIGNIN=off but for the break-glass account. */
export const passwordSignInGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  await checkPasswordAllowed(c.var.deps, await c.req.json());
  await next();
};

/** Before a reset or invitation link sets a password. */
export const passwordResetGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  await checkResetAllowed(c.var.deps, await c.req.json());
  await next();
};

/** Before registration. */
export const registrationGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  checkRegistrationAllowed(c.var.deps);
  await next();
};
