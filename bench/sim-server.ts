/**
 * The server of the delivery and active-load benches, in a process of its own so the simulated devices do not share
 * its event loop: a seeded feed (bench/seed.ts), a ready session per user (no sign-in cost), then the real server.
 * On PostgreSQL the same SQLite database, sessions included, is seeded first and copied in by `npm run
 * migrate-to-postgres` (decision 154), so both engines serve the same rows; a second server on that database joins
 * it without seeding.
 * Run as a child: node --import tsx bench/sim-server.ts <data dir> <users> <announce|delivery> <seed|join>, with
 * DATABASE_URL set for PostgreSQL.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { loadConfig } from '../server/config';
import { closeDb, openDb, statement, transaction } from '../server/db/client';
import { databaseFile, startServer } from '../server/server';
import { insertReadySession } from '../server/test/ready-sessions';
import { tempDir } from './bench-report';
import { SimDevice, waitUntil, type SimDeviceOptions } from './sim-device';
import { buildDatabase } from './seed';

/** `announce`: today's events and pulls (SYNC_DELIVERY=announce, the baseline); `delivery`: the server's default. */
export const SYNC_MODES = ['announce', 'delivery'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export interface BenchUser {
  id: string;
  token: string;
}

/** What a seeding server tells the bench of its database; a joining one tells its port only. */
type Seeded = Pick<ServerProcess, 'users' | 'seq' | 'posts'>;
type Ready = Partial<Seeded> & { port: number };

/** Where a bench server keeps its data: SQLite in its own data folder, or one PostgreSQL database (DATABASE_URL). */
export type BenchDatabase = { engine: 'sqlite' } | { engine: 'postgres'; url: string };

export interface ServerOptions {
  database?: BenchDatabase;
  /** A server already serving the same PostgreSQL database: this one seeds nothing and shares its users. */
  joining?: ServerProcess;
}

export interface ServerProcess {
  base: string;
  pid: number;
  users: BenchUser[];
  /** The sync sequence once seeded: every device starts as one that had synced up to it. */
  seq: number;
  /** The newest posts of the seeded feed, newest first. */
  posts: string[];
  /** Stops the server process and resolves once it has exited, so the next run has the machine to itself. */
  stop: () => Promise<void>;
}

/** Posts, reactions and comments per user in the seeded feed, so pulls run against a feed of a realistic size. */
const FEED_PER_USER = { posts: 0.4, reactions: 1.2, comments: 0.8 };

/** Builds the seeded SQLite database with a ready session per user, and reads what the devices need of it. */
async function seedDatabase(file: string, count: number): Promise<Seeded> {
  await buildDatabase(
    file,
    {
      users: count,
      posts: Math.round(count * FEED_PER_USER.posts),
      reactions: Math.round(count * FEED_PER_USER.reactions),
      comments: Math.round(count * FEED_PER_USER.comments),
    },
    'Bench!Passw0rd',
  );
  const db = openDb(file);
  // Seeded in this order (bench/seed.ts): the first is the system administrator, the next nineteen admins.
  const ids = await statement(db, 'SELECT id FROM users ORDER BY server_seq').pluck<string>();
  const now = Date.now();
  const users = await transaction(db, async (db) => {
    const ready: { id: string; token: string }[] = [];
    for (const id of ids) ready.push({ id, token: await insertReadySession(db, id, now) });
    return ready;
  });
  // The single row of the sync counter (docs/sync.md).
  const seq = ((await statement(db, 'SELECT seq FROM sync_counter WHERE id = 1').get()) as { seq: number }).seq;
  // Rows of the posts table, read for their id only.
  const posts = await statement(
    db,
    'SELECT id FROM posts WHERE deleted = 0 ORDER BY created_at DESC LIMIT 50',
  ).pluck<string>();
  await closeDb(db);
  return { users, seq, posts };
}

/** Copies the data folder's SQLite database into PostgreSQL as an operator would: `npm run migrate-to-postgres`. */
async function copyToPostgres(dataDir: string, url: string): Promise<void> {
  const launch = path.join(import.meta.dirname, '..', 'scripts', 'launch.js');
  const child = spawn(process.execPath, [launch, 'migrate-to-postgres', url], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`npm run migrate-to-postgres failed (${code}):\n${output}`);
}

async function serve(dataDir: string, count: number, mode: SyncMode, seed: boolean): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    // Benches measure sync with admins signed in by password (decision 148).
    ADMIN_TWO_FACTOR: 'optional',
    ...(mode === 'announce' ? { SYNC_DELIVERY: 'announce' } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const file = databaseFile(config);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let seeded: Seeded | undefined;
  if (seed) {
    // One path for both engines: the sessions are in the SQLite database before the copy, which carries them.
    seeded = await seedDatabase(file, count);
    if (databaseUrl) await copyToPostgres(dataDir, databaseUrl);
  }
  const server = await startServer(config, { clientDir: path.join(dataDir, 'no-client') });
  // A saturated server (the announce baseline's) may take long to close its streams: it exits within 2 s anyway.
  const stop = () => {
    setTimeout(() => process.exit(0), 2000).unref();
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.stdin.once('close', stop).resume();
  console.log(`READY ${JSON.stringify({ port: server.port, ...seeded })}`);
}

/**
 * Starts the server process on a fresh data folder and waits until it listens: on SQLite by default, on PostgreSQL
 * with `database`, seeded unless it is `joining` a server already on that database.
 */
export async function startServerProcess(
  users: number,
  mode: SyncMode,
  { database = { engine: 'sqlite' }, joining }: ServerOptions = {},
): Promise<ServerProcess> {
  if (joining && database.engine !== 'postgres') throw new Error('Only servers on PostgreSQL share a database');
  const dataDir = tempDir('sp-bench-sim-');
  // BENCH_SERVER_FLAGS gives the server's Node flags, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" for a profile.
  const flags = process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [];
  // A DATABASE_URL of the bench's own environment never moves a SQLite bench server to PostgreSQL.
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: undefined };
  if (database.engine === 'postgres') env.DATABASE_URL = database.url;
  const child: ChildProcess = spawn(
    process.execPath,
    [...process.execArgv, ...flags, import.meta.filename, dataDir, String(users), mode, joining ? 'join' : 'seed'],
    { stdio: ['pipe', 'pipe', 'inherit'], env },
  );
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server process stopped (${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      // The READY line is this file's own output (serve above).
      if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)) as Ready);
      else console.log(`  server: ${line}`);
    });
  });
  const seeded: Seeded = joining ?? { users: ready.users ?? [], seq: ready.seq ?? 0, posts: ready.posts ?? [] };
  return {
    base: `http://127.0.0.1:${ready.port}`,
    pid: child.pid!,
    users: seeded.users,
    seq: seeded.seq,
    posts: seeded.posts,
    stop: () => {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
      return exited.finally(() => clearTimeout(killer));
    },
  };
}

