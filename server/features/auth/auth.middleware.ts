import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { MESSAGES } from '../../../schema/auth-rules';
import { LIMITS } from '../../../schema/constants';
import { canManageUsers } from '../../../schema/permissions';
import { TWO_FACTOR_MESSAGES } from '../../../schema/two-factor-rules';
import type { AppEnv, RequestMeta, SessionUser } from '../../lib/context';
import { AppError, forbidden, unauthenticated } from '../../lib/errors';
import { resolveSession, sessionEndReason } from './auth.service';

export const SESSION_COOKIE = 'sp_session';

/**
 * Requests that say they are background traffic (polling) do not count as user activity, and neither does
 * any sync call or the live stream, whatever its headers (docs/sync.md).
 */
export function isBackgroundRequest(c: Context<AppEnv>): boolean {
  return c.req.header('x-background') === '1' || c.req.path.startsWith('/api/sync/');
}

/** Loads the session of the cookie when there is one, without requiring it. */
async function loadUser(c: Context<AppEnv>) {
  // Already resolved by an earlier guard of this request (the admin routes' '/admin/*' and a route's own).
  const known = c.get('user') as SessionUser | undefined; // unset until a guard has run
  if (known) return known;
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return null;
  // c.get, not c.var: c.var copies every variable of the request into a new object on each read.
  const found = await resolveSession(c.get('deps'), token, !isBackgroundRequest(c));
  if (!found) {
    // An access end's cookie stays, so every request the device has in flight hears why (decision 151).
    if (!(await sessionEndReason(c.get('deps'), token))) clearSessionCookie(c);
    return null;
  }
  c.set('user', found.user);
  c.set('sessionHash', found.tokenHash);
  if (found.user.twoFactorSetupRequired && !SETUP_ONLY_PATHS.test(c.req.path)) {
    throw new AppError(403, 'two_factor_setup_required', TWO_FACTOR_MESSAGES.setupRequired);
  }
  return found.user;
}

/**
 * The 401 for a request without a live session: "access_ended" when the server ended its session at the account's
 * access end, so the device can say so rather than a plain sign-out (decision 151).
 */
async function refuseSession(c: Context<AppEnv>): Promise<never> {
  const token = getCookie(c, SESSION_COOKIE);
  if (token && (await sessionEndReason(c.get('deps'), token)) === 'access_ended') {
    throw new AppError(401, 'access_ended', MESSAGES.accessEnded);
  }
  return unauthenticated();
}

/** What a session that must first set up a second factor may call (decision 148). */
const SETUP_ONLY_PATHS = /^\/api\/auth\/(user|logout|heartbeat|two-factor(\/.*)?|passkeys(\/.*)?)$/;

/** Any signed-in, active user; 401 otherwise. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(await loadUser(c))) await refuseSession(c);
  await next();
};

/** System administrators only: 401 signed out, 403 for everyone else (docs/behaviour.md, "Administration"). */
export const requireSystemAdmin: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = await loadUser(c);
  if (!user) await refuseSession(c);
  else if (!canManageUsers(user)) forbidden('System Administrator access required.');
  await next();
};

/**
 * A new session's cookie. It outlives the browser window up to the session's 12-hour cap, so an installed app closed
 * and opened again stays signed in; the server's idle rule still ends it (decision 114).
 */
export function setSessionCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    maxAge: Math.floor(LIMITS.sessionMaxAgeMs / 1000),
    httpOnly: true,
    sameSite: 'Lax',
    secure: c.var.deps.config.secure,
    path: '/',
  });
}

export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/', secure: c.var.deps.config.secure });
}

export function requestMeta(c: Context<AppEnv>): RequestMeta {
  return { ip: c.var.ip, userAgent: c.req.header('user-agent') ?? null };
}

/** Whether the request carries a live session; used by routes that answer both ways. */
export function currentUserOrNull(c: Context<AppEnv>) {
  return loadUser(c);
}
