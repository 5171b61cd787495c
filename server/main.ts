import { ClientBuildError, ensureClientBuilt } from './build-client';
import { ConfigError, loadConfig } from './config';
import { assertDataDirFree, DataDirLockedError } from './db/client';
import { checkFileStorage, StorageError } from './lib/storage';
import { startServer } from './server';

/** `npm start`: check settings, build the client when needed, then serve app and API from one process. */
async function main(): Promise<void> {
  const config = loadConfig();
  assertDataDirFree(config.dataDir);
  await checkFileStorage(config);
  await ensureClientBuilt((m) => console.log(m));
  const server = await startServer(config);
  console.log(`Staff Portal is running at ${server.url} (data in ${config.dataDir})`);
  const stop = async (signal: string) => {
    console.log(`${signal} received, closing...`);
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigError ||
    error instanceof DataDirLockedError ||
    error instanceof ClientBuildError ||
    error instanceof StorageError
  ) {
    console.error(error.message);
  } else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(`The port is already in use. Stop the other program or set PORT to a free port.`);
  } else {
    console.error('Staff Portal could not start:', error);
  }
  process.exit(1);
});
