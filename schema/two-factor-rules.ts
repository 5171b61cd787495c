/**
 * Two-factor sign-in without zod (decision 148): the figures, the messages and a reader of the sign-in answer, so the
 * sign-in screen can tell the second step from a session without loading zod (decision 113).
 */

/** TOTP as authenticator apps expect it (RFC 6238): SHA-1, 6 digits, 30 seconds, one step either side accepted. */
export const TOTP = { algorithm: 'SHA1', digits: 6, periodSeconds: 30, window: 1 } as const;
export const RECOVERY_CODE_COUNT = 10;
/** How long a checked password waits for its second factor, and a passkey ceremony for its answer. */
export const SIGN_IN_TICKET_MS = 5 * 60_000;
export const PASSKEY_NAME_MAX = 60;
export const MAX_PASSKEYS = 20;

export const SECOND_FACTOR_METHODS = ['totp', 'recovery_code', 'passkey'] as const;
export type SecondFactorMethod = (typeof SECOND_FACTOR_METHODS)[number];

export const TWO_FACTOR_MESSAGES = {
  invalidCode: 'That code is not right. Please try again.',
  invalidRecoveryCode: 'That recovery code is not right or has been used.',
  ticketExpired: 'Your sign-in has timed out. Please enter your email and password again.',
  noPendingSetup: 'Start setting up the authenticator app again.',
  alreadySetUp: 'An authenticator app is already set up. Remove it first to set up another.',
  notSetUp: 'No authenticator app is set up.',
  wrongPassword: 'Your password is not right.',
  setupRequired: 'Set up two-factor sign-in to continue: it is required for administrators.',
  passkeyFailed: 'The passkey could not be checked. Please try again.',
  passkeyNotFound: 'This passkey is not registered here.',
  tooManyPasskeys: `You can have at most ${MAX_PASSKEYS} passkeys.`,
  reset: 'Two-factor sign-in has been reset.',
} as const;

/** The answer of POST /api/auth/login when the password was right and a second factor is needed. */
export interface SecondFactorNeeded {
  secondFactor: { methods: SecondFactorMethod[] };
}

/** Whether a sign-in answer asks for the second step (no session was started). */
export function isSecondFactorNeeded(value: unknown): value is SecondFactorNeeded {
  if (typeof value !== 'object' || value === null || !('secondFactor' in value)) return false;
  const step: unknown = value.secondFactor;
  return (
    typeof step === 'object' &&
    step !== null &&
    'methods' in step &&
    Array.isArray(step.methods) &&
    step.methods.every((m: unknown) => (SECOND_FACTOR_METHODS as readonly unknown[]).includes(m))
  );
}
