import { randomUUID } from 'node:crypto';
import {
  MESSAGES,
  type CurrentUser,
  type ForgotPasswordBody,
  type LoginBody,
  type RegisterBody,
  type ResetPasswordBody,
  type SetupBody,
} from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import { SIGN_IN_TICKET_MS, type SecondFactorMethod } from '../../../schema/two-factor-rules';
import { baseUrl } from '../../config';
import type { AppDeps, RequestMeta } from '../../lib/context';
import { hashPassword, hashToken, randomToken, verifyPassword } from '../../lib/crypto';
import { AppError, badRequest, conflict, forbidden, gone, tooManyRequests } from '../../lib/errors';
import { recordAudit } from '../audit/audit.service';
import {
  countActiveSystemAdmins,
  findUserByEmail,
  findUserById,
  insertUser,
  updateUser,
  type UserRow,
} from '../users/users.queries';
import { toCurrentUser } from '../users/users.service';
import { queueMail } from '../mail/mail.service';
import {
  countAccountRequests,
  countLoginFailures,
  deleteAccountRequestsBefore,
  deleteDeadSessions,
  deleteEndedSessionsBefore,
  deleteLoginFailuresBefore,
  deleteLoginFailure,
  deleteLoginFailuresOf,
  deleteSession,
  deleteSessionsOfUser,
  deleteSetting,
  findEndedSessionReason,
  findSessionWithUser,
  findUserToken,
  insertAccountRequest,
  insertEndedSessionsOfUser,
  insertLoginFailure,
  insertSession,
  insertUserToken,
  readSetting,
  touchSession,
  spendUserToken,
  useAllTokensOfUser,
  writeSetting,
  type SessionEndReason,
} from './auth.queries';
import { deleteChallengesBefore, insertChallenge, secondFactorMethods } from './two-factor.queries';
import { inTransaction } from '../../db/client';

/** Activity is written at most this often per session, to keep reads cheap. */
const TOUCH_EVERY_MS = 10_000;
const SETUP_TOKEN_KEY = 'setup_token_hash';

export interface StartedSession {
  token: string;
  user: CurrentUser;
}

/** Creates a session for a user and returns the raw token for the cookie. */
export async function startSession(deps: AppDeps, userId: string, meta: RequestMeta): Promise<string> {
  const token = randomToken();
  const at = deps.now();
  await insertSession(deps.db, {
    tokenHash: hashToken(token),
    userId,
    createdAt: at,
    lastActiveAt: at,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 300) ?? null,
  });
  return token;
}

/**
 * Finds the live session of a cookie token. A session is dead when idle for 30 minutes, older than the
 * maximum age, or its user is inactive; a dead one is deleted. Foreground requests count as activity,
 * background ones (sync, polling) do not.
 */
export async function resolveSession(deps: AppDeps, token: string, foreground: boolean) {
  const tokenHash = hashToken(token);
  const found = await liveSession(deps, tokenHash, foreground);
  if (!found) return null;
  const setupOnly = deps.config.adminTwoFactorRequired && found.adminWithoutSecondFactor;
  return { tokenHash, user: withSetupFlag(toCurrentUser(found.user), setupOnly) };
}

/** Marks the user of a session that may only set up a second factor (decision 148). */
function withSetupFlag(user: CurrentUser, setupOnly: boolean): CurrentUser {
  return setupOnly ? { ...user, twoFactorSetupRequired: true } : user;
}

/** A live session and its user, deleting the session when it has died; touches it when `foreground`. */
async function liveSession(deps: AppDeps, tokenHash: string, foreground: boolean) {
  const found = await findSessionWithUser(deps.db, tokenHash);
  if (!found) return null;
  const at = deps.now();
  const { session, user } = found;
  const idle = at - session.lastActiveAt >= LIMITS.inactivityLogoutMs;
  const expired = at - session.createdAt >= LIMITS.sessionMaxAgeMs;
  if (idle || expired || !user.isActive) {
    await deleteSession(deps.db, tokenHash);
    return null;
  }
  if (foreground && at - session.lastActiveAt >= TOUCH_EVERY_MS) await touchSession(deps.db, tokenHash, at);
  return found;
}

/** Why the server ended the session of a cookie, when it was for a reason the device should be told (decision 151). */
export async function sessionEndReason(deps: AppDeps, token: string): Promise<SessionEndReason | null> {
  return (await findEndedSessionReason(deps.db, hashToken(token))) ?? null;
}

/** Whether a session (by its hash) is still alive, without counting as activity; used by live streams. */
export async function isSessionLive(deps: AppDeps, tokenHash: string): Promise<boolean> {
  return (await liveSession(deps, tokenHash, false)) !== null;
}

