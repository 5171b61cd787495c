import path from 'node:path';
import { z } from 'zod';
import { StrongPasswordSchema } from '../schema/auth';
import { REGISTRATION_MODES } from '../schema/constants';
import { DEFAULT_SHIFTS, parseShifts, type Shift } from '../schema/handovers';
import { DEFAULT_PUSH_SERVICE_HOSTS, PUSH_SERVICE_HOST_PATTERN } from '../schema/push';
import { isTimeZone } from './lib/time-zone';
import { checkSsoEnv, readSsoConfig, SSO_ENV, type SsoConfig } from './sso-config';

/** Every setting of the server, read from the environment in this one place and checked at start. */
export const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATA_DIR: z.string().min(1).default('data'),
    /** PostgreSQL instead of the SQLite file in DATA_DIR, for several servers on one database (decision 157). */
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
      .optional(),
    /** The folder of uploads and residents' photos, which may be shared by several servers (decision 153). */
    FILES_DIR: z.string().min(1).optional(),
    /** An S3-compatible bucket for uploads and residents' photos instead of a folder (decision 153). */
    S3_BUCKET: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        'must be a bucket name: 3 to 63 lower-case letters, digits, dots or hyphens',
      )
      .optional(),
    S3_ENDPOINT: z
      .url({ message: 'must be a full URL such as https://minio.example.org:9000' })
      .regex(/^https?:\/\//, 'must start with http:// or https://')
      .optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
    /** Where `npm run backup` writes; beside the data folder unless set. */
    BACKUP_DIR: z.string().min(1).optional(),
    PUBLIC_URL: z.url({ message: 'must be a full URL such as https://portal.example.org' }).optional(),
    ORG_NAME: z.string().trim().min(1).max(100).default('Staff Portal Care Ltd'),
    SUPPORT_EMAIL: z.email({ message: 'must be an e-mail address' }).default('support@example.org'),
    HANDBOOK_URL: z.url({ message: 'must be a full URL' }).default('https://handbook.example.org'),
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
      .optional(),
    MAIL_FROM: z.string().min(3).default('Staff Portal <no-reply@localhost>'),
    ADMIN_EMAIL: z.email({ message: 'must be an e-mail address' }).optional(),
    ADMIN_PASSWORD: z.string().min(1).optional(),
    /** Whether admins and System Administrators must sign in with a second factor (decision 148). */
    ADMIN_TWO_FACTOR: z.enum(['required', 'optional'], { message: 'must be required or optional' }).default('required'),
    REGISTRATION: z.enum(REGISTRATION_MODES, { message: 'must be approval or closed' }).default('approval'),
    TRUST_PROXY: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
    LOG_LEVEL: z.enum(['silent', 'error', 'info'], { message: 'must be silent, error or info' }).default('info'),
    /** The push services' hosts pushes may go to (decision 125), comma-separated; `*.` for subdomains. */
    PUSH_SERVICE_HOSTS: z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((part) => part.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(
        z
          .array(
            z
              .string()
              .regex(
                PUSH_SERVICE_HOST_PATTERN,
                'must be a comma-separated list of host names such as fcm.googleapis.com or *.push.apple.com',
              ),
          )
          .min(1, 'must name at least one push service host'),
      )
      .default([...DEFAULT_PUSH_SERVICE_HOSTS]),
    /** Tests only: pushes may reach loopback addresses (the local test receiver); never private ones. */
    PUSH_ALLOW_LOOPBACK: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),

    /**
     * `announce`: live-stream events only say which collection changed, and every device pulls it (the protocol before
     * decision 131; kept to measure against and as a fallback).
     */
    SYNC_DELIVERY: z.enum(['documents', 'announce'], { message: 'must be documents or announce' }).default('documents'),
    /** The provider's time zone (IANA name): when confirmation reminders may go out and a due date passes. */
    TIME_ZONE: z
      .string()
      .refine((zone) => isTimeZone(zone), 'must be a time zone name such as Europe/London')
      .default('Europe/London'),
    /** How far ahead an agency worker's access may end, in days (decision 145). */
    AGENCY_ACCESS_MAX_DAYS: z.coerce.number().int().min(1).max(366).default(7),
    /** How far ahead a bank worker's access may end, in days (decision 145). */
    BANK_ACCESS_MAX_DAYS: z.coerce.number().int().min(1).max(366).default(92),
    /** The provider's shifts for handover notes (decision 138): names and start times in TIME_ZONE. */
    SHIFTS: z
      .string()
      .default(DEFAULT_SHIFTS)
      .transform((value, ctx) => {
        const parsed = parseShifts(value);
        if ('shifts' in parsed) return parsed.shifts;
        ctx.addIssue({ code: 'custom', message: parsed.error });
        return z.NEVER;
      }),
    /** `production` keeps mailed links out of the log (decision 124); anything else is development. */
    NODE_ENV: z.string().optional(),
    /** Origins that may receive web push without https (a local test receiver), comma-separated. */
    PUSH_ALLOW_HOSTS: z
      .string()
      .transform((value) =>
        value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
      )
      .pipe(
        z.array(
          z
            .string()
            .refine(
              (origin) => URL.canParse(origin) && new URL(origin).origin === origin.replace(/\/$/, ''),
              'must be a comma-separated list of origins such as http://127.0.0.1:4000',
            ),
        ),
      )
      .default([]),
    ...SSO_ENV,
  })
  .superRefine((env, ctx) => {
    checkSsoEnv(env, ctx);
    checkFilesEnv(env, ctx);
    if (Boolean(env.ADMIN_EMAIL) !== Boolean(env.ADMIN_PASSWORD)) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_PASSWORD'], message: 'ADMIN_EMAIL and ADMIN_PASSWORD go together' });
    }
    if (env.ADMIN_PASSWORD) {
      const weak = StrongPasswordSchema.safeParse(env.ADMIN_PASSWORD);
      if (!weak.success)
        ctx.addIssue({ code: 'custom', path: ['ADMIN_PASSWORD'], message: weak.error.issues[0].message });
    }
  });

