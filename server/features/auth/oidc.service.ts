import * as oidc from 'openid-client';
import { ForgotPasswordBodySchema } from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import { PASSWORD_OFF_MESSAGE, type SsoCallbackQuery, type SsoReason } from '../../../schema/sso';
import { baseUrl, type Config } from '../../config';
import type { AppDeps, RequestMeta } from '../../lib/context';
import { hashToken } from '../../lib/crypto';
import { forbidden } from '../../lib/errors';
import { recordAudit } from '../audit/audit.service';
import { findUserByEmail, findUserById, updateUser, type UserRow } from '../users/users.queries';
import { toCurrentUser } from '../users/users.service';
import { countLoginFailures, deleteLoginFailuresOf, findUserToken, insertLoginFailure } from './auth.queries';
import { startSession, type StartedSession } from './auth.service';
import { countLiveSsoAttempts, deleteSsoAttemptsExpiredBy, insertSsoAttempt, takeSsoAttempt } from './oidc.queries';
import { inTransaction } from '../../db/client';

/** How long a started sign-in may take at the provider (decision 149). */
export const SSO_ATTEMPT_MS = 10 * 60_000;
export const SSO_CALLBACK_PATH = '/api/auth/sso/callback';
/** Sign-ins under way from one address at once; a care home's staff share one address (decision 149). */
export const SSO_LIVE_ATTEMPTS_PER_ADDRESS = 100;

/** A single sign-on that ends on the sign-in screen with this reason (`/login?sso=<reason>`). */
export class SsoFailure extends Error {
  constructor(
    readonly reason: SsoReason,
    readonly email: string | null = null,
    readonly userId: string | null = null,
  ) {
    super(reason);
  }
}

interface Discovered {
  server: oidc.ServerMetadata;
  jwks?: oidc.ExportedJWKSCache;
}

/** The provider's metadata, fetched on first use and kept per configuration; a failed fetch is tried again next time. */
const discovered = new WeakMap<Config, Promise<Discovered>>();

function providerOf(config: Config) {
  return config.sso.oidc ?? fail('off');
}

function fail(reason: SsoReason, email: string | null = null, userId: string | null = null): never {
  throw new SsoFailure(reason, email, userId);
}

/** Plain http is allowed only for an issuer on this machine (server/sso-config.ts). */
const insecure = (issuer: string) => new URL(issuer).protocol === 'http:';

async function discover(deps: AppDeps): Promise<Discovered> {
  const provider = providerOf(deps.config);
  let found = discovered.get(deps.config);
  if (!found) {
    found = oidc
      .discovery(new URL(provider.issuer), provider.clientId, provider.clientSecret, undefined, {
        execute: insecure(provider.issuer) ? [oidc.allowInsecureRequests] : [],
        timeout: 10,
      })
      .then((configuration) => ({ server: configuration.serverMetadata() }));
    discovered.set(deps.config, found);
  }
  try {
    return await found;
  } catch (error) {
    discovered.delete(deps.config);
    deps.log.error(`Single sign-on: the provider ${provider.issuer} cannot be reached or answered wrongly`, error);
    return fail('unavailable');
  }
}

/**
 * A client configuration for one use: the app's clock (tests move it) as openid-client's clock, ID token signatures
 * checked against the provider's keys, and the keys fetched once kept for the next use.
 */
function clientFor(deps: AppDeps, found: Discovered): oidc.Configuration {
  const provider = providerOf(deps.config);
  const metadata = { [oidc.clockSkew]: Math.round((deps.now() - Date.now()) / 1000) };
  const config = new oidc.Configuration(
    found.server,
    provider.clientId,
    metadata,
    oidc.ClientSecretPost(provider.clientSecret),
  );
  if (insecure(provider.issuer)) oidc.allowInsecureRequests(config);
  oidc.enableNonRepudiationChecks(config);
  if (found.jwks) oidc.setJwksCache(config, found.jwks);
  return config;
}

const redirectUri = (config: Config) => `${baseUrl(config)}${SSO_CALLBACK_PATH}`;

