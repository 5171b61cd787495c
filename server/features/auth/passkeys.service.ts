import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL, isoUint8Array } from '@simplewebauthn/server/helpers';
import { MESSAGES } from '../../../schema/auth-rules';
import {
  MAX_PASSKEYS,
  SIGN_IN_TICKET_MS,
  TWO_FACTOR_MESSAGES as M,
  type PasskeyAdded,
  type PasskeySignInBody,
  type PasswordCheckBody,
  type RegisterPasskeyBody,
} from '../../../schema/two-factor';
import { baseUrl } from '../../config';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { hashToken, randomToken } from '../../lib/crypto';
import { AppError, badRequest, forbidden, notFound } from '../../lib/errors';
import { recordAudit } from '../audit/audit.service';
import { findUserById, type UserRow } from '../users/users.queries';
import { deleteLoginFailure } from './auth.queries';
import { finishLogin, reserveLoginAttempt, type StartedSession } from './auth.service';
import { checkPasswordAllowed } from './oidc.service';
import {
  countUnusedRecoveryCodes,
  deleteChallenge,
  deletePasskey,
  findChallenge,
  findPasskey,
  findTotp,
  insertChallenge,
  insertPasskey,
  listPasskeys,
  replaceRecoveryCodes,
  setChallengeValue,
  updatePasskeyUse,
  type ChallengeRow,
  type PasskeyRow,
} from './two-factor.queries';
import { checkPassword, finishSecondStep, issueRecoveryCodes, ticketUser, twoFactorStatus } from './two-factor.service';

/** The relying party is the app's public address (PUBLIC_URL): its host is the rpID, its origin the only origin. */
function relyingParty(deps: AppDeps) {
  const url = new URL(baseUrl(deps.config));
  return { rpID: url.hostname, origin: url.origin, rpName: deps.config.orgName };
}

/** A ceremony's challenge, kept hashed by a random token for the cookie, five minutes. */
async function startCeremony(
  deps: AppDeps,
  purpose: ChallengeRow['purpose'],
  userId: string | null,
  challenge: string,
) {
  const token = randomToken();
  const at = deps.now();
  await insertChallenge(deps.db, {
    tokenHash: hashToken(token),
    purpose,
    userId,
    challenge,
    createdAt: at,
    expiresAt: at + SIGN_IN_TICKET_MS,
  });
  return token;
}

/** Spends a ceremony: of two requests with one token, only one finds it. */
async function takeCeremony(
  deps: AppDeps,
  token: string | undefined,
  purpose: ChallengeRow['purpose'],
): Promise<ChallengeRow> {
  const tokenHash = hashToken(token ?? '');
  const row = token ? await findChallenge(deps.db, tokenHash, purpose, deps.now()) : undefined;
  if (!row?.challenge || !(await deleteChallenge(deps.db, tokenHash)))
    throw new AppError(401, 'unauthenticated', M.ticketExpired);
  return row;
}

