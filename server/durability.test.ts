import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { closeDb, dialectOf, openDatabase, sqliteOf, statement, type Db } from './db/client';
import { databaseFile } from './server';
import { testDatabase } from './test/postgres-suite';
import { insertSignedInUser } from './test/ready-sessions';

const ROOT = path.resolve(import.meta.dirname, '..');
/** Each round starts the server, writes until the first acknowledgement, and kills it at once. */
const ROUNDS = 6;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-sigkill-'));
const children = new Set<ChildProcess>();
/** On the PostgreSQL pass, the database of its own the app server writes to (decision 157); null on SQLite. */
let postgres: Awaited<ReturnType<typeof testDatabase>> = null;

beforeAll(async () => {
  postgres = await testDatabase();
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all([...children].map((child) => exited(child)));
  await postgres?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The database the app server runs on: the SQLite file in the data folder, or PostgreSQL on that pass. */
const openAppDatabase = () =>
  openDatabase({ databaseUrl: postgres?.url, file: databaseFile(loadConfig({ DATA_DIR: dataDir })) });

/** Two accounts with sessions ready, written before the first start (no sign-in between kills). */
async function seedAccounts(): Promise<{ cookies: [string, string]; ids: [string, string] }> {
  const db = await openAppDatabase();
  const now = Date.now();
  const made: { id: string; cookie: string }[] = [];
  for (const i of [0, 1]) {
    const { id, token } = await insertSignedInUser(
      db,
      { email: `kill${i}@care.example`, firstName: `Kill${i}`, lastName: 'Tester', role: i === 0 ? 'admin' : 'staff' },
      now,
    );
    made.push({ id, cookie: `sp_session=${token}` });
  }
  await closeDb(db);
  return { cookies: [made[0].cookie, made[1].cookie], ids: [made[0].id, made[1].id] };
}

/** Starts the real server in its own process on the data folder; answers once it listens. */
async function startChild(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'server/test/child-server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...(postgres && { DATABASE_URL: postgres.url }),
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('READY ')) resolve(Number(line.slice(6)));
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening: ${stderr}`)));
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

/** The ids of `ids` that `table` lacks. */
async function absentRows(db: Db, table: string, ids: string[]): Promise<string[]> {
  const has = statement(db, `select 1 from ${table} where id = ?`);
  const absent: string[] = [];
  for (const id of ids) if (!(await has.get([id]))) absent.push(id);
  return absent;
}

describe('a write acknowledged to a client', () => {
  it('survives a SIGKILL of the server the moment after, and the server restarts on the stale lock', async () => {
    const { cookies, ids } = await seedAccounts();
    const acked = { posts: [] as string[], messages: [] as string[], comments: [] as string[] };
    let conversationId = '';
    let firstPostId = '';

    for (let round = 0; round < ROUNDS; round += 1) {
      const { child, base } = await startChild();
      const send = (cookie: string, urlPath: string, body: unknown) =>
        fetch(base + urlPath, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      if (round === 0) {
        const opened = await send(cookies[0], '/api/conversations', { participantId: ids[1] });
        conversationId = ((await opened.json()) as { id: string }).id;
        firstPostId = randomUUID();
        const first = await send(cookies[0], '/api/posts', {
          id: firstPostId,
          content: 'The first post',
          category: 'wages_hr',
        });
        expect(first.status).toBe(201);
        acked.posts.push(firstPostId);
      }
      // Three writers at once; the first acknowledgement kills the server before anything else runs.
      let killed = false;
      const writer = async (kind: keyof typeof acked, cookie: string) => {
        for (let i = 0; !killed; i += 1) {
          const id = randomUUID();
          const [urlPath, body] =
            kind === 'posts'
              ? ['/api/posts', { id, content: `Round ${round} post ${i}`, category: 'shifts_lifts' }]
              : kind === 'messages'
                ? [`/api/conversations/${conversationId}/messages`, { id, content: `Round ${round} message ${i}` }]
                : [`/api/posts/${firstPostId}/comments`, { id, content: `Round ${round} comment ${i}` }];
          let res: Response;
          try {
            res = await send(cookie, urlPath, body);
          } catch {
            return; // the server is gone: this write was never acknowledged
          }
          if (res.status !== 201) throw new Error(`${urlPath} answered ${res.status}: ${await res.text()}`);
          if (!killed) {
            killed = true;
            child.kill('SIGKILL');
          }
          acked[kind].push(id);
        }
      };
      await Promise.all([writer('posts', cookies[0]), writer('messages', cookies[1]), writer('comments', cookies[1])]);
      await exited(child);
      expect(child.signalCode).toBe('SIGKILL');
      // The dead server's lock is still there; the next start must take it over.
      expect(Number(fs.readFileSync(path.join(dataDir, 'server.pid'), 'utf8'))).toBe(child.pid);
    }

    const { child } = await startChild();
    const db = await openAppDatabase();
    try {
      expect(acked.posts.length + acked.messages.length + acked.comments.length).toBeGreaterThanOrEqual(ROUNDS + 1);
      expect(await absentRows(db, 'posts', acked.posts)).toEqual([]);
      expect(await absentRows(db, 'messages', acked.messages)).toEqual([]);
      expect(await absentRows(db, 'comments', acked.comments)).toEqual([]);
      // Only SQLite's file is written by the killed process itself; PostgreSQL's server was never killed.
      if (dialectOf(db) === 'sqlite') expect(sqliteOf(db).pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      await closeDb(db);
      child.kill('SIGTERM');
      await exited(child);
    }
  }, 180_000);
});
