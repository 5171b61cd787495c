import fs from 'node:fs';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { PROFILE_PICTURE_MESSAGES } from '../schema/profile-picture';
import { adminRoutes } from './features/admin/admin.routes';
import { alertRoutes } from './features/alerts/alerts.routes';
import { confirmationRoutes } from './features/confirmations/confirmations.routes';
import { auditRoutes } from './features/audit/audit.routes';
import { currentUserOrNull } from './features/auth/auth.middleware';
import { authRoutes } from './features/auth/auth.routes';
import { oidcRoutes } from './features/auth/oidc.routes';

import { twoFactorRoutes } from './features/auth/two-factor.routes';
import { passkeyRoutes } from './features/auth/passkeys.routes';
import { chatRoutes } from './features/chat/chat.routes';
import { commentRoutes } from './features/comments/comments.routes';
import { configRoutes } from './features/config/config.routes';
import { postRoutes } from './features/posts/posts.routes';
import { pushRoutes } from './features/push/push.routes';
import { reactionRoutes } from './features/reactions/reactions.routes';
import { suggestionRoutes } from './features/suggestions/suggestions.routes';
import { residentRoutes } from './features/residents/residents.routes';
import { handoverRoutes } from './features/handovers/handovers.routes';
import { syncRoutes } from './features/sync/sync.routes';
import { uploadRoutes } from './features/uploads/uploads.routes';
import { keptRoutes } from './features/kept/kept.routes';
import { SIGNED_IN_PAGE } from './build-client';
import type { AppDeps, AppEnv } from './lib/context';
import { AppError, notFound } from './lib/errors';
import { clientIp, handleError, jsonOrFormBodies, sameOriginOnly } from './lib/http';
import { FORM_LIMITS, isMultipart, removeFormFiles, type FormLimits } from './lib/multipart';
import { CLIENT_DIR } from './lib/paths';
import { presetHeaders, securityHeaderList } from './lib/security-headers';

/** JSON bodies are small; sync pushes get a larger limit, and multipart forms their own (decisions 16 and 127). */
const JSON_BODY_LIMIT = 1024 * 1024;
/** 100 pushed rows, each two documents of up to 10,000 characters. */
const SYNC_PUSH_BODY_LIMIT = 10 * 1024 * 1024;

/** The body limit of a request that is not a form: only sync pushes may exceed the JSON limit. */
function bodyLimitFor(c: Context<AppEnv>): number {
  if (c.req.method === 'POST' && /^\/api\/sync\/[a-zA-Z]+\/push$/.test(c.req.path)) return SYNC_PUSH_BODY_LIMIT;
  return JSON_BODY_LIMIT;
}

/** The limits of a multipart form sent to a route that reads one; null for any other request. */
function formLimitsFor(c: Context<AppEnv>): FormLimits | null {
  if (!isMultipart(c)) return null;
  const { path } = c.req;
  if (/^\/api\/residents(\/[^/]+)?$/.test(path) && ['POST', 'PUT'].includes(c.req.method)) {
    return FORM_LIMITS.resident;
  }
  if (c.req.method !== 'POST') return null;
  if (path === '/api/uploads') return FORM_LIMITS.upload;
  if (path === '/api/posts') return FORM_LIMITS.post;
  if (path === '/api/auth/profile-picture') return FORM_LIMITS.profilePicture;
  return null;
}

/** A declared length over the limit is refused before a byte of the body is read. */
function declaredOver(c: Context<AppEnv>, maxBytes: number): boolean {
  const length = c.req.header('content-length');
  return length !== undefined && Number(length) > maxBytes;
}

const hasNoBody = (c: Context<AppEnv>) => c.req.method === 'GET' || c.req.method === 'HEAD';

/** Answered before the body is read: the connection is closed so the unread rest cannot be mistaken for a request. */
const tooLarge = (): never => {
  throw new AppError(413, 'payload_too_large', 'The request is too large', undefined, { Connection: 'close' });
};

/** A picture over the limit gets the text of docs/behaviour.md, "Profile and files", before its body is read. */
const pictureTooLarge = (): never => {
  throw new AppError(413, 'payload_too_large', PROFILE_PICTURE_MESSAGES.tooLarge, undefined, { Connection: 'close' });
};

