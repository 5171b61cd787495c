/**
 * A real server in its own process, for tests that must kill it (sync chaos: SIGKILL mid-run). It reads the
 * usual settings from the environment (DATA_DIR, PORT...), serves no client build, prints `listening <port>`
 * once ready, and closes gracefully on SIGTERM as `npm start` does.
 */
import path from 'node:path';
import { loadConfig } from '../config';
import { startServer } from '../server';

const config = loadConfig();
const server = await startServer(config, { clientDir: path.join(config.dataDir, 'no-client') });
console.log(`listening ${server.port}`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
