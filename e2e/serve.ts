import fs from 'node:fs';
import path from 'node:path';
import { ensureClientBuilt } from '../server/build-client';
import { loadConfig } from '../server/config';
import { startServer } from '../server/server';
import { E2E_ADMIN, E2E_DATA_DIR } from './env';

/** The server the journeys run against: the real one, on a fresh data folder, mail to its outbox. */
async function main() {
  fs.rmSync(E2E_DATA_DIR, { recursive: true, force: true });
  await ensureClientBuilt((m) => console.log(m));
  const server = await startServer(
    loadConfig({
      PORT: process.env.E2E_PORT ?? '3100',
      HOST: '127.0.0.1',
      DATA_DIR: E2E_DATA_DIR,
      ADMIN_EMAIL: E2E_ADMIN.email,
      ADMIN_PASSWORD: E2E_ADMIN.password,
      ORG_NAME: 'Example Care Ltd',
      SUPPORT_EMAIL: 'help@care.example',
      PUBLIC_URL: `http://localhost:${process.env.E2E_PORT ?? '3100'}`,
      LOG_LEVEL: 'error',
      // Journeys sign admins in with a password; e2e/two-factor.spec.ts sets a second factor up itself (decision 148).
      ADMIN_TWO_FACTOR: 'optional',
    }),
    // A scheduled post appears within 2 s of its time rather than 30 (e2e/scheduled-posts.spec.ts).
    { publishCheckMs: 2_000 },
  );
  console.log(`e2e server on ${server.url}, data in ${path.relative(process.cwd(), E2E_DATA_DIR)}`);
  const stop = async () => {
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

void main();
