import { getConnInfo } from '@hono/node-server/conninfo';
import { zValidator } from '@hono/zod-validator';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { z, ZodType } from 'zod';
import { MESSAGES } from '../../schema/auth';
import { UNAVAILABLE_MESSAGE, type ErrorBody } from '../../schema/errors';
import { isServerLost } from '../db/hosts';
import { AppError } from './errors';
import type { AppEnv } from './context';

type Target = 'json' | 'query' | 'param' | 'form' | 'header';

/** The 400 answer for a failed zod check: every issue is reported, the first one is the message. */
function validationError(issues: readonly { path: PropertyKey[]; message: string }[]): AppError {
  const details = issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
  return new AppError(400, 'validation_failed', details[0]?.message ?? 'Invalid request', details);
}

/** Said of a text holding a NUL character: no text of the app needs one, and PostgreSQL refuses to store it. */
export const NUL_MESSAGE = 'Text cannot contain the NUL character (U+0000)';

/** Where a NUL character is in a checked value: the path of the first text holding one, or null. */
function nulAt(value: unknown, at: PropertyKey[] = []): PropertyKey[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at : null;
  if (value === null || typeof value !== 'object') return null;
  for (const [key, inner] of Object.entries(value)) {
    const found = nulAt(inner, [...at, key]);
    if (found) return found;
  }
  return null;
}

/** The zod result, refused when valid but holding a NUL character, so both databases store the same texts. */
function checked<T>(result: { success: true; data: T } | { success: false; error: z.ZodError }): T {
  if (!result.success) throw validationError(result.error.issues);
  const at = nulAt(result.data);
  if (at) throw validationError([{ path: at, message: NUL_MESSAGE }]);
  return result.data;
}

/** Checks a value that did not come through `validate` (a multipart form, a synced document). */
export function parseInput<T extends ZodType>(schema: T, value: unknown): z.output<T> {
  return checked(schema.safeParse(value));
}

/** zod validation of one part of a request; every issue is reported, the first one is the message. */
export function validate<T extends ZodType, K extends Target>(target: K, schema: T) {
  return zValidator(target, schema, (result) => {
    checked(result as Parameters<typeof checked>[0]);
  });
}

/** Seconds a device waits before sending again while the database is out of reach. */
const DATABASE_RETRY_AFTER_S = 5;

/** One error handler: AppError as JSON, framework errors by status, anything else a plain 500. */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof AppError) {
    const body: ErrorBody = { code: error.code, message: error.message, details: error.details };
    return c.json(body, error.status as ContentfulStatusCode, error.headers);
  }
  if (error instanceof HTTPException) {
    const status = error.status;
    const code = status === 413 ? 'payload_too_large' : status === 401 ? 'unauthenticated' : 'bad_request';
    const message =
      status === 413
        ? 'The request is too large'
        : /json/i.test(error.message)
          ? 'The request body is not valid JSON'
          : 'Bad request';
    return c.json({ code, message } satisfies ErrorBody, status);
  }
  c.var.deps?.log.error(`${c.req.method} ${c.req.path} failed`, error);
  if (isServerLost(error)) {
    // The database went away or turned read-only (a failover): the next request finds the new primary.
    return c.json({ code: 'unavailable', message: UNAVAILABLE_MESSAGE } satisfies ErrorBody, 503, {
      'Retry-After': String(DATABASE_RETRY_AFTER_S),
    });
  }
  return c.json({ code: 'internal', message: 'Something went wrong. Please try again.' } satisfies ErrorBody, 500);
}

/** The client's address: the socket's, or the proxy's first X-Forwarded-For entry when TRUST_PROXY=true. */
export function clientIp(c: Context<AppEnv>, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a browser sent this request for another site: the Origin, when there is one, is not this app's
 * (PUBLIC_URL or the Host it was reached on), else Fetch metadata says cross-site or same-site. Clients that
 * send no Origin and no Fetch metadata are not browsers acting for a victim (curl, tests, server-to-server).
 */
function isForeignSite(c: Context<AppEnv>, allowed: string | undefined): boolean {
  const origin = c.req.header('origin');
  const site = c.req.header('sec-fetch-site');
  const host = c.req.header('host');
  const own = new Set([allowed, host && `http://${host}`, host && `https://${host}`].filter(Boolean));
  return origin ? !own.has(origin) : site === 'cross-site' || site === 'same-site';
}

const originOf = (publicUrl: string | undefined) => (publicUrl ? new URL(publicUrl).origin : undefined);

/** Refuses state-changing calls made by a browser from another site (see `isForeignSite`). */
export function sameOriginOnly(publicUrl: string | undefined): MiddlewareHandler<AppEnv> {
  const allowed = originOf(publicUrl);
  return async (c, next) => {
    if (SAFE_METHODS.has(c.req.method)) return next();
    if (isForeignSite(c, allowed)) throw new AppError(403, 'forbidden', MESSAGES.crossSite);
    return next();
  };
}

/**
 * For a read that writes the audit log (opening a resident, decision 130): a browser reading for another site (a
 * link, an `<img src>`, a form) is refused like an unsafe call, so no page elsewhere writes entries in a user's
 * name. Same-origin fetches, the user's own navigations (`Sec-Fetch-Site: none`) and clients that are not
 * browsers pass, as `sameOriginOnly` lets them.
 */
export const sameOriginRead: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (isForeignSite(c, originOf(c.var.deps.config.publicUrl))) throw new AppError(403, 'forbidden', MESSAGES.crossSite);
  return next();
};

const BODY_TYPES = /^(application\/([\w.+-]+\+)?json|multipart\/form-data)\s*(;|$)/i;

/**
 * A request body must say it is JSON or a multipart form: anything else (text/plain, a urlencoded form, XML)
 * answers 415 before it is read, rather than being parsed as JSON regardless of its type or read as an empty
 * object that fails validation with a misleading message. Requests without a body pass (logout, archive).
 */
export const jsonOrFormBodies: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (SAFE_METHODS.has(c.req.method)) return next();
  const length = c.req.header('content-length');
  const hasBody = (length !== undefined && length !== '0') || c.req.header('transfer-encoding') !== undefined;
  if (hasBody && !BODY_TYPES.test(c.req.header('content-type') ?? '')) {
    throw new AppError(415, 'unsupported_media_type', 'The request body must be JSON, or a multipart form for files.');
  }
  return next();
};

/**
 * An answer whose JSON is already encoded, with plain headers: @hono/node-server writes it in one go without
 * building a fetch Headers object, as `c.body` with a second header would (decision 76). Headers set earlier
 * with `c.header` do not reach it: only for routes whose middleware sets none.
 */
export function encodedJson(body: Uint8Array<ArrayBuffer>, headers: Record<string, string> = {}): Response {
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json', ...headers } });
}

/** A JSON body that may be left out (an empty object then); one that is there must be valid JSON. */
export async function readOptionalJson(c: Context<AppEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError(400, 'bad_request', 'The request body is not valid JSON');
  }
}
