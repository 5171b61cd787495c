import 'fake-indexeddb/auto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// A device's life is played against the real server over real HTTP (docs/sync.md, "Kept work").
import { statement } from '../../server/db/client';
import { startTestServer, TEST_PASSWORD, TestClient, type TestServer } from '../../server/test/test-server';
import { conversationIdOf } from '../../schema/chat';
import type { SyncCollection } from '../../schema/sync';
import { sendMessage } from '../features/chat/chat-actions';
import { addComment } from '../features/feed/feed-actions';
import { createSyncedDatabase, type UserDatabase } from './database';
import { databaseNameFor } from './database-name';
import { listKeptEntries, setKeptEnvironment } from './kept-store';
import { sendKeptWork } from './kept-send';
import { keptPublicKey, sealUnsentRows } from './kept-work';
import { startSync, type SyncController } from './replication';
import { prng, storedPost } from './test-fixtures';

/**
 * Device life (decision 114): one phone shared by two care workers, who sign in and out, close and reopen the app,
 * lose the Wi-Fi and have their session ended by the server, in a seeded random order. Whatever happens, every item
 * each of them wrote reaches the server exactly once, under its author, and nothing one wrote is ever readable by
 * the other: not in the local store they open, not in what is kept on the device.
 *
 * DEVICE_LIFE_SEED=<n> replays a run; DEVICE_LIFE_STEPS=<n> makes a longer one (default 120).
 */
const SEED = Number(process.env.DEVICE_LIFE_SEED ?? (process.env.CI ? 1146 : Math.floor(Math.random() * 2 ** 31)));
const STEPS = Number(process.env.DEVICE_LIFE_STEPS ?? 120);
const env = { indexedDB, IDBKeyRange, multiInstance: false };
const COLLECTIONS = ['posts', 'comments', 'conversations', 'messages'] as const;

let t: TestServer;
let publicKey: string;

beforeAll(async () => {
  t = await startTestServer();
  setKeptEnvironment({ indexedDB, IDBKeyRange });
  publicKey = (await keptPublicKey({ baseUrl: t.url }))!;
});
afterAll(async () => {
  await t.close();
});

interface Person {
  id: string;
  email: string;
  name: string;
}

/** The phone: its Wi-Fi, the session cookie it holds, and the app when open. */
function makePhone() {
  const phone = {
    online: true,
    client: null as TestClient | null,
    user: null as Person | null,
    db: null as UserDatabase | null,
    sync: null as SyncController | null,
    /** Every database name this phone opened, so the test can look for what another user could read. */
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!phone.online) throw new TypeError('Failed to fetch (Wi-Fi off)');
      const headers = new Headers(init?.headers);
      if (phone.client?.cookie) headers.set('cookie', phone.client.cookie);
      const response = await fetch(input, { ...init, headers });
      // The server ended the session: the app ends it on the phone too (src/features/auth/session.ts).
      if (response.status === 401 && phone.user) phone.sessionLost = true;
      return response;
    }) as typeof fetch,
    sessionLost: false,
  };
  return phone;
}
type Phone = ReturnType<typeof makePhone>;

async function openApp(phone: Phone): Promise<void> {
  phone.db = await createSyncedDatabase(databaseNameFor(phone.user!.id), env, COLLECTIONS);
  phone.sync = startSync(phone.db as unknown as Record<SyncCollection, never>, {
    baseUrl: t.url,
    fetch: phone.fetch,
    retryMs: 50,
    onUnauthorized: () => (phone.sessionLost = true),
  });
}

async function closeApp(phone: Phone): Promise<void> {
  await phone.sync?.stop();
  await phone.db?.close();
  phone.sync = null;
  phone.db = null;
}

/** The session ends on the phone (sign-out, idle, the server): unsent work is sealed, the store removed. */
async function endSession(phone: Phone): Promise<void> {
  const user = phone.user!;
  if (!phone.db) phone.db = await createSyncedDatabase(databaseNameFor(user.id), env, COLLECTIONS);
  await phone.sync?.stop();
  await sealUnsentRows(phone.db, user.id, publicKey);
  await phone.db.remove();
  // What stays on the phone is readable by no one: no item's words in any kept entry.
  const kept = (await listKeptEntries()).map((entry) => new TextDecoder().decode(entry.data)).join('');
  expect(kept).not.toMatch(/(Ada|Ben) item \d+/);
  if (phone.online && phone.client) await phone.client.post('/api/auth/logout');
  phone.sync = null;
  phone.db = null;
  phone.user = null;
  phone.client = null;
  phone.sessionLost = false;
}

/** Signs in (online only), sends what this person kept on the phone, then opens the app. */
async function signIn(phone: Phone, person: Person): Promise<void> {
  const client = new TestClient(t.url);
  const res = await client.post('/api/auth/login', { email: person.email, password: TEST_PASSWORD });
  expect(res.status).toBe(200);
  phone.client = client;
  phone.user = person;
  await sendKeptWork(person.id, { baseUrl: t.url, fetch: phone.fetch });
  await openApp(phone);
}

