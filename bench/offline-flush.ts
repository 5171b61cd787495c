/**
 * Figure (Measured): 200 posts and comments made offline reach the server within 5 s of reconnecting;
 * 0 lost, 0 duplicated. Two replication clients (RxDB on fake-indexeddb, the app's own `startSync`) against the
 * real server over HTTP on 127.0.0.1: the writer goes offline, makes the 200 items, comes back online; we time
 * until the server holds all 200 and until the second client shows all 200, and count them by id.
 * Baseline: a periodic offline pending check every 5 s.
 *
 * Run: node --import tsx bench/offline-flush.ts
 */
import 'fake-indexeddb/auto';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { firstValueFrom, filter } from 'rxjs';
import { addRxPlugin, createRxDatabase } from 'rxdb';
import { RxDBMigrationSchemaPlugin } from 'rxdb/plugins/migration-schema';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import type { SyncCollection } from '../schema/sync';
import { loadConfig } from '../server/config';
import { closeDb, openDb } from '../server/db/client';
import { insertUser } from '../server/features/users/users.queries';
import { hashPassword } from '../server/lib/crypto';
import { databaseFile, startServer } from '../server/server';
import { SYNCED_COLLECTIONS, type SyncedCollections } from '../src/db/collections';
import { startSync, type SyncController } from '../src/db/replication';
import { machine, printFigure, printMachine, round, tempDir, verdict } from './bench-report';

const ITEMS = 200; // half posts, half comments, interleaved
const ROUNDS = 3;
const TARGET_MS = 5000;
/** A periodic pending check every 5 s would take up to that long to flush. */
const BASELINE_MS = 5000;
const GIVE_UP_MS = 60_000;
const PASSWORD = 'Bench!Passw0rd';

/**
 * The browser's connectivity signals, which RxDB and the app listen to: `navigator.onLine`, and an `online`
 * event on the window. Node has neither, so without them a failed push would only be retried on its timer.
 */
const connectivity = new EventTarget();
const browserNavigator = { onLine: true };
Object.assign(globalThis, {
  window: globalThis,
  addEventListener: connectivity.addEventListener.bind(connectivity),
  removeEventListener: connectivity.removeEventListener.bind(connectivity),
});
Object.defineProperty(globalThis, 'navigator', { value: browserNavigator, configurable: true });

// As src/db/database.ts: collections whose schema version went up migrate stored documents on open.
addRxPlugin(RxDBMigrationSchemaPlugin);

/**
 * The app's synced database as production opens it (src/db/database.ts without its development-only schema
 * checks, whose `import.meta.env` only exists under Vite).
 */
async function openLocalDatabase() {
  const db = await createRxDatabase<SyncedCollections>({
    name: `sp_bench_${randomUUID().replace(/-/g, '')}`,
    storage: getRxStorageDexie({ indexedDB, IDBKeyRange }),
    multiInstance: false,
    eventReduce: true,
  });
  // The feed's collections only: the free RxDB opens at most 13 collections per process, and two phones run here.
  await db.addCollections({
    users: SYNCED_COLLECTIONS.users,
    posts: SYNCED_COLLECTIONS.posts,
    comments: SYNCED_COLLECTIONS.comments,
    reactions: SYNCED_COLLECTIONS.reactions,
  });
  return db;
}

