import { randomBytes } from 'node:crypto';
import { Secret, TOTP as Totp } from 'otpauth';
import QRCode from 'qrcode';
import { MESSAGES } from '../../../schema/auth-rules';
import {
  RECOVERY_CODE_COUNT,
  TOTP,
  TWO_FACTOR_MESSAGES as M,
  type ConfirmTotpBody,
  type PasswordCheckBody,
  type RecoveryCodes,
  type SecondFactorBody,
  type TotpSetup,
  type TwoFactorStatus,
} from '../../../schema/two-factor';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { hashToken, verifyPassword } from '../../lib/crypto';
import { AppError, badRequest, conflict, forbidden } from '../../lib/errors';
import { recordAudit } from '../audit/audit.service';
import { findUserById, type UserRow } from '../users/users.queries';
import { deleteLoginFailure } from './auth.queries';
import { finishLogin, reserveLoginAttempt, type StartedSession } from './auth.service';
import {
  countUnusedRecoveryCodes,
  deleteChallenge,
  deleteSecondFactors,
  deleteTotp,
  findChallenge,
  findTotp,
  listPasskeys,
  replaceRecoveryCodes,
  spendRecoveryCode,
  spendTotpStep,
  upsertPendingTotp,
} from './two-factor.queries';

const STEP_MS = TOTP.periodSeconds * 1000;
/** Recovery codes are written in RFC 4648 base32's letters and digits, which read aloud without confusion. */
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function totpOf(deps: AppDeps, email: string, secret: string): Totp {
  return new Totp({
    issuer: deps.config.orgName,
    label: email,
    algorithm: TOTP.algorithm,
    digits: TOTP.digits,
    period: TOTP.periodSeconds,
    secret: Secret.fromBase32(secret),
  });
}

/** The time step a code belongs to, within one step of now either side, or null when it matches none. */
function matchingStep(deps: AppDeps, email: string, secret: string, code: string): number | null {
  const at = deps.now();
  const delta = totpOf(deps, email, secret).validate({ token: code, timestamp: at, window: TOTP.window });
  return delta === null ? null : Math.floor(at / STEP_MS) + delta;
}

async function loadUser(deps: AppDeps, id: string): Promise<UserRow> {
  return (await findUserById(deps.db, id)) ?? forbidden();
}

/** What the user has set up, for the "Two-factor sign-in" section. */
export async function twoFactorStatus(deps: AppDeps, user: SessionUser): Promise<TwoFactorStatus> {
  return {
    totp: (await findTotp(deps.db, user.id))?.confirmedAt != null,
    recoveryCodesLeft: await countUnusedRecoveryCodes(deps.db, user.id),
    passkeys: (await listPasskeys(deps.db, user.id)).map((p) => ({
      id: p.id,
      name: p.name,
      createdAt: new Date(p.createdAt).toISOString(),
      lastUsedAt: p.lastUsedAt === null ? null : new Date(p.lastUsedAt).toISOString(),
    })),
    required: deps.config.adminTwoFactorRequired && user.role !== 'staff',
  };
}

/** A new secret, not active until a code from it is confirmed; the QR code is drawn here, as SVG (decision 148). */
export async function startTotpSetup(deps: AppDeps, user: SessionUser): Promise<TotpSetup> {
  const secret = new Secret({ size: 20 }).base32;
  if (!(await upsertPendingTotp(deps.db, user.id, secret, deps.now()))) conflict(M.alreadySetUp);
  const uri = totpOf(deps, user.email, secret).toString();
  const qrSvg = await QRCode.toString(uri, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' });
  return { secret, uri, qrSvg };
}

/** Ten new codes, stored as their SHA-256; answered once. */
export async function issueRecoveryCodes(deps: AppDeps, userId: string): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () =>
    Array.from(randomBytes(10), (byte) => BASE32[byte & 31]).join(''),
  );
  await replaceRecoveryCodes(
    deps.db,
    userId,
    codes.map((code) => hashToken(code)),
    deps.now(),
  );
  return codes.map((code) => `${code.slice(0, 5)}-${code.slice(5)}`);
}

/** Makes the pending secret active with a code from it, and answers the recovery codes, shown once. */
export async function confirmTotpSetup(
  deps: AppDeps,
  user: SessionUser,
  body: ConfirmTotpBody,
  meta: RequestMeta,
): Promise<RecoveryCodes> {
  const row = await findTotp(deps.db, user.id);
  if (!row || row.confirmedAt !== null) badRequest(row ? M.alreadySetUp : M.noPendingSetup);
  const step = matchingStep(deps, user.email, row!.secret, body.code);
  if (step === null || !(await spendTotpStep(deps.db, user.id, step, deps.now(), true))) badRequest(M.invalidCode);
  const recoveryCodes = await issueRecoveryCodes(deps, user.id);
  await recordAudit(deps.db, { actor: user, action: 'auth.totp_added', ip: meta.ip, at: deps.now() });
  return { recoveryCodes };
}