/**
 * Runs one mode with its devices in a fresh process (the bench's file `file`, given the mode): the baseline's 5,000
 * devices leave no garbage, sockets or timers behind to slow the next mode's devices. The file calls `benchEntry`.
 */
export function runModeApart<T>(file: string, mode: string): Promise<T> {
  const child = spawn(process.execPath, [...process.execArgv, file, mode], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Structured clone carries an outcome's maps.
    serialization: 'advanced',
  });
  return new Promise((resolve, reject) => {
    child.once('message', (outcome) => resolve(outcome as T));
    child.once('exit', (code) =>
      reject(new Error(`the ${mode} devices' process stopped (${code}) without an outcome`)),
    );
  });
}

/**
 * A bench's entry whose modes run apart: given one of `modes`, runs it and sends its outcome to the bench's process;
 * otherwise runs `main`.
 */
export function benchEntry<M extends string, T>(
  modes: readonly M[],
  runMode: (mode: M) => Promise<T>,
  main: () => Promise<void>,
): void {
  const mode = modes.find((m) => m === process.argv[2]);
  const apart = async (m: M) => {
    const outcome = await runMode(m);
    await new Promise<void>((resolve, reject) =>
      process.send!(outcome, (error: Error | null) => (error ? reject(error) : resolve())),
    );
  };
  (mode === undefined ? main() : apart(mode)).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * CPU time (user + system) a process has used, in ms, from /proc/<pid>/stat (fields 14 and 15); with `reaped`, that of
 * its children it has waited for too (fields 16 and 17).
 */
export function cpuMs(pid: number, reaped = false): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name, in parentheses, may hold spaces: count the fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = [11, 12, ...(reaped ? [13, 14] : [])].reduce((sum, i) => sum + Number(fields[i]), 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/** The processes whose parent is `pid` (field 4 of /proc/<pid>/stat); one that ends while they are read is left out. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(name));
    } catch {
      // it ended between the listing and the read
    }
  }
  return children;
}

/** The machine's busy CPU time (every core, all but idle and iowait), in ms, from the first line of /proc/stat. */
export function machineBusyMs(): number {
  const [, user, nice, system, , , irq, softirq, steal] = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICKS_PER_SECOND;
}

export function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** A small seeded generator (mulberry32), so every run picks the same pairs. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Connects devices until `count` are connected, in groups whose first pulls end before the next group connects (as
 * phones come and go); each starts as a device that had synced up to the seeded feed. Given several servers on one
 * database, device i connects to server i modulo their number, as a load balancer would spread them.
 */
export async function connectDevices(
  to: ServerProcess | readonly ServerProcess[],
  devices: SimDevice[],
  count: number,
  optionsOf: (
    user: BenchUser,
    index: number,
  ) => Pick<SimDeviceOptions, 'collections' | 'keysOf' | 'onCall' | 'deviceId'>,
): Promise<void> {
  const GROUP = 250;
  const servers = 'base' in to ? [to] : to;
  const [server] = servers;
  while (devices.length < count) {
    const group = server.users.slice(devices.length, Math.min(count, devices.length + GROUP)).map(
      (user, i) =>
        new SimDevice({
          base: servers[(devices.length + i) % servers.length].base,
          token: user.token,
          checkpoint: { seq: server.seq, id: '~', before: null },
          ...optionsOf(user, devices.length + i),
        }),
    );
    group.forEach((device) => device.connect());
    await Promise.all(group.map((device) => device.synced));
    devices.push(...group);
  }
  await waitUntil(() => devices.every((d) => d.idle()), 120_000, 'the first pulls');
}

if (process.argv[1] === import.meta.filename) {
  const [dataDir, count, mode, seed] = process.argv.slice(2);
  serve(dataDir, Number(count), mode === 'announce' ? 'announce' : 'delivery', seed !== 'join').catch(
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
