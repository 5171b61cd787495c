import { LIMITS } from './constants';
import { ROLES } from './role-rules';
import type { CurrentUser, PublicConfig } from './auth';

/**
 * The account rules and texts the app's first script needs, apart from the zod schemas of auth.ts so that it builds
 * none (decision 113). The server and the account forms use the schemas.
 */

/** Bounds of account fields (decision 5): long enough for any real name, short enough to be safe. */
export const NAME_MAX = 100;
export const EMAIL_MAX = 254;
export const PASSWORD_MAX = 200;

/** The five password rules (docs/behaviour.md, "Accounts"), in checklist order. */
export const PASSWORD_RULES = [
  {
    label: 'At least 8 characters',
    message: 'Password must be at least 8 characters',
    test: (p: string) => p.length >= LIMITS.passwordMinLength,
  },
  {
    label: 'One uppercase letter',
    message: 'Password must contain at least one uppercase letter',
    test: (p: string) => /[A-Z]/.test(p),
  },
  {
    label: 'One lowercase letter',
    message: 'Password must contain at least one lowercase letter',
    test: (p: string) => /[a-z]/.test(p),
  },
  { label: 'One number', message: 'Password must contain at least one number', test: (p: string) => /[0-9]/.test(p) },
  {
    label: 'One special character',
    message: 'Password must contain at least one special character',
    test: (p: string) => /[^A-Za-z0-9]/.test(p),
  },
] as const;

export const MESSAGES = {
  invalidCredentials: 'Invalid email or password',
  pendingApproval: 'Your account is awaiting approval by an administrator.',
  deactivated: 'Your account has been deactivated. Please contact your administrator.',
  /** An agency or bank worker's access end came during their session (decision 151). */
  accessEnded: 'Your access has ended. Ask an administrator if you still need it.',
  legacyRetired: 'Legacy access has been retired. Please sign in with your own account or contact support.',
  registrationClosed: 'Registration is closed. Please contact your administrator for an account.',
  registrationReceived:
    'Your request has been received. An administrator must approve your account before you can sign in.',
  resetSent: 'If an account with that email exists, a reset link has been sent.',
  /** The same for a known and an unknown address, followed by how long to wait (decision 124). */
  tooManyAccountRequests: 'Too many password reset or registration requests.',
  invalidResetLink: 'This password reset link is invalid or has expired.',
  unauthorized: 'Unauthorized',
  crossSite: 'Cross-site requests are not allowed',
} as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const hasStrings = (value: Record<string, unknown>, keys: readonly string[]) =>
  keys.every((key) => typeof value[key] === 'string');
const hasBooleans = (value: Record<string, unknown>, keys: readonly string[]) =>
  keys.every((key) => typeof value[key] === 'boolean');

/**
 * Whether an answer of GET /api/auth/user (or the copy the app keeps of it) has the shape of CurrentUserSchema. The app
 * reads it before its first screen, without zod; auth-rules.test.ts holds the two to the same answers.
 */
export function isCurrentUser(value: unknown): value is CurrentUser {
  return (
    isObject(value) &&
    hasStrings(value, ['id', 'email', 'firstName', 'lastName']) &&
    (ROLES as readonly unknown[]).includes(value.role) &&
    hasBooleans(value, ['isAdmin', 'isMasterAdmin', 'isActive']) &&
    (value.profileImageUrl === null || typeof value.profileImageUrl === 'string')
  );
}

/** Whether an answer of GET /api/config has the shape of PublicConfigSchema (as isCurrentUser). */
export function isPublicConfig(value: unknown): value is PublicConfig {
  return (
    isObject(value) &&
    hasStrings(value, ['orgName', 'supportEmail', 'handbookUrl']) &&
    (value.registration === 'approval' || value.registration === 'closed') &&
    Array.isArray(value.houses) &&
    value.houses.every((house) => typeof house === 'string') &&
    typeof value.needsSetup === 'boolean' &&
    (value.keptKey === undefined || typeof value.keptKey === 'string') &&
    (value.sso === undefined || value.sso === null || (isObject(value.sso) && hasStrings(value.sso, ['label']))) &&
    (value.passwordSignIn === undefined || typeof value.passwordSignIn === 'boolean')
  );
}
