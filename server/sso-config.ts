import { z } from 'zod';

/** Hosts an issuer may be reached at over plain http: this machine only, for the tests' local provider. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Whether an issuer URL may be used: https, or http on this machine (decision 149). */
export function isAllowedIssuer(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

/** The environment settings of single sign-on, merged into ConfigSchema (server/config.ts). */
export const SSO_ENV = {
  OIDC_ISSUER: z
    .string()
    .refine(isAllowedIssuer, 'must be the https address of the OpenID provider, such as https://login.example.org')
    .optional(),
  OIDC_CLIENT_ID: z.string().trim().min(1).max(500).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).max(2000).optional(),
  /** The provider's name on the button: "Sign in with <label>". */
  OIDC_LABEL: z
    .string()
    .trim()
    .min(1)
    .max(40, 'must be at most 40 characters')
    .refine((label) => !/^sign in with /i.test(label), 'is the provider name only, such as Microsoft')
    .optional(),
  PASSWORD_SIGNIN: z.enum(['on', 'off'], { message: 'must be on or off' }).default('on'),
  BREAK_GLASS_EMAIL: z
    .email({ message: 'must be an e-mail address' })
    .transform((value) => value.toLowerCase())
    .optional(),
};

type SsoEnv = {
  OIDC_ISSUER?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_LABEL?: string;
  PASSWORD_SIGNIN: 'on' | 'off';
  BREAK_GLASS_EMAIL?: string;
};

/** All three OIDC values or none; password sign-in off needs SSO and a break-glass address (decision 149). */
export function checkSsoEnv(env: SsoEnv, ctx: z.RefinementCtx): void {
  const given = [env.OIDC_ISSUER, env.OIDC_CLIENT_ID, env.OIDC_CLIENT_SECRET].filter(Boolean).length;
  if (given !== 0 && given !== 3) {
    ctx.addIssue({
      code: 'custom',
      path: ['OIDC_ISSUER'],
      message: 'OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together: set all three or none',
    });
  }
  if (env.OIDC_LABEL && given === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['OIDC_LABEL'],
      message: 'needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET',
    });
  }
  if (env.PASSWORD_SIGNIN === 'off' && given !== 3) {
    ctx.addIssue({ code: 'custom', path: ['PASSWORD_SIGNIN'], message: 'off needs single sign-on (OIDC_ISSUER...)' });
  }
  if (env.PASSWORD_SIGNIN === 'off' && !env.BREAK_GLASS_EMAIL) {
    ctx.addIssue({
      code: 'custom',
      path: ['BREAK_GLASS_EMAIL'],
      message: 'is required when PASSWORD_SIGNIN=off: the System Administrator who may still sign in with a password',
    });
  }
  if (env.BREAK_GLASS_EMAIL && env.PASSWORD_SIGNIN !== 'off') {
    ctx.addIssue({ code: 'custom', path: ['BREAK_GLASS_EMAIL'], message: 'only applies with PASSWORD_SIGNIN=off' });
  }
}

export interface SsoConfig {
  /** The one OpenID provider, or null when single sign-on is off. */
  oidc: { issuer: string; clientId: string; clientSecret: string; label: string } | null;
  /** Whether e-mail and password sign-in is offered to everyone (PASSWORD_SIGNIN). */
  passwordSignIn: boolean;
  /** The System Administrator who may still use a password when it is off (BREAK_GLASS_EMAIL). */
  breakGlassEmail: string | null;
}

export function readSsoConfig(env: SsoEnv): SsoConfig {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env;
  return {
    oidc:
      issuer && clientId && clientSecret
        ? { issuer, clientId, clientSecret, label: env.OIDC_LABEL ?? 'single sign-on' }
        : null,
    passwordSignIn: env.PASSWORD_SIGNIN === 'on',
    breakGlassEmail: env.BREAK_GLASS_EMAIL ?? null,
  };
}
