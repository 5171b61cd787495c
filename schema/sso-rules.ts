import { MESSAGES } from './auth-rules';

/** Why a single sign-on ended back on the sign-in screen: `/login?sso=<reason>` (decision 149). */
export const SSO_REASONS = [
  'cancelled',
  'expired',
  'failed',
  'unavailable',
  'unverified',
  'no_account',
  'pending',
  'deactivated',
  'too_many',
  'off',
] as const;
export type SsoReason = (typeof SSO_REASONS)[number];

/** What the sign-in screen says for each reason; no more than password sign-in tells (decision 6). */
export const SSO_MESSAGES: Record<SsoReason, string> = {
  cancelled: 'Single sign-on was cancelled. Please try again.',
  expired: 'That sign-in link has expired or was already used. Please try again.',
  failed: 'Single sign-on did not complete. Please try again.',
  unavailable: 'The sign-in service cannot be reached just now. Please try again in a few minutes.',
  unverified: 'Your sign-in account has no verified e-mail address. Please contact your administrator.',
  no_account:
    'There is no active staff account for the e-mail address of your sign-in account. Please contact your administrator.',
  pending: MESSAGES.pendingApproval,
  deactivated: MESSAGES.deactivated,
  too_many: 'Too many sign-in attempts from this network. Please try again in 15 minutes.',
  off: 'Single sign-on is not set up. Please sign in with your e-mail and password.',
};

/** Password sign-in, reset and registration when PASSWORD_SIGNIN=off, for everyone but the break-glass account. */
export const PASSWORD_OFF_MESSAGE = 'Password sign-in is switched off. Please use single sign-on.';

/** The reason of a `?sso=` value, or null for anything else. */
export function ssoReasonOf(value: string | null): SsoReason | null {
  return SSO_REASONS.find((reason) => reason === value) ?? null;
}
