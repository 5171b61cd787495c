import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const ENTRY = path.join(import.meta.dirname, 'child-server.ts');

/** A port free right now on the loopback interface, so a restarted server can come back on the same one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** The pid recorded in the data folder's lock file (server/db/client.ts), or null without one. */
export function lockedPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'server.pid');
  return fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : null;
}

export interface ServerProcess {
  pid: number;
  url: string;
  /** Everything the process printed, for a failure report. */
  output: () => string;
  /** SIGTERM: the server closes its streams and database and removes its lock; resolves on exit. */
  stop: () => Promise<void>;
  /** SIGKILL: no cleanup at all, as a crash or an out-of-memory kill; resolves on exit. */
  kill: () => Promise<void>;
}

/**
 * Starts `server/test/child-server.ts` in a child process on a fixed port and data folder, and resolves once
 * it listens. The same port and folder can be started again after a stop or a kill. With `client` it also
 * serves the built app (dist/), for browser journeys.
 */
export function startServerProcess(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  timeoutMs = 30_000,
  { client = false }: { client?: boolean } = {},
): Promise<ServerProcess> {
  const args = ['--import', 'tsx', ENTRY, ...(client ? ['--client'] : [])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      // Tests sign admins in with a password (decision 148).
      ADMIN_TWO_FACTOR: 'optional',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/^READY \d+$/m.test(output)) {
        clearTimeout(timer);
        resolve({
          pid: child.pid!,
          url: `http://127.0.0.1:${port}`,
          output: () => output,
          stop: async () => {
            child.kill('SIGTERM');
            await exited;
          },
          kill: async () => {
            child.kill('SIGKILL');
            await exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the server exited before listening (code ${child.exitCode}):\n${output}`));
    });
  });
}