/**
 * Starts a sign-in at the provider: authorisation code flow with PKCE (S256), state and nonce. What the callback needs
 * is stored by the state's hash, so any server sharing the database can finish it (decision 149).
 */
export async function beginSsoSignIn(deps: AppDeps, meta: RequestMeta): Promise<{ location: string; state: string }> {
  providerOf(deps.config);
  await refuseBusyAddress(deps, meta);
  const found = await discover(deps);
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  await recordSsoAttempt(deps, meta, { stateHash: hashToken(state), nonce, codeVerifier });
  const url = oidc.buildAuthorizationUrl(clientFor(deps, found), {
    redirect_uri: redirectUri(deps.config),
    scope: 'openid email',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
  });
  return { location: url.href, state };
}

/** Counts the address's live attempts and stores this one in one transaction, so a burst is bounded exactly. */
async function recordSsoAttempt(
  deps: AppDeps,
  meta: RequestMeta,
  secrets: { stateHash: string; nonce: string; codeVerifier: string },
): Promise<void> {
  await inTransaction(deps, async (deps) => {
    const at = deps.now();
    await deleteSsoAttemptsExpiredBy(deps.db, at);
    if ((await countLiveSsoAttempts(deps.db, meta.ip, at)) >= SSO_LIVE_ATTEMPTS_PER_ADDRESS) fail('too_many');
    await insertSsoAttempt(deps.db, { ...secrets, ip: meta.ip, createdAt: at, expiresAt: at + SSO_ATTEMPT_MS });
  });
}

/**
 * The verified e-mail of an ID token: `email` when `email_verified` is true (Google Workspace, most providers), or
 * for Microsoft Entra ID when `xms_edov` (the domain owner verified it) is true. `preferred_username` is never used:
 * in Entra ID it is a sign-in name, not a verified address (decision 149).
 */
export function verifiedEmailOf(claims: oidc.IDToken): string | null {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email || !/^[^\s@]+@[^\s@]+$/.test(email)) return null;
  return claims.email_verified === true || claims.xms_edov === true ? email : null;
}

/** Exchanges the provider's code and checks state, nonce, PKCE and the ID token; answers the verified e-mail. */
async function verifiedEmailFromCallback(deps: AppDeps, query: SsoCallbackQuery, browserState: string | undefined) {
  if (query.error) fail(query.error === 'access_denied' ? 'cancelled' : 'failed');
  // The state must be the one this browser started with: a callback carried to another browser is refused.
  if (!query.state || !query.code || query.state !== browserState) fail('expired');
  const attempt = (await takeSsoAttempt(deps.db, hashToken(query.state), deps.now())) ?? fail('expired');
  const found = await discover(deps);
  const config = clientFor(deps, found);
  const current = new URL(redirectUri(deps.config));
  for (const [key, value] of Object.entries(query)) if (value !== undefined) current.searchParams.set(key, value);
  let claims: oidc.IDToken | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: attempt.codeVerifier,
      expectedState: query.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    found.jwks = oidc.getJwksCache(config) ?? found.jwks;
    claims = tokens.claims();
  } catch (error) {
    deps.log.error('Single sign-on: the code exchange or the ID token was refused', error);
    return fail('failed');
  }
  return (claims && verifiedEmailOf(claims)) ?? fail('unverified');
}

/**
 * Finishes a sign-in at the callback: an existing active, approved account with the verified e-mail gets a session,
 * exactly as a password sign-in does. SSO never creates an account nor changes a role (decision 149).
 */
export async function finishSsoSignIn(
  deps: AppDeps,
  query: SsoCallbackQuery,
  browserState: string | undefined,
  meta: RequestMeta,
): Promise<StartedSession> {
  providerOf(deps.config);
  await refuseBusyAddress(deps, meta);
  try {
    const email = await verifiedEmailFromCallback(deps, query, browserState);
    const user = (await findUserByEmail(deps.db, email)) ?? fail('no_account', email);
    if (user.pendingApproval) fail('pending', email, user.id);
    if (!user.isActive) fail('deactivated', email, user.id);
    return signInWithSso(deps, user, meta);
  } catch (error) {
    if (error instanceof SsoFailure) await auditFailure(deps, error, meta);
    throw error;
  }
}

