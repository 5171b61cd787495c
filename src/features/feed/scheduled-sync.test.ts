import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The device's store is tested against the real server over real HTTP (house style: client store tests).
import { statement } from '../../../server/db/client';
import { startTestServer, type TestClient, type TestServer } from '../../../server/test/test-server';
import type { ScheduledPostView } from '../../../schema/posts';
import type { SyncCollection } from '../../../schema/sync';
import { conflictHandlerFor, type PostLocal } from '../../db/collections';
import { createSyncedDatabase } from '../../db/database';
import { startSync, type SyncController } from '../../db/replication';
import { storedPost } from '../../db/test-fixtures';
import { buildPostDoc } from './post-draft';
import { splitScheduled } from './scheduled-posts';
import { cancelOnDevice, rescheduleOnDevice, settleScheduled } from './scheduled-sync';

const env = { indexedDB, IDBKeyRange, multiInstance: false };
const MINUTE = 60_000;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** ISO 8601 of the server's clock moved by `ms`. */
const serverTimeIn = (ms: number) => new Date(t.server.deps.now() + ms).toISOString();

/** An author's phone: its own session, a store of posts, a network switch, and every push body it sent. */
async function makePhone() {
  const { user, client } = await t.signedIn();
  const db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, env, ['posts']);
  const pushes: string[] = [];
  const phone = {
    user,
    client,
    db,
    online: true,
    pushes,
    sync: null as SyncController | null,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (!phone.online) throw new TypeError('Failed to fetch (offline)');
      if (String(input).includes('/push')) pushes.push(String(init?.body));
      const headers = new Headers(init?.headers);
      headers.set('cookie', client.cookie);
      return fetch(input, { ...init, headers });
    }) as typeof fetch,
    async own(): Promise<PostLocal[]> {
      const posts = (await db.posts.find().exec()).map((doc) => doc.toJSON() as PostLocal); // without RxDB's meta
      return splitScheduled(posts, user.id).scheduled;
    },
    /** What the Scheduled section does with the server's list once read (decision 142). */
    async settle() {
      const list = (await client.get('/api/posts/scheduled')).body as unknown as ScheduledPostView[];
      const gone = async (id: string) => (await client.get(`/api/posts/${id}/comments`)).status === 404;
      await settleScheduled(db, await phone.own(), list, gone);
    },
    async close() {
      await phone.sync?.stop();
      await db.remove();
    },
  };
  phone.sync = startSync(db as unknown as Record<SyncCollection, never>, {
    baseUrl: t.url,
    fetch: phone.fetch,
    retryMs: 100,
  });
  await phone.sync.initialSyncDone;
  return phone;
}
type Phone = Awaited<ReturnType<typeof makePhone>>;

/** Schedules a post on the phone, as the composer does, and waits until the server holds it. */
async function scheduleOn(phone: Phone, content: string, publishAt: string): Promise<string> {
  const id = randomUUID();
  const draft = { content, category: 'company_announcement' as const, isUrgent: false, houseTags: [], publishAt };
  await phone.db.posts.insert(buildPostDoc(id, phone.user.id, draft, []));
  await phone.sync!.awaitInSync();
  return id;
}

const local = async (phone: Phone, id: string) =>
  (await phone.db.posts.findOne(id).exec())?.toJSON() as PostLocal | undefined; // without RxDB's meta
const scheduledRow = async (id: string) =>
  (await statement(t.db, 'SELECT content, publish_at AS publishAt FROM scheduled_posts WHERE id = ?').get([id])) as
    { content: string; publishAt: number } | undefined;
const publishedCount = async (id: string) =>
  ((await statement(t.db, 'SELECT count(*) AS n FROM posts WHERE id = ?').get([id])) as { n: number }).n;

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`never: ${what}`);
}

async function signedInAdmin(): Promise<TestClient> {
  return (await t.signedIn({ role: 'admin' })).client;
}