export async function endSession(
  deps: AppDeps,
  tokenHash: string,
  user: CurrentUser,
  meta: RequestMeta,
): Promise<void> {
  await deleteSession(deps.db, tokenHash);
  deps.hub.disconnectSession(tokenHash);
  await recordAudit(deps.db, { actor: user, action: 'auth.logout', ip: meta.ip, at: deps.now() });
}

/** Spends every mailed link (invitation, reset) a user still holds: their address changed or they may not sign in. */
export async function spendMailedLinks(deps: AppDeps, userId: string): Promise<void> {
  await useAllTokensOfUser(deps.db, userId, deps.now());
}

/**
 * Ends every session of a user at once (deactivation, deletion, password change). With a `reason`, their cookies are
 * answered with it as the 401's code for a session's maximum age, so the device can say why (decision 151).
 */
export async function endAllSessions(deps: AppDeps, userId: string, reason?: SessionEndReason): Promise<void> {
  if (reason) await insertEndedSessionsOfUser(deps.db, userId, reason, deps.now());
  await deleteSessionsOfUser(deps.db, userId);
  deps.hub.disconnectUser(userId);
}

/**
 * Checks the sign-in limits and, in the same synchronous step, counts this attempt as a failure before the
 * password is hashed: attempts racing each other are each counted before any is evaluated, so a burst is
 * limited exactly like the same attempts one after another. An attempt that succeeds takes its row back.
 */
export async function reserveLoginAttempt(deps: AppDeps, email: string, ip: string): Promise<number> {
  return await inTransaction(deps, async (deps) => {
    await checkRateLimit(deps, email, ip);
    return insertLoginFailure(deps.db, email, ip, deps.now());
  });
}

async function checkRateLimit(deps: AppDeps, email: string, ip: string): Promise<void> {
  const since = deps.now() - LIMITS.loginFailureWindowMs;
  const limits = [
    { found: await countLoginFailures(deps.db, 'email', email, since), max: LIMITS.loginFailuresPerAccount },
    { found: await countLoginFailures(deps.db, 'ip', ip, since), max: LIMITS.loginFailuresPerAddress },
  ];
  for (const { found, max } of limits) {
    if (found.n >= max && found.oldest !== null) {
      refuseFor(deps, found.oldest + LIMITS.loginFailureWindowMs, 'Too many failed sign-in attempts.');
    }
  }
}

