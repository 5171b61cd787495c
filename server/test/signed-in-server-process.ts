import fs from 'node:fs';
import { loadConfig } from '../config';
import { closeDb, openDatabase } from '../db/client';
import { SESSION_COOKIE } from '../features/auth/auth.middleware';
import { databaseFile } from '../server';
import { testDatabase } from './postgres-suite';
import { insertSignedInUser } from './ready-sessions';
import { freePort, startServerProcess, type ServerProcess } from './server-process';

/** The process's resident memory now and its peak so far, in MB (Linux /proc). */
export function processMemory(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/**
 * A server in its own process (so that its memory can be read from /proc) on a fresh data folder, and on the
 * PostgreSQL pass of the suite a fresh database of its own (decision 157), with one signed-in user made before it
 * starts; answers the server, that user's cookie, and `close`, which stops the server and drops that database.
 */
export async function startSignedInServerProcess(
  dataDir: string,
  user: Parameters<typeof insertSignedInUser>[1],
): Promise<{ server: ServerProcess; cookie: string; close: () => Promise<void> }> {
  const postgres = await testDatabase();
  try {
    const db = await openDatabase({
      databaseUrl: postgres?.url,
      file: databaseFile(loadConfig({ DATA_DIR: dataDir })),
    });
    const { token } = await insertSignedInUser(db, user);
    await closeDb(db);
    const server = await startServerProcess(dataDir, await freePort(), postgres ? { DATABASE_URL: postgres.url } : {});
    const close = async () => {
      await server.stop();
      await postgres?.drop();
    };
    return { server, cookie: `${SESSION_COOKIE}=${token}`, close };
  } catch (error) {
    await postgres?.drop();
    throw error;
  }
}