/** Options for a new passkey: discoverable, with user verification, no attestation (decision 148). */
export async function passkeyRegistrationOptions(
  deps: AppDeps,
  user: SessionUser,
): Promise<{ token: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const { rpID, rpName } = relyingParty(deps);
  const options = await generateRegistrationOptions({
    rpName,
    rpID,
    userName: user.email,
    userDisplayName: `${user.firstName} ${user.lastName}`,
    userID: isoUint8Array.fromUTF8String(user.id),
    attestationType: 'none',
    excludeCredentials: (await listPasskeys(deps.db, user.id)).map((p) => ({ id: p.id })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { token: await startCeremony(deps, 'passkey_register', user.id, options.challenge), options };
}

/** Stores a passkey the browser made; the first second factor of the account brings recovery codes. */
export async function registerPasskey(
  deps: AppDeps,
  user: SessionUser,
  token: string | undefined,
  body: RegisterPasskeyBody,
  meta: RequestMeta,
): Promise<PasskeyAdded> {
  const row = await takeCeremony(deps, token, 'passkey_register');
  if (row.userId !== user.id) badRequest(M.passkeyFailed);
  if ((await listPasskeys(deps.db, user.id)).length >= MAX_PASSKEYS) badRequest(M.tooManyPasskeys);
  const { rpID, origin } = relyingParty(deps);
  const verified = await verifyRegistrationResponse({
    // The shape is checked by the route's schema; its content by the library here.
    response: body.response as RegistrationResponseJSON,
    expectedChallenge: row.challenge!,
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: true,
  }).catch(() => null);
  if (!verified?.verified) return badRequest(M.passkeyFailed);
  const { credential } = verified.registrationInfo;
  if (await findPasskey(deps.db, credential.id)) badRequest(M.passkeyFailed);
  const at = deps.now();
  const hadCodes = (await countUnusedRecoveryCodes(deps.db, user.id)) > 0;
  await insertPasskey(deps.db, {
    id: credential.id,
    userId: user.id,
    name: body.name,
    publicKey: isoBase64URL.fromBuffer(credential.publicKey),
    counter: credential.counter,
    transports: JSON.stringify(body.response.response.transports ?? []),
    createdAt: at,
    lastUsedAt: null,
  });
  await recordAudit(deps.db, {
    actor: user,
    action: 'auth.passkey_added',
    ip: meta.ip,
    at,
    details: { name: body.name },
  });
  const passkey = { id: credential.id, name: body.name, createdAt: new Date(at).toISOString(), lastUsedAt: null };
  return hadCodes ? { passkey } : { passkey, recoveryCodes: await issueRecoveryCodes(deps, user.id) };
}

/** Removes a passkey after the password is checked; with no second factor left, the recovery codes go too. */
export async function removePasskey(
  deps: AppDeps,
  user: SessionUser,
  id: string,
  body: PasswordCheckBody,
  meta: RequestMeta,
) {
  await checkPassword(deps, (await findUserById(deps.db, user.id)) ?? forbidden(), body.password, meta);
  if (!(await deletePasskey(deps.db, user.id, id))) notFound('Passkey not found');
  const left =
    (await listPasskeys(deps.db, user.id)).length > 0 || (await findTotp(deps.db, user.id))?.confirmedAt != null;
  if (!left) await replaceRecoveryCodes(deps.db, user.id, [], deps.now());
  await recordAudit(deps.db, { actor: user, action: 'auth.passkey_removed', ip: meta.ip, at: deps.now() });
  return twoFactorStatus(deps, user);
}

/** Whether a sign-in answer is signed by this passkey with user verification; its counter is kept. */
async function verifyPasskey(deps: AppDeps, key: PasskeyRow, challenge: string, body: PasskeySignInBody) {
  const handle = body.response.response.userHandle;
  if (handle && isoUint8Array.toUTF8String(isoBase64URL.toBuffer(handle)) !== key.userId) return false;
  const { rpID, origin } = relyingParty(deps);
  const verified = await verifyAuthenticationResponse({
    // The shape is checked by the route's schema; its content by the library here.
    response: body.response as AuthenticationResponseJSON,
    expectedChallenge: challenge,
    expectedOrigin: origin,
    expectedRPID: rpID,
    credential: { id: key.id, publicKey: isoBase64URL.toBuffer(key.publicKey), counter: key.counter, transports: [] },
    requireUserVerification: true,
  }).catch(() => null);
  if (!verified?.verified) return false;
  await updatePasskeyUse(deps.db, key.id, verified.authenticationInfo.newCounter, deps.now());
  return true;
}

/** Options for the second step with a passkey: the account's own passkeys, the challenge kept on the ticket. */
export async function secondStepPasskeyOptions(
  deps: AppDeps,
  ticket: string | undefined,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { tokenHash, user } = await ticketUser(deps, ticket);
  const options = await generateAuthenticationOptions({
    rpID: relyingParty(deps).rpID,
    allowCredentials: (await listPasskeys(deps.db, user.id)).map((p) => ({ id: p.id })),
    userVerification: 'required',
  });
  await setChallengeValue(deps.db, tokenHash, options.challenge);
  return options;
}

/** The second step with a passkey, under the same attempt limits as a code (decision 148). */
export async function completeSecondStepWithPasskey(
  deps: AppDeps,
  ticket: string | undefined,
  body: PasskeySignInBody,
  meta: RequestMeta,
): Promise<StartedSession> {
  const { tokenHash, user } = await ticketUser(deps, ticket);
  const challenge = (await findChallenge(deps.db, tokenHash, 'second_factor', deps.now()))?.challenge ?? null;
  const attempt = await reserveLoginAttempt(deps, user.email, meta.ip);
  const key = await findPasskey(deps.db, body.response.id);
  const ok = challenge !== null && key?.userId === user.id && (await verifyPasskey(deps, key, challenge, body));
  if (!ok) return refusePasskey(deps, user, meta);
  await deleteLoginFailure(deps.db, attempt);
  return finishSecondStep(deps, tokenHash, user, 'passkey', meta);
}

async function refusePasskey(
  deps: AppDeps,
  user: Pick<UserRow, 'id' | 'email'> | null,
  meta: RequestMeta,
): Promise<never> {
  await recordAudit(deps.db, {
    actor: { id: user?.id ?? null, email: user?.email ?? null },
    action: 'auth.login_failed',
    ip: meta.ip,
    details: { step: 'passkey' },
    at: deps.now(),
  });
  throw new AppError(401, 'unauthenticated', M.passkeyFailed);
}

/** Options for signing in with a passkey alone: no account named, the browser offers its passkeys for this site. */
export async function passkeySignInOptions(
  deps: AppDeps,
): Promise<{ token: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const options = await generateAuthenticationOptions({ rpID: relyingParty(deps).rpID, userVerification: 'required' });
  return { token: await startCeremony(deps, 'passkey_sign_in', null, options.challenge), options };
}

/**
 * Signs in with a passkey alone (usernameless): a discoverable passkey with user verification is two factors in one,
 * so it also satisfies the admins' requirement (decision 148). Counted like a password attempt.
 */
export async function signInWithPasskey(
  deps: AppDeps,
  token: string | undefined,
  body: PasskeySignInBody,
  meta: RequestMeta,
): Promise<StartedSession> {
  const row = await takeCeremony(deps, token, 'passkey_sign_in');
  const key = await findPasskey(deps.db, body.response.id);
  const user = key ? await findUserById(deps.db, key.userId) : undefined;
  const attempt = await reserveLoginAttempt(deps, user?.email ?? `passkey:${body.response.id.slice(0, 64)}`, meta.ip);
  if (!key || !user || !(await verifyPasskey(deps, key, row.challenge!, body)))
    return refusePasskey(deps, user ?? null, meta);
  await deleteLoginFailure(deps.db, attempt);
  if (user.pendingApproval) forbidden(MESSAGES.pendingApproval);
  if (!user.isActive) forbidden(MESSAGES.deactivated);
  // With PASSWORD_SIGNIN=off the provider is the one way in, but for the break-glass account (decision 149).
  await checkPasswordAllowed(deps, { email: user.email });
  return finishLogin(deps, user, meta, { secondFactor: 'passkey', passwordless: true });
}
