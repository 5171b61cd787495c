import fs from 'node:fs';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { createApp } from '../app';
import type { AppDeps } from '../lib/context';

/**
 * The app served on a free port with a small built client in `clientDir` (an index.html and /assets/app.js),
 * for tests of how client files are answered. `close` stops it.
 */
export async function serveClientApp(deps: AppDeps, clientDir: string) {
  fs.mkdirSync(path.join(clientDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(clientDir, 'index.html'), '<!doctype html><title>app</title>');
  fs.writeFileSync(path.join(clientDir, 'assets', 'app.js'), 'console.log(1)');
  const server = serve({ fetch: createApp(deps, { clientDir }).fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  return {
    base: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
