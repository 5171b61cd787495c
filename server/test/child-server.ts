/**
 * The real server in a process of its own, as `npm start` runs it but without building the client: tests that
 * kill the process (SIGKILL) start it with `node --import tsx server/test/child-server.ts` and DATA_DIR/PORT in
 * the environment. Prints `READY <port>` once it listens.
 */
import path from 'node:path';
import { loadConfig } from '../config';
import { assertDataDirFree } from '../db/client';
import { startServer } from '../server';

const config = loadConfig();
assertDataDirFree(config.dataDir);
const server = await startServer(config, { clientDir: path.join(config.dataDir, 'no-client') });
console.log(`READY ${server.port}`);
process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