describe('the device’s scheduled posts follow the server’s list (decision 142)', () => {
  it('marks a sent post sent, shows an admin’s new words and time, and removes one an admin cancelled', async () => {
    const phone = await makePhone();
    const admin = await signedInAdmin();
    try {
      const kept = await scheduleOn(phone, 'Rota from Monday', serverTimeIn(60 * MINUTE));
      const dropped = await scheduleOn(phone, 'Barbecue on Friday', serverTimeIn(90 * MINUTE));
      await phone.settle();
      expect(await local(phone, kept)).toMatchObject({ localPending: false });

      const later = serverTimeIn(120 * MINUTE);
      expect((await admin.patch(`/api/posts/${kept}`, { content: 'Rota from Tuesday', publishAt: later })).status).toBe(
        200,
      );
      expect((await admin.delete(`/api/posts/${dropped}`)).status).toBe(204);
      // Not sent yet (offline): the list cannot hold it, and it stays.
      phone.online = false;
      const unsent = randomUUID();
      await phone.db.posts.insert(
        storedPost({ id: unsent, authorId: phone.user.id, publishAt: later, localPending: true }),
      );
      await phone.settle();

      expect(await local(phone, kept)).toMatchObject({ content: 'Rota from Tuesday', localPending: false });
      expect(Date.parse((await local(phone, kept))!.publishAt!)).toBe(Date.parse(later));
      expect(await local(phone, dropped)).toBeUndefined();
      expect(await local(phone, unsent)).toMatchObject({ localPending: true });
    } finally {
      await phone.close();
    }
  });

  it('leaves a post published meanwhile to the pull, which brings it in its place', async () => {
    const phone = await makePhone();
    try {
      const id = await scheduleOn(phone, 'Quiz night', serverTimeIn(10 * MINUTE));
      await phone.settle();
      t.advance(11 * MINUTE);
      await t.server.publisher.check();
      phone.sync!.resync();
      await phone.settle();
      await until(async () => (await local(phone, id))?.publishAt === undefined, 'the published post pulled');
      expect(await local(phone, id)).toMatchObject({ content: 'Quiz night', localPending: false });
    } finally {
      await phone.close();
    }
  });
});

describe('rescheduling and cancelling offline (decision 142)', () => {
  it('keeps each change on the device and sends it once when back online; a time already past publishes at once', async () => {
    const phone = await makePhone();
    try {
      const moved = await scheduleOn(phone, 'Staff meeting at 2', serverTimeIn(60 * MINUTE));
      const cancelled = await scheduleOn(phone, 'Fire drill at 4', serverTimeIn(60 * MINUTE));
      const now = await scheduleOn(phone, 'Lunch is at 1', serverTimeIn(60 * MINUTE));
      await phone.settle();

      phone.online = false;
      const later = serverTimeIn(180 * MINUTE);
      await rescheduleOnDevice(phone.db, moved, 'Staff meeting at 3', later);
      await cancelOnDevice(phone.db, cancelled);
      await rescheduleOnDevice(phone.db, now, 'Lunch is at 1', serverTimeIn(-5 * MINUTE));
      expect(await local(phone, moved)).toMatchObject({ content: 'Staff meeting at 3', localPending: true });
      expect(await local(phone, cancelled)).toBeUndefined();
      expect(await scheduledRow(moved)).toMatchObject({ content: 'Staff meeting at 2' });
      const sentBefore = phone.pushes.length;

      phone.online = true;
      phone.sync!.resync();
      await until(
        async () => (await scheduledRow(cancelled)) === undefined && (await publishedCount(now)) === 1,
        'the changes sent',
      );
      await phone.sync!.awaitInSync();
      expect(await scheduledRow(moved)).toEqual({ content: 'Staff meeting at 3', publishAt: Date.parse(later) });
      expect(await publishedCount(cancelled)).toBe(0);
      expect(await scheduledRow(now)).toBeUndefined();
      // Each change went in one push.
      const sent = phone.pushes.slice(sentBefore);
      expect(sent.filter((body) => body.includes('Staff meeting at 3'))).toHaveLength(1);
      expect(sent.filter((body) => body.includes(cancelled))).toHaveLength(1);
      expect(sent.filter((body) => body.includes(now))).toHaveLength(1);

      await phone.settle();
      expect(await local(phone, moved)).toMatchObject({ content: 'Staff meeting at 3', localPending: false });
      await until(async () => (await local(phone, now))?.publishAt === undefined, 'the published post pulled');
    } finally {
      await phone.close();
    }
  });

  it('merges a change made here into an admin’s new time, and drops a new time when the post was published meanwhile', async () => {
    const handler = conflictHandlerFor('posts');
    const draft = { content: 'Rota', category: 'company_announcement' as const, isUrgent: false, houseTags: [] };
    const sent = {
      ...buildPostDoc('p1', 'me', { ...draft, publishAt: '2026-12-01T09:00:00.000Z' }, [], 1),
      _deleted: false,
    };
    const mine = { ...sent, content: 'Rota, corrected', publishAt: '2026-12-01T10:00:00.000Z' };
    const { publishAt: _, ...published } = { ...sent, localPending: false, reactions: {} };
    const merged = await handler.resolve(
      { assumedMasterState: sent, realMasterState: published, newDocumentState: mine },
      'test',
    );
    expect(merged).toMatchObject({ content: 'Rota, corrected', localPending: true });
    expect('publishAt' in merged).toBe(false);

    const moved = { ...sent, publishAt: '2026-12-02T09:00:00.000Z', localPending: false };
    const wordsOnly = { ...sent, content: 'Rota, corrected' };
    expect(
      await handler.resolve({ assumedMasterState: sent, realMasterState: moved, newDocumentState: wordsOnly }, 'test'),
    ).toMatchObject({ content: 'Rota, corrected', publishAt: '2026-12-02T09:00:00.000Z', localPending: true });
  });
});
