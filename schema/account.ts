import { z } from 'zod';
import { LIMITS } from './constants';
import { RegistrationRoleSchema } from './roles';
import { emailField, NAME_MAX, PASSWORD_MAX } from './sign-in';

// The account screens' rules and forms: registration, forgotten and reset passwords, first set-up (decision 109).

/** The five password rules of spec section 5, in checklist order. */
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

const passwordMax = z.string().max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`);

/** A new password under the registration rules (all five). */
export const StrongPasswordSchema = PASSWORD_RULES.reduce(
  (schema, rule) => schema.refine(rule.test, { message: rule.message }),
  passwordMax,
);

/** A new password under the reset-screen rules of spec section 5 (no special character required). */
export const ResetPasswordSchema = passwordMax
  .min(LIMITS.passwordMinLength, 'Password must be at least 8 characters')
  .refine((p) => /[A-Z]/.test(p) && /[a-z]/.test(p) && /[0-9]/.test(p), {
    message: 'Password must contain at least one uppercase letter, one lowercase letter, and one number',
  });

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

/** Registration form and POST /api/auth/register (spec sections 5 and 7). */
export const RegisterBodySchema = z
  .object({
    email: emailField('Invalid email address'),
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

export const ForgotPasswordBodySchema = z.object({ email: emailField('Please enter a valid email address') });
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
    email: emailField('Invalid email address'),
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

/** The retired shared login's body (the server answers it with a message, issue 2). */
export const LegacyLoginBodySchema = z.object({ email: z.string().optional(), password: z.string().optional() });