/** Checks the user's password, counted against the sign-in limits like a sign-in (decision 148). */
export async function checkPassword(deps: AppDeps, user: UserRow, password: string, meta: RequestMeta): Promise<void> {
  const attempt = await reserveLoginAttempt(deps, user.email, meta.ip);
  if (!(await verifyPassword(password, user.passwordHash))) forbidden(M.wrongPassword);
  await deleteLoginFailure(deps.db, attempt);
}

/** Removes the authenticator app after the password is checked. */
export async function removeTotp(deps: AppDeps, user: SessionUser, body: PasswordCheckBody, meta: RequestMeta) {
  await checkPassword(deps, await loadUser(deps, user.id), body.password, meta);
  if ((await findTotp(deps.db, user.id))?.confirmedAt == null) badRequest(M.notSetUp);
  await deleteTotp(deps.db, user.id);
  if ((await listPasskeys(deps.db, user.id)).length === 0) await replaceRecoveryCodes(deps.db, user.id, [], deps.now());
  await recordAudit(deps.db, { actor: user, action: 'auth.totp_removed', ip: meta.ip, at: deps.now() });
  return twoFactorStatus(deps, user);
}

/** New recovery codes in place of the old, after the password is checked; only with a second factor set up. */
export async function regenerateRecoveryCodes(
  deps: AppDeps,
  user: SessionUser,
  body: PasswordCheckBody,
  meta: RequestMeta,
): Promise<RecoveryCodes> {
  await checkPassword(deps, await loadUser(deps, user.id), body.password, meta);
  const status = await twoFactorStatus(deps, user);
  if (!status.totp && status.passkeys.length === 0) badRequest(M.notSetUp);
  const recoveryCodes = await issueRecoveryCodes(deps, user.id);
  await recordAudit(deps.db, { actor: user, action: 'auth.recovery_codes_regenerated', ip: meta.ip, at: deps.now() });
  return { recoveryCodes };
}

/** The user of a live second-step ticket; 401 when it is unknown or has expired. */
export async function ticketUser(
  deps: AppDeps,
  ticket: string | undefined,
): Promise<{ tokenHash: string; user: UserRow }> {
  const tokenHash = hashToken(ticket ?? '');
  const row = ticket ? await findChallenge(deps.db, tokenHash, 'second_factor', deps.now()) : undefined;
  const user = row?.userId ? await findUserById(deps.db, row.userId) : undefined;
  if (!user) throw new AppError(401, 'unauthenticated', M.ticketExpired);
  return { tokenHash, user };
}

/** Whether a code or recovery code is right, spending it when it is. */
async function spendSecondFactor(deps: AppDeps, user: UserRow, body: SecondFactorBody): Promise<boolean> {
  if ('code' in body) {
    const row = await findTotp(deps.db, user.id);
    if (!row || row.confirmedAt === null) return false;
    const step = matchingStep(deps, user.email, row.secret, body.code);
    return step !== null && (await spendTotpStep(deps.db, user.id, step, deps.now(), false));
  }
  return await spendRecoveryCode(deps.db, user.id, hashToken(body.recoveryCode), deps.now());
}

/**
 * The second step: a wrong code counts against the same account and address limits as a wrong password; a right
 * one starts the session exactly as a password alone does (decision 148).
 */
export async function completeSecondFactor(
  deps: AppDeps,
  ticket: string | undefined,
  body: SecondFactorBody,
  meta: RequestMeta,
): Promise<StartedSession> {
  const { tokenHash, user } = await ticketUser(deps, ticket);
  const attempt = await reserveLoginAttempt(deps, user.email, meta.ip);
  const method = 'code' in body ? 'totp' : 'recovery_code';
  if (!(await spendSecondFactor(deps, user, body))) {
    await recordAudit(deps.db, {
      actor: user,
      action: 'auth.login_failed',
      ip: meta.ip,
      details: { step: method },
      at: deps.now(),
    });
    throw new AppError(401, 'unauthenticated', method === 'totp' ? M.invalidCode : M.invalidRecoveryCode);
  }
  await deleteLoginFailure(deps.db, attempt);
  return finishSecondStep(deps, tokenHash, user, method, meta);
}

/** Spends the ticket and starts the session; an account deactivated meanwhile is refused as at the first step. */
export async function finishSecondStep(
  deps: AppDeps,
  tokenHash: string,
  user: UserRow,
  method: 'totp' | 'recovery_code' | 'passkey',
  meta: RequestMeta,
): Promise<StartedSession> {
  if (!(await deleteChallenge(deps.db, tokenHash))) throw new AppError(401, 'unauthenticated', M.ticketExpired);
  if (user.pendingApproval) forbidden(MESSAGES.pendingApproval);
  if (!user.isActive) forbidden(MESSAGES.deactivated);
  return await finishLogin(deps, user, meta, { secondFactor: method });
}

/** Removes every second factor of a user: the app, recovery codes, passkeys and any sign-in waiting on them. */
export async function removeSecondFactors(deps: AppDeps, userId: string): Promise<void> {
  await deleteSecondFactors(deps.db, userId);
}
