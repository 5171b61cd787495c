import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureClientBuilt } from '../../server/build-client';
import { freePort, startServerProcess, type ServerProcess } from '../../server/test/server-process';
import { E2E_ADMIN } from '../env';

/**
 * The real server, with the built app, in a process of its own on its own port and data folder: the suite's
 * server (playwright.config.ts `webServer`) must outlive every journey, so a journey that kills one uses this.
 */
export interface KillableServer {
  /** The app's address; give it to the journey's context as `baseURL`. */
  baseURL: string;
  /** The server's own data folder (its database is `staff-portal.db` there). */
  dataDir: string;
  /** SIGKILL: no cleanup at all, as a crash or an out-of-memory kill; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful stop that closes streams and the database; resolves once the process is gone. */
  stop(): Promise<void>;
  /** Starts the server again on the same port and data folder (stopping it first if it still runs). */
  restart(): Promise<void>;
  /** Stops the server if it runs and removes its data folder. */
  close(): Promise<void>;
}

/** Starts a killable server signed in by `E2E_ADMIN`; `env` adds or overrides server settings (README). */
export async function startKillableServer(env: Record<string, string> = {}): Promise<KillableServer> {
  await ensureClientBuilt((message) => console.log(message));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-killable-server-'));
  const port = await freePort();
  const baseURL = `http://localhost:${port}`;
  const settings = {
    ADMIN_EMAIL: E2E_ADMIN.email,
    ADMIN_PASSWORD: E2E_ADMIN.password,
    // The Origin check compares against it, so it must be the address the browser uses.
    PUBLIC_URL: baseURL,
    ...env,
  };
  const start = () => startServerProcess(dataDir, port, settings, 60_000, { client: true });
  let running: ServerProcess | null = await start();
  const end = async (how: 'kill' | 'stop') => {
    const server = running;
    running = null;
    if (server) await server[how]();
  };
  return {
    baseURL,
    dataDir,
    kill: () => end('kill'),
    stop: () => end('stop'),
    async restart() {
      await end('stop');
      running = await start();
    },
    async close() {
      await end('stop');
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
