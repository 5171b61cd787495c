import { z } from 'zod';
import { LIMITS } from './constants';
import { EMAIL_MAX, NAME_MAX, PASSWORD_MAX, PASSWORD_RULES } from './auth-rules';
import { RegistrationRoleSchema, RoleSchema } from './roles';

export * from './auth-rules';

const email = (message: string) =>
  z
    .string({ message })
    .trim()
    .max(EMAIL_MAX, `Email must be at most ${EMAIL_MAX} characters`)
    .pipe(z.email({ message }))
    .transform((value) => value.toLowerCase());

const passwordMax = z.string().max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

/** A new password under the registration rules (all five). */
export const StrongPasswordSchema = PASSWORD_RULES.reduce(
  (schema, rule) => schema.refine(rule.test, { message: rule.message }),
  passwordMax,
);

/** A new password under the reset-screen rules, no special character required (docs/behaviour.md, "Accounts"). */
export const ResetPasswordSchema = passwordMax
  .min(LIMITS.passwordMinLength, 'Password must be at least 8 characters')
  .refine((p) => /[A-Z]/.test(p) && /[a-z]/.test(p) && /[0-9]/.test(p), {
    message: 'Password must contain at least one uppercase letter, one lowercase letter, and one number',
  });

export const LoginBodySchema = z.object({
  email: email('Invalid email address'),
  password: z.string({ message: 'Password is required' }).min(1, 'Password is required').max(PASSWORD_MAX),
});
export type LoginBody = z.infer<typeof LoginBodySchema>;

const firstName = z
  .string({ message: 'First name is required' })
  .trim()
  .min(1, 'First name is required')
  .max(NAME_MAX, `First name must be at most ${NAME_MAX} characters`);
const lastName = z
  .string({ message: 'Last name is required' })
  .trim()
  .min(1, 'Last name is required')
  .max(NAME_MAX, `Last name must be at most ${NAME_MAX} characters`);

export const NameFieldsSchema = z.object({ firstName, lastName });

/** Registration form and POST /api/auth/register (docs/behaviour.md, "Accounts"). */
export const RegisterBodySchema = z
  .object({
    email: email('Invalid email address'),
    password: StrongPasswordSchema,
    confirmPassword: z.string({ message: "Passwords don't match" }),
    firstName,
    lastName,
    role: RegistrationRoleSchema.default('staff'),
  })
  .refine((body) => body.password === body.confirmPassword, {
    message: "Passwords don't match",
    path: ['confirmPassword'],
  });
export type RegisterBody = z.infer<typeof RegisterBodySchema>;

export const ForgotPasswordBodySchema = z.object({ email: email('Please enter a valid email address') });
export type ForgotPasswordBody = z.infer<typeof ForgotPasswordBodySchema>;

/** POST /api/auth/reset-password: the token from the link and the new password. */
export const ResetPasswordBodySchema = z.object({
  token: z.string({ message: 'This password reset link is invalid or has expired.' }).min(1).max(200),
  password: ResetPasswordSchema,
});
export type ResetPasswordBody = z.infer<typeof ResetPasswordBodySchema>;

/** Client-side reset form, with the confirmation field. */
export const ResetPasswordFormSchema = z
  .object({ password: ResetPasswordSchema, confirmPassword: z.string() })
  .refine((body) => body.password === body.confirmPassword, {
    message: "Passwords don't match",
    path: ['confirmPassword'],
  });

/** POST /api/setup: creates the first System Administrator with the one-time console link. */
export const SetupBodySchema = z
  .object({
    token: z.string().min(1).max(200),
    email: email('Invalid email address'),
    firstName,
    lastName,
    password: StrongPasswordSchema,
    confirmPassword: z.string(),
  })
  .refine((body) => body.password === body.confirmPassword, {
    message: "Passwords don't match",
    path: ['confirmPassword'],
  });
export type SetupBody = z.infer<typeof SetupBodySchema>;

export const LegacyLoginBodySchema = z.object({ email: z.string().optional(), password: z.string().optional() });

/** GET /api/auth/reset-password/validate: a valid link's purpose, and for an invitation the address it was sent to. */
export const ResetLinkAnswerSchema = z.object({
  valid: z.literal(true),
  purpose: z.enum(['reset', 'invite']),
  email: z.string().optional(),
});
export type ResetLinkAnswer = z.infer<typeof ResetLinkAnswerSchema>;

/** GET /api/auth/user. */
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
  /** Present and true when the session may only set up a second factor (decision 148). */
  twoFactorSetupRequired: z.literal(true).optional(),
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
  /** The server's public key for sealing kept work (decision 114); read before anyone signs in. */
  keptKey: z.string().optional(),
  /** Single sign-on's button, or null when it is off; whether the password form is offered (decision 149). */
  sso: z.object({ label: z.string() }).nullable().optional(),
  passwordSignIn: z.boolean().optional(),
});
export type PublicConfig = z.infer<typeof PublicConfigSchema>;