/** One phone: a signed-in session, its local database, the app's replication with its default settings. */
async function makeDevice(base: string, account: Account) {
  const login = await fetch(`${base}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: account.email, password: PASSWORD }),
  });
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('sp_session='));
  if (login.status !== 200 || !cookie) throw new Error(`sign-in failed: ${login.status}`);
  const db = await openLocalDatabase();
  const device = {
    userId: account.id,
    db,
    online: true,
    /** Requests made, to show how busy replication keeps the network. */
    requests: { pull: 0, push: 0 },
    sync: null as SyncController | null,
    /** The network: refuses every request while offline, as a browser's fetch does. */
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!device.online) throw new TypeError('Failed to fetch (offline)');
      const url = String(input);
      if (url.includes('/pull?')) device.requests.pull += 1;
      if (url.endsWith('/push')) device.requests.push += 1;
      const headers = new Headers(init?.headers);
      headers.set('cookie', cookie);
      return fetch(input, { ...init, headers });
    }) as typeof fetch,
    start() {
      // The app's defaults (retry every 5 s, pages of 500), as src/db/local-store.ts starts it.
      device.sync = startSync(db as unknown as Record<SyncCollection, never>, { baseUrl: base, fetch: device.fetch });
    },
    async close() {
      await device.sync?.stop();
      await db.remove();
    },
  };
  return device;
}
type Device = Awaited<ReturnType<typeof makeDevice>>;

async function until(check: () => boolean | Promise<boolean>, timeoutMs = GIVE_UP_MS): Promise<number> {
  const start = performance.now();
  while (!(await check())) {
    if (performance.now() - start > timeoutMs) return NaN;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return performance.now() - start;
}

interface Round {
  /** Pull and push requests of both clients from reconnecting until everything arrived. */
  pulls: number;
  pushes: number;
  writeMs: number;
  toServerMs: number;
  toOtherMs: number;
  pendingClearedMs: number;
  lost: number;
  duplicated: number;
}

const requestCount = (...devices: Device[]) => ({
  pull: devices.reduce((sum, d) => sum + d.requests.pull, 0),
  push: devices.reduce((sum, d) => sum + d.requests.push, 0),
});

/** One round: the writer goes offline, writes ITEMS posts and comments, comes back; everything is timed and counted. */
async function runRound(sqlite: Database.Database, writer: Device, reader: Device, round: number): Promise<Round> {
  const marker = `[offline bench ${round}:${randomUUID().slice(0, 8)}]`;
  // A post everyone already has, for half of the comments; the other half go on posts written offline.
  const shared = randomUUID();
  const at = Date.now();
  await writer.db.posts.insert({
    id: shared,
    authorId: writer.userId,
    content: `${marker} shared post`,
    category: 'company_announcement' as const,
    isUrgent: false,
    houseTags: [],
    audienceHouses: [],
    images: [],
    attachments: [],
    createdAt: at,
    writtenAt: at,
    updatedAt: at,
    editedBy: null,
    localPending: true,
  });
  if (Number.isNaN(await until(async () => (await reader.db.posts.findOne(shared).exec()) !== null, 10_000))) {
    throw new Error('the shared post did not reach the second client');
  }
  await firstValueFrom(writer.sync!.pending$.pipe(filter((n) => n === 0)));

  writer.online = false;
  browserNavigator.onLine = false;
  const postIds: string[] = [];
  const commentIds: string[] = [];
  const writeStart = performance.now();
  for (let i = 0; i < ITEMS / 2; i += 1) {
    const now = Date.now();
    const postId = randomUUID();
    postIds.push(postId);
    await writer.db.posts.insert({
      id: postId,
      authorId: writer.userId,
      content: `${marker} post ${i}: written with no signal`,
      category: i % 5 === 0 ? ('residents_activities' as const) : ('shifts_lifts' as const),
      isUrgent: false,
      houseTags: i % 5 === 0 ? ['Giles House'] : [],
      audienceHouses: [],
      images: [],
      attachments: [],
      createdAt: now,
      writtenAt: now,
      updatedAt: now,
      editedBy: null,
      localPending: true,
    });
    const commentId = randomUUID();
    commentIds.push(commentId);
    await writer.db.comments.insert({
      id: commentId,
      postId: i % 2 === 0 ? postId : shared,
      authorId: writer.userId,
      content: `${marker} comment ${i}`,
      createdAt: now,
      writtenAt: now,
      updatedAt: now,
      localPending: true,
    });
  }
  const writeMs = performance.now() - writeStart;
  const pending = await firstValueFrom(writer.sync!.pending$.pipe(filter((n) => n >= ITEMS)));
  if (pending !== ITEMS) throw new Error(`expected ${ITEMS} pending items, found ${pending}`);

  const like = `${marker}%`;
  const onServer = () =>
    (
      sqlite.prepare('SELECT count(*) AS n FROM posts WHERE content LIKE ? AND id != ?').get(like, shared) as {
        n: number;
      }
    ).n + (sqlite.prepare('SELECT count(*) AS n FROM comments WHERE content LIKE ?').get(like) as { n: number }).n;
  const onReader = async () =>
    (await reader.db.posts.findByIds(postIds).exec()).size +
    (await reader.db.comments.findByIds(commentIds).exec()).size;

  const requestsBefore = requestCount(writer, reader);
  // Back online, as a browser reports it: the flag, then the event.
  const online = performance.now();
  writer.online = true;
  browserNavigator.onLine = true;
  connectivity.dispatchEvent(new Event('online'));
  const [toServerMs, toOtherMs, pendingClearedMs] = await Promise.all([
    until(() => onServer() >= ITEMS),
    until(async () => (await onReader()) >= ITEMS),
    firstValueFrom(writer.sync!.pending$.pipe(filter((n) => n === 0))).then(() => performance.now() - online),
  ]);

  const requestsAfter = requestCount(writer, reader);
  // Count by id on the server and on the second client: each of the 200 once, nothing else with the marker.
  const ids = [...postIds, ...commentIds];
  const serverRows = [
    ...(sqlite.prepare('SELECT id FROM posts WHERE content LIKE ? AND id != ?').all(like, shared) as { id: string }[]),
    ...(sqlite.prepare('SELECT id FROM comments WHERE content LIKE ?').all(like) as { id: string }[]),
  ].map((r) => r.id);
  const readerDocs = [...(await reader.db.posts.find().exec()), ...(await reader.db.comments.find().exec())]
    .filter((d) => d.content.startsWith(marker) && d.id !== shared)
    .map((d) => d.id);
  const wanted = new Set(ids);
  /** Lost: one of the 200 missing. Duplicated: an id twice, or a row with the marker that is not one of them. */
  const count = (list: string[]) => {
    const unique = new Set(list);
    return {
      lost: ids.filter((id) => !unique.has(id)).length,
      duplicated: list.length - unique.size + [...unique].filter((id) => !wanted.has(id)).length,
    };
  };
  const onServerCount = count(serverRows);
  const other = count(readerDocs);
  return {
    pulls: requestsAfter.pull - requestsBefore.pull,
    pushes: requestsAfter.push - requestsBefore.push,
    writeMs,
    toServerMs,
    toOtherMs,
    pendingClearedMs,
    lost: Math.max(onServerCount.lost, other.lost),
    duplicated: Math.max(onServerCount.duplicated, other.duplicated),
  };
}

interface Account {
  id: string;
  email: string;
}

/**
 * The server side, run in its own process (`--serve`) as on a real deployment, so the two phones' JavaScript
 * does not share its event loop: accounts first, then the real server on 127.0.0.1; it stops on SIGTERM.
 */
async function serve(dataDir: string): Promise<void> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_TWO_FACTOR: 'optional',
  });
  const db = openDb(databaseFile(config));
  const passwordHash = await hashPassword(PASSWORD);
  // A System Administrator too, so the server has no one-time setup link to print.
  const accounts: { id: string; email: string }[] = [];
  for (const name of ['admin', 'writer', 'reader'] as const) {
    const account = { id: randomUUID(), email: `${name}@bench.example` };
    await insertUser(db, {
      ...account,
      passwordHash,
      firstName: name,
      lastName: 'Bench',
      role: name === 'admin' ? 'system_admin' : 'staff',
      isActive: true,
      pendingApproval: false,
      createdAt: Date.now(),
      updatedAt: Date.now(),
    });
    accounts.push(account);
  }
  await closeDb(db);
  const server = await startServer(config, { clientDir: path.join(dataDir, 'no-client') });
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  // The bench process holds our stdin: when it ends, however it ends, so does this server.
  process.stdin.once('close', stop).resume();
  console.log(`READY ${JSON.stringify({ port: server.port, writer: accounts[1], reader: accounts[2] })}`);
}

/** Starts the server process and waits for its address and accounts. */
async function startServerProcess(dataDir: string) {
  const child = spawn(process.execPath, [...process.execArgv, import.meta.filename, '--serve', dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<{ port: number; writer: Account; reader: Account }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server process stopped (${code})`)));
    lines.on('line', (line) => {
      if (line.startsWith('READY ')) resolve(JSON.parse(line.slice(6)));
      else console.log(`[server] ${line}`);
    });
  });
  return { child, ...ready };
}

