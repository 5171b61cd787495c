import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import { adminRoutes } from './features/admin/admin.routes';
import { authRoutes } from './features/auth/auth.routes';
import { configRoutes } from './features/config/config.routes';
import type { AppDeps, AppEnv } from './lib/context';
import { AppError, notFound } from './lib/errors';
import { clientIp, handleError, sameOriginOnly } from './lib/http';

export const CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** JSON bodies are small; uploads (later issues) set their own, larger limit. */
const JSON_BODY_LIMIT = 1024 * 1024;

const CSP = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:', 'blob:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  workerSrc: ["'self'"],
  manifestSrc: ["'self'"],
  frameAncestors: ["'none'"],
  objectSrc: ["'none'"],
  baseUri: ["'self'"],
  formAction: ["'self'"],
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
  app.use(
    secureHeaders({
      contentSecurityPolicy: CSP,
      strictTransportSecurity: deps.config.secure ? 'max-age=31536000; includeSubDomains' : false,
      referrerPolicy: 'no-referrer',
      xFrameOptions: 'DENY',
      crossOriginEmbedderPolicy: false,
      permissionsPolicy: { camera: [], microphone: [], geolocation: [] },
    }),
  );

  const api = new Hono<AppEnv>();
  api.use(async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  api.use(sameOriginOnly(deps.config.publicUrl));
  api.use(
    bodyLimit({
      maxSize: JSON_BODY_LIMIT,
      onError: () => {
        throw new AppError(413, 'payload_too_large', 'The request is too large');
      },
    }),
  );
  api.route('/', configRoutes);
  api.route('/', authRoutes);
  api.route('/', adminRoutes);
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
      serveStatic({ root }),
    );
    app.use('*', serveStatic({ root }));
    const indexHtml = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
    app.get('*', (c) => {
      c.header('Cache-Control', 'no-cache');
      return c.html(indexHtml);
    });
  }
  return app;
}