type FilesEnvKey = 'FILES_DIR' | 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY';

/** S3 settings go with S3_BUCKET, and a folder and a bucket are not both named (decision 153). */
function checkFilesEnv(env: Partial<Record<FilesEnvKey, string>>, ctx: z.RefinementCtx): void {
  const problem = (key: string, message: string) => ctx.addIssue({ code: 'custom', path: [key], message });
  if (env.S3_BUCKET && env.FILES_DIR) problem('FILES_DIR', 'FILES_DIR and S3_BUCKET cannot both be set: choose one');
  if (!env.S3_BUCKET) {
    for (const key of ['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
      if (env[key]) problem(key, `${key} needs S3_BUCKET`);
    }
  }
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    problem('S3_SECRET_ACCESS_KEY', 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  }
}

/** Where uploads and residents' photos are kept (decision 153). */
export type FilesConfig =
  | { kind: 'folder'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      endpoint: string | undefined;
      region: string;
      forcePathStyle: boolean;
      /** Unset: the SDK's own chain (its environment variables, an instance or pod role). */
      credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
    };

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL's URL (DATABASE_URL); unset, the server keeps its SQLite file in the data folder (decision 157). */
  databaseUrl: string | undefined;
  /** Uploads and residents' photos: FILES_DIR (default DATA_DIR) or an S3 bucket (decision 153). */
  files: FilesConfig;
  /** Where `npm run backup` writes its timestamped folders (BACKUP_DIR, default DATA_DIR/../backups). */
  backupDir: string;
  publicUrl: string | undefined;
  orgName: string;
  supportEmail: string;
  handbookUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  registration: 'approval' | 'closed';
  /** Admins and System Administrators must have a second factor (ADMIN_TWO_FACTOR, default required; decision 148). */
  adminTwoFactorRequired: boolean;
  trustProxy: boolean;
  logLevel: 'silent' | 'error' | 'info';
  /** NODE_ENV=production: the log never shows a mailed link, only the outbox id of the mail (decision 124). */
  production: boolean;
  /** Origins web push may reach without https (PUSH_ALLOW_HOSTS): local receivers in tests. */
  pushAllowOrigins: string[];
  /** Hosts of the push services subscriptions may name (PUSH_SERVICE_HOSTS; decision 125). */
  pushServiceHosts: string[];
  /** Whether a push may connect to a loopback address (PUSH_ALLOW_LOOPBACK): the test receiver only. */
  pushAllowLoopback: boolean;
  /** Whether change events carry the changed documents (SYNC_DELIVERY; decision 131). */
  syncDelivery: 'documents' | 'announce';
  /** The provider's time zone (TIME_ZONE): quiet hours and due dates of confirmations (decision 136). */
  timeZone: string;
  /** The shifts of handover notes, by start time (SHIFTS; decision 138). */
  shifts: Shift[];
  /** The furthest an account's access may end ahead, in days, by account type (decision 145). */
  accessMaxDays: { agency: number; bank: number };
  /** Cookies get Secure and HSTS is sent when the public URL is https. */
  secure: boolean;
  /** OpenID Connect sign-in and whether password sign-in is offered (decision 149). */
  sso: SsoConfig;
}