async function stopServerProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function main(): Promise<void> {
  printMachine();
  const dataDir = tempDir('sp-bench-offline-');
  const server = await startServerProcess(dataDir);
  const base = `http://127.0.0.1:${server.port}`;
  // Reads what the server stored, the way any other process can (WAL lets it read while the server writes).
  const sqlite = new Database(path.join(dataDir, 'staff-portal.db'), { readonly: true });
  const devices: Device[] = [];
  try {
    const writer = await makeDevice(base, server.writer);
    const reader = await makeDevice(base, server.reader);
    devices.push(writer, reader);
    writer.start();
    reader.start();
    await Promise.all(devices.map((d) => d.sync!.initialSyncDone));

    const rounds: Round[] = [];
    for (let r = 1; r <= ROUNDS; r += 1) {
      const result = await runRound(sqlite, writer, reader, r);
      rounds.push(result);
      console.log(
        `Round ${r}: ${ITEMS} items written offline in ${result.writeMs.toFixed(0)} ms. After reconnecting: ` +
          `the server has all ${ITEMS} after ${result.toServerMs.toFixed(0)} ms, the second client after ` +
          `${result.toOtherMs.toFixed(0)} ms, the writer's pending count is 0 after ` +
          `${result.pendingClearedMs.toFixed(0)} ms; lost ${result.lost}, duplicated ${result.duplicated}; ` +
          `meanwhile ${result.pulls} pull and ${result.pushes} push requests`,
      );
    }
    const worst = (pick: (r: Round) => number) => Math.max(...rounds.map(pick));
    const toServer = worst((r) => r.toServerMs);
    const toOther = worst((r) => r.toOtherMs);
    const lost = rounds.reduce((sum, r) => sum + r.lost, 0);
    const duplicated = rounds.reduce((sum, r) => sum + r.duplicated, 0);
    const pass = toServer <= TARGET_MS && toOther <= TARGET_MS && lost === 0 && duplicated === 0;
    const m = machine();
    console.log(`\nOffline flush, ${ROUNDS} rounds of ${ITEMS} posts and comments, ${m.cores} cores, ${m.date}`);
    console.log(`  worst time to the server       ${toServer.toFixed(0)} ms`);
    console.log(`  worst time to the 2nd client   ${toOther.toFixed(0)} ms`);
    console.log(`  lost ${lost}, duplicated ${duplicated}`);
    console.log(`  baseline: a periodic offline pending check, every ${BASELINE_MS} ms`);
    console.log(`  target: within ${TARGET_MS} ms, 0 lost, 0 duplicated   ${verdict(pass)}`);
    printFigure({
      figure: `Offline flush: ${ITEMS} posts and comments made offline, after reconnecting`,
      target: `<= ${TARGET_MS / 1000} s, 0 lost, 0 duplicated`,
      measured:
        `server ${round(toServer, 0)} ms, 2nd client ${round(toOther, 0)} ms (worst of ${ROUNDS}); ` +
        `lost ${lost}, duplicated ${duplicated}`,
      baseline: `${BASELINE_MS} ms (a pending check every 5 s)`,
      ratio: (toOther / BASELINE_MS).toFixed(2),
      pass,
    });
  } finally {
    for (const device of devices) await device.close();
    sqlite.close();
    await stopServerProcess(server.child);
  }
}

const serveAt = process.argv.indexOf('--serve');
(serveAt >= 0 ? serve(process.argv[serveAt + 1]) : main()).then(
  () => {
    if (serveAt < 0) process.exit(0);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
