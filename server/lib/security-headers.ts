import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './context';

/** The Content-Security-Policy of the app and the API: same-origin everything, no framing, no plugins. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "frame-ancestors 'none'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/**
 * The security headers of every answer, written out once: the same values Hono's secureHeaders middleware
 * produced with our options (decision 76). Strict-Transport-Security only when the server is reached over HTTPS.
 */
export function securityHeaderList(options: { secure: boolean }): [name: string, value: string][] {
  return [
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Origin-Agent-Cluster', '?1'],
    ['Referrer-Policy', 'no-referrer'],
    ...(options.secure
      ? [['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'] as [string, string]]
      : []),
    ['X-Content-Type-Options', 'nosniff'],
    ['X-DNS-Prefetch-Control', 'off'],
    ['X-Download-Options', 'noopen'],
    ['X-Frame-Options', 'DENY'],
    ['X-Permitted-Cross-Domain-Policies', 'none'],
    ['X-XSS-Protection', '0'],
    ['Content-Security-Policy', CSP],
    ['Permissions-Policy', 'camera=(), microphone=(), geolocation=()'],
  ];
}

/**
 * Gives every answer these headers unless the answer sets the same header itself (an uploaded file's
 * sandboxing CSP, a route's own Cache-Control). They go straight onto Node's response before the handler
 * runs: Node merges them into the head it writes, and a header of the answer wins. Setting them on the
 * finished fetch Response instead built an undici Headers object and checked and copied every header on
 * every request, a tenth of a signed-in GET's time (decision 76). Without Node's response (app.request in
 * a test) they are added to the finished answer.
 */
export function presetHeaders(list: readonly (readonly [string, string])[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const outgoing = (c.env as AppEnv['Bindings'] | undefined)?.outgoing; // undefined outside @hono/node-server
    if (outgoing) {
      for (const [name, value] of list) outgoing.setHeader(name, value);
      return next();
    }
    await next();
    for (const [name, value] of list) if (!c.res.headers.has(name)) c.res.headers.set(name, value);
  };
}