/**
 * An address over the sign-in failure limit (decision 4) is refused before anything is looked at or written: failed
 * single sign-ons count there too, so a flood of forged callbacks writes no more to the audit log than passwords do.
 */
async function refuseBusyAddress(deps: AppDeps, meta: RequestMeta): Promise<void> {
  const since = deps.now() - LIMITS.loginFailureWindowMs;
  if ((await countLoginFailures(deps.db, 'ip', meta.ip, since)).n >= LIMITS.loginFailuresPerAddress) fail('too_many');
}

/** A failed single sign-on counts as a failed sign-in of the address (and of the e-mail, when known) and is audited. */
async function auditFailure(deps: AppDeps, failure: SsoFailure, meta: RequestMeta): Promise<void> {
  await insertLoginFailure(deps.db, failure.email ?? '', meta.ip, deps.now());
  await recordAudit(deps.db, {
    actor: { id: failure.userId, email: failure.email },
    action: 'auth.login_failed',
    ip: meta.ip,
    details: { method: 'sso', reason: failure.reason },
    at: deps.now(),
  });
}

/** The one place an SSO sign-in becomes a session: same cookie, idle rule and limits as a password (decision 149). */
async function signInWithSso(deps: AppDeps, user: UserRow, meta: RequestMeta): Promise<StartedSession> {
  const at = deps.now();
  await updateUser(deps.db, user.id, { lastLoginAt: at });
  // As a password sign-in that succeeds: the account's count of failed attempts starts again (decision 4).
  await deleteLoginFailuresOf(deps.db, user.email);
  const token = await startSession(deps, user.id, meta);
  await recordAudit(deps.db, { actor: user, action: 'auth.login', ip: meta.ip, details: { method: 'sso' }, at });
  return { token, user: toCurrentUser(user) };
}

/** Whether this address may use a password: always, unless PASSWORD_SIGNIN=off (decision 149). */
async function mayUsePassword(deps: AppDeps, email: string): Promise<boolean> {
  const { passwordSignIn, breakGlassEmail } = deps.config.sso;
  if (passwordSignIn) return true;
  if (email !== breakGlassEmail) return false;
  const user = await findUserByEmail(deps.db, email);
  return user?.role === 'system_admin';
}

/**
 * Refuses password sign-in and a reset request with PASSWORD_SIGNIN=off, for every address but BREAK_GLASS_EMAIL
 * while it is a System Administrator's; the same answer whether or not an address has an account (decision 149).
 */
export async function checkPasswordAllowed(deps: AppDeps, body: unknown): Promise<void> {
  if (deps.config.sso.passwordSignIn) return;
  const parsed = ForgotPasswordBodySchema.safeParse(body);
  if (!parsed.success || !(await mayUsePassword(deps, parsed.data.email))) forbidden(PASSWORD_OFF_MESSAGE);
}

/** With PASSWORD_SIGNIN=off a reset or invitation link sets a password only for the break-glass account. */
export async function checkResetAllowed(deps: AppDeps, body: unknown): Promise<void> {
  if (deps.config.sso.passwordSignIn) return;
  const token = typeof body === 'object' && body !== null && 'token' in body ? body.token : null;
  const row = typeof token === 'string' ? await findUserToken(deps.db, hashToken(token)) : undefined;
  const user = row ? await findUserById(deps.db, row.userId) : undefined;
  if (!user || !(await mayUsePassword(deps, user.email))) forbidden(PASSWORD_OFF_MESSAGE);
}

/** With PASSWORD_SIGNIN=off nobody registers: registration makes a password account (decision 149). */
export function checkRegistrationAllowed(deps: AppDeps): void {
  if (!deps.config.sso.passwordSignIn) forbidden(PASSWORD_OFF_MESSAGE);
}

/** What the sign-in screen offers (GET /api/config). */
export function signInOptions(config: Config): { sso: { label: string } | null; passwordSignIn: boolean } {
  return { sso: config.sso.oidc ? { label: config.sso.oidc.label } : null, passwordSignIn: config.sso.passwordSignIn };
}