/** Builds the whole app (API and client) around its dependencies, so each test gets a fresh one. */
export function createApp(deps: AppDeps, options: { clientDir?: string } = {}) {
  const clientDir = options.clientDir ?? CLIENT_DIR;
  const app = new Hono<AppEnv>();
  app.onError(handleError);
  app.use(async (c, next) => {
    c.set('deps', deps);
    c.set('db', deps.db);
    c.set('ip', clientIp(c, deps.config.trustProxy));
    await next();
  });
  app.use(presetHeaders(securityHeaderList({ secure: deps.config.secure })));

  const api = new Hono<AppEnv>();
  // API answers are never stored; the few that may be (uploaded files, the placeholder picture) say so themselves.
  api.use(presetHeaders([['Cache-Control', 'no-store']]));
  // No id or file name holds a NUL, and PostgreSQL refuses one in text outright: such a path names nothing.
  api.use((c, next) => (/%00/.test(new URL(c.req.url).pathname) ? notFound() : next()));
  api.use(sameOriginOnly(deps.config.publicUrl));
  api.use(jsonOrFormBodies);
  const limits = new Map(
    [JSON_BODY_LIMIT, SYNC_PUSH_BODY_LIMIT].map((maxSize) => [maxSize, bodyLimit({ maxSize, onError: tooLarge })]),
  );
  // A GET or HEAD has no body to limit; asking for one would build a whole fetch Request on every read. A form is
  // counted as it is read (server/lib/multipart.ts): hono's limit would hold a body without a length in memory.
  api.use((c, next) => {
    if (hasNoBody(c)) return next();
    const form = formLimitsFor(c);
    if (!form) return limits.get(bodyLimitFor(c))!(c, next);
    if (!declaredOver(c, form.maxBytes)) return next();
    return form === FORM_LIMITS.profilePicture ? pictureTooLarge() : tooLarge();
  });
  api.use(removeFormFiles);
  api.route('/', configRoutes);
  api.route('/', authRoutes);
  api.route('/', oidcRoutes);

  api.route('/', twoFactorRoutes);
  api.route('/', passkeyRoutes);
  api.route('/', adminRoutes);
  api.route('/', auditRoutes);
  api.route('/', suggestionRoutes);
  api.route('/', postRoutes);
  api.route('/', commentRoutes);
  api.route('/', reactionRoutes);
  api.route('/', uploadRoutes);
  api.route('/', alertRoutes);
  api.route('/', confirmationRoutes);
  api.route('/', chatRoutes);
  api.route('/', pushRoutes);
  api.route('/', residentRoutes);
  api.route('/', handoverRoutes);
  api.route('/', syncRoutes);
  api.route('/', keptRoutes);
  api.all('*', () => notFound('No such API call'));
  app.route('/api', api);

  if (fs.existsSync(path.join(clientDir, 'index.html'))) {
    const root = path.relative(process.cwd(), clientDir) || '.';
    app.use(
      '/assets/*',
      async (c, next) => {
        await next();
        if (c.res.ok) c.header('Cache-Control', 'public, max-age=31536000, immutable');
      },
      serveStatic({ root, precompressed: true }),
      // A missing script is not the app's page: that answer would be kept for a year under the script's name.
      async (c) => c.text('Not found', 404, { 'Cache-Control': 'no-store' }),
    );
    // "/" for a signed-in user: the page that asks for the feed's code and first pages at once (decision 111). The
    // answer depends on the session, so no cache may give one user's page to a request without it.
    if (fs.existsSync(path.join(clientDir, SIGNED_IN_PAGE))) {
      const signedInPage = serveStatic({ root, precompressed: true, rewriteRequestPath: () => `/${SIGNED_IN_PAGE}` });
      app.get('/', async (c, next) => {
        c.header('Cache-Control', 'no-cache');
        c.header('Vary', 'Cookie');
        return (await currentUserOrNull(c)) ? signedInPage(c, next) : next();
      });
    }
    app.use('*', serveStatic({ root, precompressed: true }));
    const indexHtml = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
    app.get('*', (c) => {
      c.header('Cache-Control', 'no-cache');
      return c.html(indexHtml);
    });
  }
  return app;
}