describe('device life', () => {
  it(`loses and duplicates nothing, and keeps each person's work from the other (seed ${SEED})`, async () => {
    const random = prng(SEED);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
    const people: Person[] = [];
    for (const name of ['Ada', 'Ben']) {
      const user = await t.buildUser({ firstName: name });
      people.push({ id: user.id, email: user.email, name });
    }
    const shared = await t.buildPost({ authorId: people[0].id, content: 'The handover board' });
    /** What each person wrote: content to author. */
    const ledger = new Map<string, string>();
    const phone = makePhone();
    let n = 0;
    const log: string[] = [];

    for (let step = 0; step < STEPS; step += 1) {
      if (phone.sessionLost && phone.user) {
        log.push(`${step}: the app finds the session over`);
        await endSession(phone);
      }
      const roll = random();
      const person = pick(people);
      if (!phone.user) {
        if (phone.online && roll < 0.6) {
          log.push(`${step}: ${person.name} signs in`);
          await signIn(phone, person);
        } else {
          phone.online = roll < 0.8;
          log.push(`${step}: Wi-Fi ${phone.online ? 'on' : 'off'}`);
        }
        continue;
      }
      const me = phone.user;
      const other = people.find((p) => p.id !== me.id)!;
      if (!phone.db) {
        log.push(`${step}: the app opens`);
        await openApp(phone);
      } else if (roll < 0.45) {
        n += 1;
        const text = `${me.name} item ${n}`;
        ledger.set(text, me.id);
        const kind = pick(['post', 'comment', 'message'] as const);
        log.push(`${step}: ${me.name} writes a ${kind} (${text})`);
        if (kind === 'post') {
          const at = Date.now();
          await phone.db.posts.insert(
            storedPost({
              id: crypto.randomUUID(),
              authorId: me.id,
              content: text,
              createdAt: at,
              updatedAt: at,
              localPending: true,
            }),
          );
        } else if (kind === 'comment') {
          await addComment(phone.db, shared.id, me.id, text);
        } else {
          await sendMessage(phone.db, me.id, conversationIdOf(me.id, other.id), text);
        }
      } else if (roll < 0.6) {
        phone.online = !phone.online;
        log.push(`${step}: Wi-Fi ${phone.online ? 'on' : 'off'}`);
        if (phone.online) phone.sync?.resync();
      } else if (roll < 0.72) {
        log.push(`${step}: the app is closed`);
        await closeApp(phone);
      } else if (roll < 0.86) {
        log.push(`${step}: ${me.name} signs out (${phone.online ? 'online' : 'offline'})`);
        await endSession(phone);
      } else if (roll < 0.93) {
        // A password reset elsewhere: the server ends every session of the account; the phone learns it online.
        log.push(`${step}: the server ends ${me.name}'s session`);
        await statement(t.db, 'DELETE FROM sessions WHERE user_id = ?').run([me.id]);
        if (phone.online) phone.sync?.resync();
      } else {
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      // Whoever holds the phone never has the other person's unsent work in their store.
      if (phone.db) {
        const foreign = await phone.db.posts.find({ selector: { localPending: true } }).exec();
        expect(foreign.filter((doc) => doc.authorId !== me.id).map((doc) => doc.content)).toEqual([]);
      }
    }

    // The end: online, each person signs in once more and waits until their work is on the server.
    phone.online = true;
    if (phone.user) await endSession(phone);
    for (const person of people) {
      await signIn(phone, person);
      await phone.sync!.awaitInSync();
      await endSession(phone);
    }
    expect(await listKeptEntries()).toEqual([]);

    const rows = await statement<[], { content: string; author: string }>(
      t.db,
      `SELECT content, author_id AS author FROM posts WHERE content LIKE '% item %'
         UNION ALL SELECT content, author_id FROM comments WHERE content LIKE '% item %'
         UNION ALL SELECT content, sender_id FROM messages WHERE content LIKE '% item %'`,
    ).all();
    const counts = new Map<string, number>();
    for (const row of rows) counts.set(row.content, (counts.get(row.content) ?? 0) + 1);
    const lost = [...ledger.keys()].filter((text) => !counts.has(text));
    const twice = [...counts].filter(([, count]) => count > 1).map(([text]) => text);
    const wrongAuthor = rows.filter((row) => ledger.get(row.content) !== row.author).map((row) => row.content);
    const report = `seed ${SEED}, ${ledger.size} items; replay with DEVICE_LIFE_SEED=${SEED}\n${log.slice(-40).join('\n')}`;
    expect({ lost, twice, wrongAuthor }, report).toEqual({ lost: [], twice: [], wrongAuthor: [] });
    expect(rows.length, report).toBe(ledger.size);
  }, 240_000);
});
