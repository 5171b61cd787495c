import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
// Client replication is tested against the real server over real HTTP (house style: client store tests).
import { statement } from '../../server/db/client';
import { startTestServer, type TestServer } from '../../server/test/test-server';
import type { SyncCollection } from '../../schema/sync';
import { addComment, editPost, toggleReaction } from '../features/feed/feed-actions';
import { createSyncedDatabase } from './database';
import { lostChangeOf } from './lost-changes';
import {
  dismissLostChanges,
  dismissLostMessages,
  forgetLostChanges,
  readLostChanges,
  recordLostChange,
  type LostFeedChange,
} from './lost-changes-store';
import { startSync, type SyncController } from './replication';
import { storedPost } from './test-fixtures';

const post = (fields: Record<string, unknown> = {}) => ({ ...storedPost({ id: 'p1' }), _deleted: false, ...fields });

describe('what a delete on the server took from the user', () => {
  it('is the edited text of a post this device changed and has not sent', () => {
    const lost = lostChangeOf('posts', {
      mine: post({ content: 'Fire drill moved to 4pm', localPending: true }),
      real: post({ content: '', _deleted: true }),
      from: post(),
    });
    expect(lost).toMatchObject({ kind: 'post', id: 'p1', postId: 'p1', text: 'Fire drill moved to 4pm' });
  });

  it('is nothing when the device had not changed the post, deleted it itself, or the master is live', () => {
    const deleted = post({ content: '', _deleted: true });
    expect(lostChangeOf('posts', { mine: post({ localPending: true }), real: deleted, from: post() })).toBeNull();
    expect(lostChangeOf('posts', { mine: post({ content: 'x' }), real: deleted, from: post() })).toBeNull();
    const ownDelete = post({ content: 'x', localPending: true, _deleted: true });
    expect(lostChangeOf('posts', { mine: ownDelete, real: deleted, from: post() })).toBeNull();
    const live = post({ content: 'y' });
    expect(lostChangeOf('posts', { mine: post({ content: 'x', localPending: true }), real: live, from: post() })).toBe(
      null,
    );
  });

  it('is a comment or reaction refused as a tombstone, and nothing in other collections', () => {
    const comment = { id: 'c1', postId: 'p1', content: 'On my way', localPending: true, _deleted: false };
    const refused = { ...comment, _deleted: true };
    expect(lostChangeOf('comments', { mine: comment, real: refused, from: null })).toMatchObject({
      kind: 'comment',
      postId: 'p1',
      text: 'On my way',
    });
    const reaction = { id: 'p1:u1', postId: 'p1', type: 'love', localPending: true, _deleted: false };
    expect(
      lostChangeOf('reactions', { mine: reaction, real: { ...reaction, _deleted: true }, from: null }),
    ).toMatchObject({ kind: 'reaction', text: 'love' });
    const conversation = { id: 'g1', readUpTo: 1, localPending: true, _deleted: false };
    expect(
      lostChangeOf('conversations', { mine: conversation, real: { ...conversation, _deleted: true }, from: null }),
    ).toBeNull();
  });

  it('is a message refused as a blank tombstone, with the words its sender wrote', () => {
    const message = { id: 'm1', conversationId: 'g1', content: 'Hi', localPending: true, _deleted: false };
    expect(
      lostChangeOf('messages', { mine: message, real: { ...message, content: '', _deleted: true }, from: null }),
    ).toMatchObject({ kind: 'message', id: 'm1', conversationId: 'g1', text: 'Hi' });
    expect(
      lostChangeOf('messages', {
        mine: { ...message, localPending: false },
        real: { ...message, content: '', _deleted: true },
        from: null,
      }),
    ).toBeNull();
  });
});

describe('the list of lost changes', () => {
  afterEach(() => forgetLostChanges());
  const change = (fields: Partial<LostFeedChange>): LostFeedChange => ({
    kind: 'comment',
    id: 'c1',
    postId: 'p1',
    text: 'On my way',
    at: 1,
    ...fields,
  });

  it('keeps each lost document once, per database, until its post is dismissed', () => {
    recordLostChange('db-a', change({}));
    recordLostChange('db-a', change({}));
    recordLostChange('db-a', change({ kind: 'post', id: 'p1', text: 'Edited' }));
    recordLostChange('db-a', change({ id: 'c2', postId: 'p2' }));
    recordLostChange('db-b', change({}));
    expect(readLostChanges('db-a').map((c) => `${c.kind}:${c.id}`)).toEqual(['comment:c1', 'post:p1', 'comment:c2']);
    dismissLostChanges('db-a', 'p1');
    expect(readLostChanges('db-a').map((c) => c.id)).toEqual(['c2']);
    expect(readLostChanges('db-b')).toHaveLength(1);
  });

  it('keeps messages not sent apart, until their conversation is dismissed', () => {
    recordLostChange('db-a', change({}));
    const message = { kind: 'message', id: 'm1', conversationId: 'g1', text: 'On my way', at: 1 } as const;
    recordLostChange('db-a', message);
    recordLostChange('db-a', { ...message, id: 'm2', conversationId: 'g2' });
    dismissLostChanges('db-a', 'p1');
    expect(readLostChanges('db-a').map((c) => c.id)).toEqual(['m1', 'm2']);
    dismissLostMessages('db-a', 'g1');
    expect(readLostChanges('db-a').map((c) => c.id)).toEqual(['m2']);
  });

  it('is forgotten for every database but those kept (sign-out, another user signing in)', () => {
    recordLostChange('db-a', change({}));
    recordLostChange('db-b', change({}));
    forgetLostChanges(['db-b']);
    expect(readLostChanges('db-a')).toEqual([]);
    expect(readLostChanges('db-b')).toHaveLength(1);
    forgetLostChanges();
    expect(readLostChanges('db-b')).toEqual([]);
  });
});

