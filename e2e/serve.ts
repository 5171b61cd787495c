import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ensureClientBuilt } from '../server/build-client';
import { loadConfig } from '../server/config';
import { startServer } from '../server/server';
import { CLIENT_DIR } from '../server/lib/paths';
import { E2E_ADMIN, E2E_BASE_PORT, E2E_CLIENT_DIR, E2E_CLOCK_PORT_FILE, E2E_DATA_DIR, E2E_SERVER_INDEX } from './env';

/**
 * The journeys' clock control, on a port of its own that only this script opens, so nothing of it is in the app:
 * `PUT /offset?ms=N` sets how far the server's clock runs ahead of the real one (e2e/support/server-clock.ts).
 */
function startClockControl(setOffset: (ms: number) => void): Promise<http.Server> {
  const control = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const ms = Number(url.searchParams.get('ms'));
    if (req.method !== 'PUT' || url.pathname !== '/offset' || !Number.isSafeInteger(ms) || ms < 0) {
      res.writeHead(400).end('PUT /offset?ms=<whole milliseconds, 0 or more>');
      return;
    }
    setOffset(ms);
    res.writeHead(204).end();
  });
  return new Promise((resolve) => control.listen(0, '127.0.0.1', () => resolve(control)));
}

/** The server the journeys run against: the real one, on a fresh data folder, mail to its outbox. */
async function main() {
  fs.rmSync(E2E_DATA_DIR, { recursive: true, force: true });
  await ensureClientBuilt((m) => console.log(m));
  fs.rmSync(E2E_CLIENT_DIR, { recursive: true, force: true });
  fs.cpSync(CLIENT_DIR, E2E_CLIENT_DIR, { recursive: true });
  let clockOffsetMs = 0;
  const port = String(E2E_BASE_PORT + E2E_SERVER_INDEX);
  const server = await startServer(
    loadConfig({
      PORT: port,
      HOST: '127.0.0.1',
      DATA_DIR: E2E_DATA_DIR,
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      ORG_NAME: 'Example Care Ltd',
      SUPPORT_EMAIL: 'help@care.example',
      PUBLIC_URL: `http://localhost:${port}`,
      LOG_LEVEL: 'error',
      // Journeys sign admins in with a password; e2e/two-factor.spec.ts sets a second factor up itself (decision 148).
      ADMIN_TWO_FACTOR: 'optional',
    }),
    {
      now: () => Date.now() + clockOffsetMs,
      clientDir: E2E_CLIENT_DIR,
      // A scheduled post appears within 2 s of its time rather than 30 (e2e/scheduled-posts.spec.ts).
      publishCheckMs: 2_000,
      // Access ends within a second of the moved clock's passing it rather than a minute (e2e/agency-access.spec.ts).
      accessCheckMs: 1_000,
    },
  );
  const control = await startClockControl((ms) => (clockOffsetMs = ms));
  const address = control.address();
  fs.writeFileSync(E2E_CLOCK_PORT_FILE, String(typeof address === 'object' && address ? address.port : ''));
  console.log(`e2e server on ${server.url}, data in ${path.relative(process.cwd(), E2E_DATA_DIR)}`);
  const stop = async () => {
    control.close();
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

void main();
