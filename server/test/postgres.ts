import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const POSTGRES_SKIPPED =
  'PostgreSQL not found (set PG_BIN or install postgresql): the PostgreSQL tests are skipped';

export interface TestPostgres {
  /** postgres://… of the cluster's `postgres` database, as its superuser. */
  url: string;
  /** Stops the server and removes its folder; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The folder of PostgreSQL's binaries (initdb, pg_ctl, postgres): PG_BIN when set, else the newest of Debian's
 * /usr/lib/postgresql/<version>/bin, else `pg_config --bindir`; null when there are none (decision 152).
 */
export function findPostgresBin(where: SearchPlaces = {}): string | null {
  const { env = process.env, debian = '/usr/lib/postgresql', pgConfig = 'pg_config' } = where;
  if (env.PG_BIN) {
    if (!hasInitdb(env.PG_BIN)) throw new Error(`PG_BIN is set to ${env.PG_BIN}, which holds no initdb.`);
    return env.PG_BIN;
  }
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+(\.\d+)?$/.test(name) && hasInitdb(path.join(debian, name, 'bin')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length > 0) return path.join(debian, versions[0], 'bin');
  try {
    const bindir = execFileSync(pgConfig, ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return hasInitdb(bindir.trim()) ? bindir.trim() : null;
  } catch {
    return null; // no pg_config on the PATH
  }
}

/** Where findPostgresBin looks; tests point it elsewhere. */
export interface SearchPlaces {
  env?: NodeJS.ProcessEnv;
  /** Debian's folder of versions. */
  debian?: string;
  /** The pg_config command. */
  pgConfig?: string;
}

function hasInitdb(bin: string): boolean {
  return existsSync(path.join(bin, 'initdb'));
}

let toldSkipped = false;

/** The binaries' folder, or null after printing, once, that the PostgreSQL tests are skipped: never silent. */
export function postgresOrSkip(where: SearchPlaces = {}): string | null {
  const bin = findPostgresBin(where);
  if (bin === null && !toldSkipped) {
    toldSkipped = true;
    console.warn(POSTGRES_SKIPPED);
  }
  return bin;
}

/**
 * A throwaway PostgreSQL cluster for one test file: initdb into a fresh temporary folder, then a server on a free
 * loopback port with its socket in that folder and fsync off. As root it runs as the `postgres` user, since initdb
 * refuses root. Start one per file (beforeAll) and stop it after (afterAll).
 */
export async function startTestPostgres(bin = findPostgresBin(), nextPort = freePort): Promise<TestPostgres> {
  if (bin === null) throw new Error(POSTGRES_SKIPPED);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'staff-portal-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) chownSync(dir, ...postgresUser());
  const pg = (tool: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args]) : run(path.join(bin, tool), args);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined); // not started
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const port = await startOnFreePort(dir, nextPort, (port) => {
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
      return pg('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    });
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts the server on a port free a moment before; another process on this shared machine may take it first, so a
 * port already in use is tried again with another. Any other failure carries the end of the server's log.
 */
async function startOnFreePort(
  dir: string,
  nextPort: () => Promise<number>,
  start: (port: number) => Promise<unknown>,
): Promise<number> {
  const log = path.join(dir, 'server.log');
  for (let attempt = 1; ; attempt += 1) {
    const port = await nextPort();
    rmSync(log, { force: true });
    try {
      await start(port);
      return port;
    } catch (error) {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-10).join('\n') : '';
      if (attempt < 5 && tail.includes('Address already in use')) continue;
      throw new Error(`PostgreSQL did not start on port ${port}: ${String(error)}\n${tail}`);
    }
  }
}

/** The `postgres` system user's uid and gid, to hand it the cluster's folder. */
function postgresUser(): [number, number] {
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return [id('-u'), id('-g')];
}

/** A loopback port nothing listens on now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