const env = { indexedDB, IDBKeyRange, multiInstance: false };
let t: TestServer;

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 8000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A staff member's browser with the feed's collections and a network switch. */
async function makeDevice() {
  const { user, client } = await t.signedIn({ role: 'staff' });
  const db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, env, [
    'posts',
    'comments',
    'reactions',
  ]);
  const device = {
    user,
    client,
    db,
    online: true,
    sync: null as SyncController | null,
    start() {
      device.sync = startSync(db as unknown as Record<SyncCollection, never>, {
        baseUrl: t.url,
        retryMs: 100,
        fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
          if (!device.online) throw new TypeError('Failed to fetch (offline)');
          const headers = new Headers(init?.headers);
          headers.set('cookie', client.cookie);
          return fetch(input, { ...init, headers });
        }) as typeof fetch,
      });
    },
    goOnline() {
      device.online = true;
      device.sync?.resync();
    },
    async close() {
      await device.sync?.stop();
      await db.remove();
    },
  };
  return device;
}

const count = async (table: string, where: string, ...args: unknown[]) =>
  ((await statement(t.db, `select count(*) as n from ${table} where ${where}`).get(args)) as { n: number }).n;

describe('changes made offline on a post an administrator deleted meanwhile', () => {
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => forgetLostChanges());

  it('records the edit, the comment and the reaction, and the server keeps none of them', async () => {
    const device = await makeDevice();
    const admin = await t.signedIn({ role: 'admin' });
    try {
      device.start();
      await device.sync!.initialSyncDone;
      const created = await device.client.post('/api/posts', {
        content: 'Rota for next week',
        category: 'shifts_lifts',
      });
      expect(created.status).toBe(201);
      const postId = String(created.body.id);
      await until(async () => (await device.db.posts.findOne(postId).exec()) !== null);
      await device.sync!.awaitInSync();

      device.online = false;
      await editPost(device.db, postId, { content: 'Rota for next week: I swapped Tuesday', isUrgent: false });
      await addComment(device.db, postId, device.user.id, 'Tuesday is now covered');
      await toggleReaction(device.db, postId, device.user.id, 'love', undefined);
      expect((await admin.client.delete(`/api/posts/${postId}`)).status).toBe(204);

      device.goOnline();
      await until(() => readLostChanges(device.db.name).length === 3, 15_000);
      const lost = readLostChanges(device.db.name);
      expect(lost.map((c) => [c.kind, c.kind === 'message' ? c.conversationId : c.postId, c.text]).sort()).toEqual([
        ['comment', postId, 'Tuesday is now covered'],
        ['post', postId, 'Rota for next week: I swapped Tuesday'],
        ['reaction', postId, 'love'],
      ]);
      // Delete wins: nothing of the offline changes is stored, and nothing stays pending on the device.
      await device.sync!.awaitInSync();
      expect(await device.db.posts.findOne(postId).exec()).toBeNull();
      expect(await device.db.comments.count({ selector: { postId } }).exec()).toBe(0);
      expect(await device.db.reactions.count({ selector: { postId } }).exec()).toBe(0);
      expect(await count('posts', 'id = ? and deleted = 1', postId)).toBe(1);
      expect(await count('posts', 'content like ?', '%swapped Tuesday%')).toBe(0);
      expect(await count('comments', 'post_id = ? and deleted = 0', postId)).toBe(0);
      expect(await count('reactions', 'post_id = ? and deleted = 0', postId)).toBe(0);
    } finally {
      await device.close();
    }
  });

  it('records a comment on a post it had not changed once the post is gone from the device', async () => {
    const device = await makeDevice();
    const admin = await t.signedIn({ role: 'admin' });
    try {
      const target = await t.buildPost();
      device.start();
      await device.sync!.initialSyncDone;
      await until(async () => (await device.db.posts.findOne(target.id).exec()) !== null);

      device.online = false;
      await addComment(device.db, target.id, device.user.id, 'I can bring the cake');
      expect((await admin.client.delete(`/api/posts/${target.id}`)).status).toBe(204);
      device.goOnline();

      await until(() => readLostChanges(device.db.name).length === 1, 15_000);
      expect(readLostChanges(device.db.name)[0]).toMatchObject({ kind: 'comment', text: 'I can bring the cake' });
      expect(await count('comments', 'post_id = ? and deleted = 0', target.id)).toBe(0);
    } finally {
      await device.close();
    }
  });

  it('records nothing for a comment the server stored', async () => {
    const device = await makeDevice();
    try {
      const target = await t.buildPost();
      device.start();
      await device.sync!.initialSyncDone;
      await until(async () => (await device.db.posts.findOne(target.id).exec()) !== null);
      device.online = false;
      await addComment(device.db, target.id, device.user.id, 'Count me in');
      device.goOnline();
      await until(async () => (await count('comments', 'post_id = ? and deleted = 0', target.id)) === 1);
      await device.sync!.awaitInSync();
      expect(readLostChanges(device.db.name)).toEqual([]);
    } finally {
      await device.close();
    }
  });
});