export class ConfigError extends Error {}

/** Reads and checks the environment; throws ConfigError naming every bad key. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = ConfigSchema.safeParse(cleaned);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    files: readFilesConfig(e, dataDir),
    backupDir: e.BACKUP_DIR ? path.resolve(e.BACKUP_DIR) : path.join(path.dirname(dataDir), 'backups'),
    publicUrl: e.PUBLIC_URL?.replace(/\/$/, ''),
    orgName: e.ORG_NAME,
    supportEmail: e.SUPPORT_EMAIL,
    handbookUrl: e.HANDBOOK_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    adminEmail: e.ADMIN_EMAIL?.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    registration: e.REGISTRATION,
    adminTwoFactorRequired: e.ADMIN_TWO_FACTOR === 'required',
    trustProxy: e.TRUST_PROXY === 'true',
    logLevel: e.LOG_LEVEL,
    production: e.NODE_ENV === 'production',
    pushAllowOrigins: e.PUSH_ALLOW_HOSTS.map((origin) => new URL(origin).origin),
    pushServiceHosts: e.PUSH_SERVICE_HOSTS,
    pushAllowLoopback: e.PUSH_ALLOW_LOOPBACK === 'true',
    syncDelivery: e.SYNC_DELIVERY,
    timeZone: e.TIME_ZONE,
    shifts: e.SHIFTS,
    accessMaxDays: { agency: e.AGENCY_ACCESS_MAX_DAYS, bank: e.BANK_ACCESS_MAX_DAYS },
    secure: Boolean(e.PUBLIC_URL?.startsWith('https://')),
    sso: readSsoConfig(e),
  };
}

function readFilesConfig(e: z.infer<typeof ConfigSchema>, dataDir: string): FilesConfig {
  if (!e.S3_BUCKET) return { kind: 'folder', dir: e.FILES_DIR ? path.resolve(e.FILES_DIR) : dataDir };
  const credentials =
    e.S3_ACCESS_KEY_ID && e.S3_SECRET_ACCESS_KEY
      ? { accessKeyId: e.S3_ACCESS_KEY_ID, secretAccessKey: e.S3_SECRET_ACCESS_KEY }
      : undefined;
  return {
    kind: 's3',
    bucket: e.S3_BUCKET,
    endpoint: e.S3_ENDPOINT,
    region: e.S3_REGION,
    forcePathStyle: e.S3_FORCE_PATH_STYLE === 'true',
    credentials,
  };
}

/** The address links in e-mails and console messages point to. */
export function baseUrl(config: Config): string {
  return config.publicUrl ?? `http://localhost:${config.port}`;
}
