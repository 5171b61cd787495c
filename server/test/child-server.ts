/**
 * The real server in a process of its own, as `npm start` runs it but without building the client: tests that
 * kill the process (SIGKILL) start it with `node --import tsx server/test/child-server.ts` and DATA_DIR/PORT in
 * the environment. Prints `READY <port>` once it listens. With `--client` it serves the built app as well.
 */
import path from 'node:path';
import { loadConfig } from '../config';
import { assertDataDirFree } from '../db/client';
import { startServer } from '../server';

// Tests sign admins in with a password; the environment may still ask for the requirement (decision 148).
const config = loadConfig({ ADMIN_TWO_FACTOR: 'optional', ...process.env });
assertDataDirFree(config.dataDir);
// Without --client it never looks for dist/, so vitest runs need no client build.
const clientDir = process.argv.includes('--client') ? undefined : path.join(config.dataDir, 'no-client');
const server = await startServer(config, { clientDir });
console.log(`READY ${server.port}`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
