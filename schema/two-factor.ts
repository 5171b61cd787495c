import { z } from 'zod';
import { PASSWORD_MAX } from './auth-rules';
import { PASSKEY_NAME_MAX } from './two-factor-rules';

export * from './two-factor-rules';

const code = z
  .string({ message: 'Enter the 6-digit code' })
  .transform((value) => value.replace(/\s/g, ''))
  .pipe(z.string().regex(/^\d{6}$/, 'Enter the 6-digit code'));

const recoveryCode = z
  .string({ message: 'Enter a recovery code' })
  .transform((value) => value.replace(/[\s-]/g, '').toLowerCase())
  .pipe(z.string().regex(/^[a-z2-7]{10}$/, 'A recovery code has 10 letters and digits'));

const password = z.string({ message: 'Password is required' }).min(1, 'Password is required').max(PASSWORD_MAX);

/** POST /api/auth/two-factor/totp/confirm. */
export const ConfirmTotpBodySchema = z.object({ code });
export type ConfirmTotpBody = z.infer<typeof ConfirmTotpBodySchema>;

/** Removing the authenticator app or making new recovery codes asks for the password (decision 148). */
export const PasswordCheckBodySchema = z.object({ password });
export type PasswordCheckBody = z.infer<typeof PasswordCheckBodySchema>;

/** POST /api/auth/login/second-factor: a code from the app, or a recovery code. */
export const SecondFactorBodySchema = z.union([z.object({ code }).strict(), z.object({ recoveryCode }).strict()], {
  message: 'Enter the 6-digit code or a recovery code',
});
export type SecondFactorBody = z.infer<typeof SecondFactorBodySchema>;

/** POST /api/auth/two-factor/totp/start. */
export const TotpSetupSchema = z.object({ secret: z.string(), uri: z.string(), qrSvg: z.string() });
export type TotpSetup = z.infer<typeof TotpSetupSchema>;

/** Recovery codes, shown once. */
export const RecoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof RecoveryCodesSchema>;

export const PasskeyViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type PasskeyView = z.infer<typeof PasskeyViewSchema>;

/** GET /api/auth/two-factor: what the user has set up. */
export const TwoFactorStatusSchema = z.object({
  totp: z.boolean(),
  recoveryCodesLeft: z.number(),
  passkeys: z.array(PasskeyViewSchema),
  /** Whether the user's role must have a second factor (decision 148). */
  required: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof TwoFactorStatusSchema>;

/** POST /api/auth/passkeys/register: the passkey's name. */
export const PasskeyNameBodySchema = z.object({
  name: z
    .string({ message: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(PASSKEY_NAME_MAX, `Name must be at most ${PASSKEY_NAME_MAX} characters`),
});

const b64url = z
  .string()
  .max(16_384)
  .regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/** A WebAuthn answer from the browser: its shape here, its content checked by @simplewebauthn/server. */
const credentialBase = {
  id: b64url.max(1024),
  rawId: b64url.max(1024),
  type: z.literal('public-key'),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

/** POST /api/auth/passkeys: a new passkey's name and the browser's answer to the registration options. */
export const RegisterPasskeyBodySchema = PasskeyNameBodySchema.extend({
  response: z.object({
    ...credentialBase,
    response: z.looseObject({
      clientDataJSON: b64url,
      attestationObject: b64url,
      transports: z.array(z.string().max(40)).max(10).optional(),
    }),
  }),
});
export type RegisterPasskeyBody = z.infer<typeof RegisterPasskeyBodySchema>;

/** The browser's answer to sign-in options, for the second step or a sign-in with a passkey alone. */
export const PasskeySignInBodySchema = z.object({
  response: z.object({
    ...credentialBase,
    response: z.looseObject({
      clientDataJSON: b64url,
      authenticatorData: b64url,
      signature: b64url,
      userHandle: b64url.optional(),
    }),
  }),
});
export type PasskeySignInBody = z.infer<typeof PasskeySignInBodySchema>;

/** The answer of registering a passkey: recovery codes when it is the account's first second factor. */
export const PasskeyAddedSchema = z.object({
  passkey: PasskeyViewSchema,
  recoveryCodes: z.array(z.string()).optional(),
});
export type PasskeyAdded = z.infer<typeof PasskeyAddedSchema>;
