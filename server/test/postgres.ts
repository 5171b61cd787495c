import { execFile, execFileSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
  /** The cluster's data folder (PGDATA). */
  dataDir: string;
  /** The folder of its Unix socket. */
  socketDir: string;
  port: number;
  /** Stops the server and removes its folder; safe to call twice. */
  stop(): Promise<void>;
}

/** How a throwaway cluster differs from a plain one. */
export interface ClusterOptions {
  /** Settings appended to its postgresql.conf before it starts (WAL archiving, for one). */
  settings?: Record<string, string>;
  /** Fills the data folder instead of initdb (a restore from a backup, for one), through runAsClusterUser. */
  create?: (dataDir: string) => Promise<unknown>;
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
 * A throwaway PostgreSQL cluster for one test file: initdb (or `options.create`) into a fresh temporary folder, then a
 * server on a free loopback port with its socket in that folder and fsync off. As root it runs as the `postgres` user,
 * since initdb refuses root. Start one per file (beforeAll) and stop it after (afterAll).
 */
export async function startTestPostgres(
  bin = findPostgresBin(),
  nextPort = freePort,
  { settings = {}, create }: ClusterOptions = {},
): Promise<TestPostgres> {
  if (bin === null) throw new Error(POSTGRES_SKIPPED);
  const dir = clusterTempDir('staff-portal-pg-');
  const data = path.join(dir, 'data');
  const pg = (tool: string, args: string[]) => runAsClusterUser(path.join(bin, tool), args);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined); // not started
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (create) await create(data);
    else await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
    const lines = Object.entries(settings).map(([name, value]) => `${name} = '${value.replaceAll("'", "''")}'\n`);
    // Appending keeps the file's owner, the cluster's user.
    if (lines.length > 0) appendFileSync(path.join(data, 'postgresql.conf'), lines.join(''));
    const port = await startOnFreePort(dir, nextPort, (port) => {
      const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
      return pg('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-o', options, '-w', '-t', '60', 'start']);
    });
    return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dataDir: data, socketDir: dir, port, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs a command as the throwaway clusters' OS user: `postgres` under root (initdb refuses root), else this one. */
export function runAsClusterUser(command: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', command, ...args]) : run(command, args);
}

/** A fresh temporary folder the clusters' OS user owns, for a cluster or what its tools write. */
export function clusterTempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  if (process.getuid?.() === 0) chownSync(dir, ...postgresUser());
  return dir;
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