/** Answers 429 until `until`, saying in whole minutes how long to wait. */
function refuseFor(deps: AppDeps, until: number, what: string): never {
  const waitMs = until - deps.now();
  const minutes = Math.max(1, Math.ceil(waitMs / 60_000));
  return tooManyRequests(
    `${what} Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    Math.max(1, Math.ceil(waitMs / 1000)),
  );
}

/**
 * Counts a password-reset or registration request against its e-mail and its client in the same synchronous step
 * as the check, before any account is looked up or password hashed: a burst is limited exactly like the same
 * requests one after another, and a known address exactly like an unknown one (decision 124).
 */
async function reserveAccountRequest(deps: AppDeps, email: string, ip: string): Promise<void> {
  await inTransaction(deps, async (deps) => {
    const since = deps.now() - LIMITS.accountRequestWindowMs;
    const limits = [
      { found: await countAccountRequests(deps.db, 'email', email, since), max: LIMITS.accountRequestsPerEmail },
      { found: await countAccountRequests(deps.db, 'ip', ip, since), max: LIMITS.accountRequestsPerAddress },
    ];
    for (const { found, max } of limits) {
      if (found.n >= max && found.oldest !== null) {
        refuseFor(deps, found.oldest + LIMITS.accountRequestWindowMs, MESSAGES.tooManyAccountRequests);
      }
    }
    await insertAccountRequest(deps.db, email, ip, deps.now());
  });
}

/** What a right password leads to: a session, or the second step with its ticket (decision 148). */
export type LoginOutcome = StartedSession | { ticket: string; methods: SecondFactorMethod[] };

/**
 * Signs in with e-mail and password; the same answer whether or not the e-mail exists. An account with a second
 * factor gets no session yet, only a ticket for the second step (decision 148).
 */
export async function login(deps: AppDeps, body: LoginBody, meta: RequestMeta): Promise<LoginOutcome> {
  const attempt = await reserveLoginAttempt(deps, body.email, meta.ip);
  const user = await findUserByEmail(deps.db, body.email);
  const ok = await verifyPassword(body.password, user?.passwordHash ?? null);
  const at = deps.now();
  if (!user || !ok) {
    await recordAudit(deps.db, {
      actor: { id: user?.id ?? null, email: body.email },
      action: 'auth.login_failed',
      ip: meta.ip,
      at,
    });
    throw new AppError(401, 'unauthenticated', MESSAGES.invalidCredentials);
  }
  await deleteLoginFailure(deps.db, attempt);
  if (user.pendingApproval) forbidden(MESSAGES.pendingApproval);
  if (!user.isActive) forbidden(MESSAGES.deactivated);
  const methods = await secondFactorMethods(deps.db, user.id);
  if (methods.length > 0) return startSecondStep(deps, user, methods, meta);
  return finishLogin(deps, user, meta);
}

/**
 * The password was right: a ticket for the second step, hashed in the database. Earlier failures are not cleared
 * here, so the attempt limits span both steps (decision 148).
 */
async function startSecondStep(deps: AppDeps, user: UserRow, methods: SecondFactorMethod[], meta: RequestMeta) {
  const ticket = randomToken();
  const at = deps.now();
  await insertChallenge(deps.db, {
    tokenHash: hashToken(ticket),
    purpose: 'second_factor',
    userId: user.id,
    challenge: null,
    createdAt: at,
    expiresAt: at + SIGN_IN_TICKET_MS,
  });
  await recordAudit(deps.db, {
    actor: user,
    action: 'auth.login_password_checked',
    ip: meta.ip,
    details: { methods },
    at,
  });
  return { ticket, methods };
}

/** Starts the session of a completed sign-in, as every way of signing in does; `details` names the second factor. */
export async function finishLogin(
  deps: AppDeps,
  user: UserRow,
  meta: RequestMeta,
  details?: Record<string, unknown>,
): Promise<StartedSession> {
  const at = deps.now();
  await deleteLoginFailuresOf(deps.db, user.email);
  await updateUser(deps.db, user.id, { lastLoginAt: at });
  const token = await startSession(deps, user.id, meta);
  await recordAudit(deps.db, { actor: user, action: 'auth.login', ip: meta.ip, at, ...(details ? { details } : {}) });
  const setupOnly =
    deps.config.adminTwoFactorRequired &&
    user.role !== 'staff' &&
    (await secondFactorMethods(deps.db, user.id)).length === 0;
  return { token, user: withSetupFlag(toCurrentUser(user), setupOnly) };
}

/**
 * Registration never grants a role: it creates an inactive staff account awaiting approval and records the
 * role asked for. The answer is the same for a new and an already-registered e-mail.
 */
export async function register(deps: AppDeps, body: RegisterBody, meta: RequestMeta): Promise<{ message: string }> {
  if (deps.config.registration === 'closed') forbidden(MESSAGES.registrationClosed);
  await reserveAccountRequest(deps, body.email, meta.ip);
  const passwordHash = await hashPassword(body.password);
  // One commit whichever the path, so a known address costs the answer no more than an unknown one (decision 124).
  await inTransaction(deps, async (deps) => {
    const existing = await findUserByEmail(deps.db, body.email);
    if (existing) await tellOwnerOfRegistration(deps, existing.email, meta);
    else await insertRegistration(deps, body, passwordHash, meta);
  });
  return { message: MESSAGES.registrationReceived };
}

/** Someone registered an address that has an account: its owner is told by mail, queued for after the answer. */
async function tellOwnerOfRegistration(deps: AppDeps, email: string, meta: RequestMeta): Promise<void> {
  await queueMail(deps, {
    to: email,
    subject: 'Someone tried to register with your e-mail',
    text:
      `Someone asked for a new Staff Portal account with this e-mail address, which already has one.\n\n` +
      `If it was you, sign in at ${baseUrl(deps.config)}/login or reset your password at ` +
      `${baseUrl(deps.config)}/forgot-password. Otherwise you can ignore this message.`,
  });
  await recordAudit(deps.db, {
    actor: { id: null, email },
    action: 'auth.register_existing',
    ip: meta.ip,
    at: deps.now(),
  });
}

/** An inactive staff account awaiting approval, with the role asked for recorded. */
async function insertRegistration(
  deps: AppDeps,
  body: RegisterBody,
  passwordHash: string,
  meta: RequestMeta,
): Promise<void> {
  const id = randomUUID();
  const at = deps.now();
  await insertUser(deps.db, {
    id,
    email: body.email,
    passwordHash,
    firstName: body.firstName,
    lastName: body.lastName,
    role: 'staff',
    isActive: false,
    pendingApproval: true,
    requestedRole: body.role,
    createdAt: at,
    updatedAt: at,
  });
  await recordAudit(deps.db, {
    actor: { id, email: body.email },
    action: 'auth.register',
    ip: meta.ip,
    target: { type: 'user', id },
    details: { requestedRole: body.role },
    at,
  });
}

/** Creates a single-use e-mailed token and returns the link that carries it. */
export async function issueUserToken(deps: AppDeps, userId: string, purpose: 'reset' | 'invite'): Promise<string> {
  const token = randomToken();
  const at = deps.now();
  await insertUserToken(deps.db, {
    tokenHash: hashToken(token),
    userId,
    purpose,
    createdAt: at,
    expiresAt: at + (purpose === 'reset' ? LIMITS.resetTokenMs : LIMITS.inviteTokenMs),
    usedAt: null,
  });
  return `${baseUrl(deps.config)}/reset-password?token=${encodeURIComponent(token)}`;
}

/**
 * Mails a reset link when the account exists and may sign in; the answer never tells which, neither by its words
 * nor by its time: the mail is queued, never sent before the answer (decision 124).
 */
export async function requestPasswordReset(
  deps: AppDeps,
  body: ForgotPasswordBody,
  meta: RequestMeta,
): Promise<{ message: string }> {
  // The count, the link, its mail and the audit entry commit together: one commit whichever the path (decision 124).
  await inTransaction(deps, async (deps) => {
    await reserveAccountRequest(deps, body.email, meta.ip);
    const user = await findUserByEmail(deps.db, body.email);
    if (!user || !user.isActive || user.pendingApproval) return;
    const link = await issueUserToken(deps, user.id, 'reset');
    await queueMail(deps, {
      to: user.email,
      subject: 'Reset your Staff Portal password',
      link,
      text:
        `Hello ${user.firstName},\n\nSomeone asked to reset the password of your Staff Portal account. ` +
        `Open this link within one hour to choose a new password:\n\n${link}\n\n` +
        `If you did not ask for this, you can ignore this message; your password stays as it is.`,
    });
    await recordAudit(deps.db, {
      actor: { id: null, email: body.email },
      action: 'auth.password_reset_requested',
      ip: meta.ip,
      target: { type: 'user', id: user.id },
      at: deps.now(),
    });
  });
  return { message: MESSAGES.resetSent };
}

async function findLiveToken(deps: AppDeps, token: string) {
  const row = await findUserToken(deps.db, hashToken(token));
  if (!row || row.usedAt !== null || row.expiresAt <= deps.now()) return badRequest(MESSAGES.invalidResetLink);
  const user = await findUserById(deps.db, row.userId);
  if (!user) return badRequest(MESSAGES.invalidResetLink);
  return { row, user };
}

/** Tells the reset screen whether its link is still good, and whether it is an invitation. */
export async function checkResetToken(deps: AppDeps, token: string) {
  const { row, user } = await findLiveToken(deps, token);
  return { valid: true as const, purpose: row.purpose, email: user.email };
}

/**
 * Sets a new password with a reset or invitation token; the token is spent and all sessions end. The token is
 * spent before the password is hashed, so of several requests with one link only the first sets a password.
 */
export async function resetPassword(deps: AppDeps, body: ResetPasswordBody, meta: RequestMeta) {
  const { row, user } = await findLiveToken(deps, body.token);
  if (!(await spendUserToken(deps.db, row.tokenHash, deps.now()))) badRequest(MESSAGES.invalidResetLink);
  const passwordHash = await hashPassword(body.password);
  const at = deps.now();
  await inTransaction(deps, async (deps) => {
    await updateUser(deps.db, user.id, { passwordHash, updatedAt: at });
    await useAllTokensOfUser(deps.db, user.id, at);
    await deleteSessionsOfUser(deps.db, user.id);
    await deleteLoginFailuresOf(deps.db, user.email);
  });
  deps.hub.disconnectUser(user.id);
  await recordAudit(deps.db, {
    actor: { id: user.id, email: user.email },
    action: row.purpose === 'invite' ? 'auth.invitation_accepted' : 'auth.password_changed',
    ip: meta.ip,
    target: { type: 'user', id: user.id },
    at,
  });
  return { message: 'Your password has been changed. You can now log in with your new password.' };
}

/** The legacy shared login is retired; the call stays so old clients get a clear answer. */
export function legacyLogin(): never {
  return gone(MESSAGES.legacyRetired);
}

/** Removes expired sessions and old failure records; run now and then. */
export async function sweepExpired(deps: AppDeps): Promise<void> {
  const at = deps.now();
  await deleteDeadSessions(deps.db, at - LIMITS.inactivityLogoutMs, at - LIMITS.sessionMaxAgeMs);
  await deleteEndedSessionsBefore(deps.db, at - LIMITS.sessionMaxAgeMs);
  await deleteLoginFailuresBefore(deps.db, at - LIMITS.loginFailureWindowMs);
  await deleteAccountRequestsBefore(deps.db, at - LIMITS.accountRequestWindowMs);
  await deleteChallengesBefore(deps.db, at);
}

/**
 * First start: creates the System Administrator from ADMIN_EMAIL/ADMIN_PASSWORD, or returns a one-time
 * setup link for the person at the console. Returns null when a System Administrator already exists.
 */
export async function ensureFirstAdmin(deps: AppDeps): Promise<{ created?: string; setupLink?: string } | null> {
  const { adminEmail, adminPassword } = deps.config;
  // Hashed before the transaction, which the first start of several servers at once takes one after the other.
  const passwordHash = adminEmail && adminPassword ? await hashPassword(adminPassword) : null;
  return inTransaction(deps, async (deps) => {
    if ((await countActiveSystemAdmins(deps.db)) > 0) {
      await deleteSetting(deps.db, SETUP_TOKEN_KEY);
      return null;
    }
    if (adminEmail && passwordHash) {
      const user = await createSystemAdmin(deps, {
        email: adminEmail,
        firstName: 'System',
        lastName: 'Administrator',
        passwordHash,
      });
      await recordAudit(deps.db, {
        actor: { id: null, email: null },
        action: 'setup.admin_from_env',
        ip: 'console',
        target: { type: 'user', id: user.id },
        at: deps.now(),
      });
      return { created: adminEmail };
    }
    const token = randomToken();
    await writeSetting(deps.db, SETUP_TOKEN_KEY, hashToken(token));
    return { setupLink: `${baseUrl(deps.config)}/setup?token=${encodeURIComponent(token)}` };
  });
}

async function createSystemAdmin(
  deps: AppDeps,
  input: { email: string; firstName: string; lastName: string; passwordHash: string },
) {
  const { passwordHash } = input;
  const at = deps.now();
  const existing = await findUserByEmail(deps.db, input.email);
  if (existing) {
    await updateUser(deps.db, existing.id, {
      role: 'system_admin',
      isActive: true,
      pendingApproval: false,
      passwordHash,
      updatedAt: at,
    });
    return (await findUserById(deps.db, existing.id))!;
  }
  const id = randomUUID();
  await insertUser(deps.db, {
    id,
    email: input.email,
    passwordHash,
    firstName: input.firstName,
    lastName: input.lastName,
    role: 'system_admin',
    isActive: true,
    pendingApproval: false,
    createdAt: at,
    updatedAt: at,
  });
  return (await findUserById(deps.db, id))!;
}

async function checkSetupToken(deps: AppDeps, token: string): Promise<void> {
  const stored = await readSetting(deps.db, SETUP_TOKEN_KEY);
  if ((await countActiveSystemAdmins(deps.db)) > 0) conflict('Staff Portal is already set up. Please sign in.');
  if (!stored || stored !== hashToken(token)) badRequest('This setup link is invalid or has already been used.');
}

/** Whether a console setup link is still good. */
export async function checkSetupLink(deps: AppDeps, token: string): Promise<{ valid: true }> {
  await checkSetupToken(deps, token);
  return { valid: true };
}

/** Creates the first System Administrator through the one-time console link and signs them in. */
export async function completeSetup(deps: AppDeps, body: SetupBody, meta: RequestMeta): Promise<StartedSession> {
  await checkSetupToken(deps, body.token);
  const passwordHash = await hashPassword(body.password);
  // Checked again with the write: the same link sent twice at once makes one administrator, and the other is told.
  const user = await inTransaction(deps, async (deps) => {
    await checkSetupToken(deps, body.token);
    const made = await createSystemAdmin(deps, { ...body, passwordHash });
    await deleteSetting(deps.db, SETUP_TOKEN_KEY);
    await recordAudit(deps.db, {
      actor: { id: made.id, email: made.email },
      action: 'setup.admin_created',
      ip: meta.ip,
      target: { type: 'user', id: made.id },
      at: deps.now(),
    });
    await updateUser(deps.db, made.id, { lastLoginAt: deps.now() });
    return made;
  });
  return { token: await startSession(deps, user.id, meta), user: toCurrentUser(user) };
}

/** Whether the app still waits for its first System Administrator. */
export async function needsSetup(deps: AppDeps): Promise<boolean> {
  return (await countActiveSystemAdmins(deps.db)) === 0;
}
