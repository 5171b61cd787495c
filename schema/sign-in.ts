import { z } from 'zod';
import { RoleSchema } from './roles';

// What the app needs before anyone is signed in, and on every start: the sign-in form, who is signed in, the
// public settings and the answers' texts. The account screens' schemas are in account.ts, so a device that opens
// the app does not build them until one of those screens is shown (decision 109). auth.ts exports both.

/** Bounds the spec leaves open (decision 5): long enough for any real name, short enough to be safe. */
export const NAME_MAX = 100;
export const EMAIL_MAX = 254;
export const PASSWORD_MAX = 200;

/** An email address field: trimmed, bounded, checked, lower-cased; `message` when it is not one. */
export const emailField = (message: string) =>
  z
    .string({ message })
    .trim()
    .max(EMAIL_MAX, `Email must be at most ${EMAIL_MAX} characters`)
    .pipe(z.email({ message }))
    .transform((value) => value.toLowerCase());

export const LoginBodySchema = z.object({
  email: emailField('Invalid email address'),
  password: z.string({ message: 'Password is required' }).min(1, 'Password is required').max(PASSWORD_MAX),
});
export type LoginBody = z.infer<typeof LoginBodySchema>;

/** GET /api/auth/user (issue 2). */
export const CurrentUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: RoleSchema,
  isAdmin: z.boolean(),
  isMasterAdmin: z.boolean(),
  isActive: z.boolean(),
  profileImageUrl: z.string().nullable(),
});
export type CurrentUser = z.infer<typeof CurrentUserSchema>;

/** GET /api/config: public settings the screens show (footer, support, handbook, registration). */
export const PublicConfigSchema = z.object({
  orgName: z.string(),
  supportEmail: z.string(),
  handbookUrl: z.string(),
  registration: z.enum(['approval', 'closed']),
  houses: z.array(z.string()),
  needsSetup: z.boolean(),
});
export type PublicConfig = z.infer<typeof PublicConfigSchema>;

export const MESSAGES = {
  invalidCredentials: 'Invalid email or password',
  pendingApproval: 'Your account is awaiting approval by an administrator.',
  deactivated: 'Your account has been deactivated. Please contact your administrator.',
  legacyRetired: 'Legacy access has been retired. Please sign in with your own account or contact support.',
  registrationClosed: 'Registration is closed. Please contact your administrator for an account.',
  registrationReceived:
    'Your request has been received. An administrator must approve your account before you can sign in.',
  resetSent: 'If an account with that email exists, a reset link has been sent.',
  invalidResetLink: 'This password reset link is invalid or has expired.',
  unauthorized: 'Unauthorized',
  crossSite: 'Cross-site requests are not allowed',
} as const;
