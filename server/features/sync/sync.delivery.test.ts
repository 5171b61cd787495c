import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent, PullResponse, SyncCheckpoint, SyncCollection } from '../../../schema/sync';
import { newPostDoc } from '../../test/sync-docs';
import { insertReadySession } from '../../test/ready-sessions';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { BROADCAST_EVERY_MS, FANOUT_SLICE } from './sync.hub';
import { EVENT_DOCUMENTS_MAX } from './sync.service';

type Doc = Record<string, unknown> & { id: string };
type Stream = Awaited<ReturnType<TestClient['openStream']>>;

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function pullPage(client: TestClient, collection: SyncCollection, checkpoint?: SyncCheckpoint, limit = 500) {
  const params = new URLSearchParams({ limit: String(limit) });
  if (checkpoint) params.set('seq', String(checkpoint.seq));
  if (checkpoint) params.set('id', checkpoint.id);
  const res = await client.get(`/api/sync/${collection}/pull?${params}`);
  expect(res.status).toBe(200);
  return { page: res.body as unknown as PullResponse<Doc>, text: res.text };
}

/** Every document a fresh device would pull, tombstones included. */
async function fullPull(client: TestClient, collection: SyncCollection) {
  const docs = new Map<string, Doc>();
  let checkpoint: SyncCheckpoint | undefined;
  for (;;) {
    const { page } = await pullPage(client, collection, checkpoint);
    for (const doc of page.documents) docs.set(doc.id, doc);
    if (page.documents.length === 0) return docs;
    checkpoint = page.checkpoint;
  }
}

/**
 * A device applying the protocol as the app does (docs/sync.md, "Live stream"): it pulls each collection to the end,
 * which tells it how far it holds everything (`through`); an event that follows from there is stored as it is, one
 * it already holds is ignored, and any other makes it pull.
 */
function device(client: TestClient, collections: readonly SyncCollection[]) {
  const docs = new Map(collections.map((c) => [c, new Map<string, Doc>()]));
  const checkpoints = new Map<SyncCollection, SyncCheckpoint>();
  const coverage = new Map<SyncCollection, number>();
  const counts = { stored: 0, ignored: 0, pulled: 0 };
  const pull = async (collection: SyncCollection) => {
    for (;;) {
      const { page } = await pullPage(client, collection, checkpoints.get(collection));
      for (const doc of page.documents) docs.get(collection)!.set(doc.id, doc);
      checkpoints.set(collection, page.checkpoint);
      if (page.documents.length < 500) {
        coverage.set(collection, page.through!);
        return;
      }
    }
  };
  return {
    docs,
    counts,
    pull,
    async apply(data: string) {
      const event = JSON.parse(data) as ChangeEvent<Doc>;
      const held = coverage.get(event.collection);
      if (event.documents && event.checkpoint && held !== undefined && event.since! <= held) {
        if (held >= event.checkpoint.seq) counts.ignored += 1;
        else {
          for (const doc of event.documents) docs.get(event.collection)!.set(doc.id, doc);
          checkpoints.set(event.collection, event.checkpoint);
          coverage.set(event.collection, event.checkpoint.seq);
          counts.stored += 1;
        }
      } else {
        counts.pulled += 1;
        await pull(event.collection);
      }
    },
  };
}

/** Waits until the stream has been quiet for a moment: every event of the writes before has arrived. */
/** Until the stream has heard nothing for longer than changes for every stream may wait (BROADCAST_EVERY_MS). */
async function quiet(stream: Stream) {
  let count = -1;
  while (count !== stream.events.length) {
    count = stream.events.length;
    await new Promise((resolve) => setTimeout(resolve, BROADCAST_EVERY_MS + 60));
  }
}

describe('change events that carry the change (decision 131)', () => {
  it('a device that stores the events it can and pulls otherwise holds exactly what a fresh pull gives', async () => {
    const COLLECTIONS = ['posts', 'comments', 'reactions', 'conversations', 'messages', 'acknowledgements'] as const;
    const watcher = await t.signedIn();
    const writer = await t.signedIn();
    const stranger = await t.signedIn();
    const admin = await t.signedIn({ role: 'admin' });
    const stream = await watcher.client.openStream();
    await stream.next('RESYNC');
    const phone = device(watcher.client, COLLECTIONS);
    for (const collection of COLLECTIONS) await phone.pull(collection);
    const seen = stream.events.length;

    const first = newPostDoc();
    await writer.client.post('/api/sync/posts/push', [{ newDocumentState: first, assumedMasterState: null }]);
    await writer.client.post(`/api/posts/${first.id}/comments`, { content: 'First comment' });
    await watcher.client.post(`/api/posts/${first.id}/reactions`, { type: 'like' });
    await writer.client.post(`/api/posts/${first.id}/reactions`, { type: 'love' });
    const ours = (await writer.client.post('/api/conversations', { participantId: watcher.user.id })).body as Doc;
    await writer.client.post(`/api/conversations/${ours.id}/messages`, { content: 'Hello' });
    await watcher.client.post(`/api/conversations/${ours.id}/messages`, { content: 'Hi back' });
    const theirs = (await stranger.client.post('/api/conversations', { participantId: writer.user.id })).body as Doc;
    await stranger.client.post(`/api/conversations/${theirs.id}/messages`, { content: 'Not for the watcher' });
    // Midway the phone pulls the posts itself: later events it then already holds, or holds in part.
    await quiet(stream);
    await phone.pull('posts');
    await writer.client.patch(`/api/posts/${first.id}`, { content: 'Edited' });
    const alert = (
      await admin.client.post('/api/sync/posts/push', [
        {
          newDocumentState: newPostDoc({ isUrgent: true, category: 'company_announcement' }),
          assumedMasterState: null,
        },
      ])
    ).body;
    expect(alert).toEqual({ conflicts: [] });
    await writer.client.delete(`/api/posts/${first.id}`);
    const second = newPostDoc();
    await writer.client.post('/api/sync/posts/push', [{ newDocumentState: second, assumedMasterState: null }]);
    await watcher.client.post(`/api/posts/${second.id}/comments`, { content: 'On the second' });
    await quiet(stream);

    for (const event of stream.events.slice(seen)) if (event.event === 'change') await phone.apply(event.data);
    stream.close();
    for (const collection of COLLECTIONS) {
      expect([...phone.docs.get(collection)!.entries()].sort(), collection).toEqual(
        [...(await fullPull(watcher.client, collection)).entries()].sort(),
      );
    }
    expect(phone.docs.get('messages')!.size).toBe(2); // the stranger's message never reached the watcher
    expect(phone.counts.stored).toBeGreaterThan(5);
    expect(phone.counts.ignored).toBeGreaterThan(0);
    // Nothing but the events the midway pull made stale needed a request.
    expect(phone.counts.pulled).toBe(0);
  });

  it('writes each participant’s side of a conversation into their own event, and nothing to anyone else', async () => {
    const a = await t.signedIn();
    const b = await t.signedIn();
    const c = await t.signedIn();
    const streams = [await a.client.openStream(), await b.client.openStream(), await c.client.openStream()];
    await Promise.all(streams.map((s) => s.next('RESYNC')));
    const seen = streams.map((s) => s.events.length);
    const conversation = (await a.client.post('/api/conversations', { participantId: b.user.id })).body as Doc;
    await a.client.post(`/api/conversations/${conversation.id}/messages`, { content: 'Private' });
    await Promise.all(streams.map(quiet));
    const carried = (i: number, collection: SyncCollection) =>
      streams[i].events
        .slice(seen[i])
        .map((e) => JSON.parse(e.data) as ChangeEvent<Doc>)
        .filter((e) => e.collection === collection)
        .flatMap((e) => e.documents ?? []);
    expect(carried(0, 'conversations').at(-1)).toMatchObject({ id: conversation.id, otherUserId: b.user.id });
    expect(carried(1, 'conversations').at(-1)).toMatchObject({ id: conversation.id, otherUserId: a.user.id });
    expect(carried(1, 'messages')).toMatchObject([{ conversationId: conversation.id, content: 'Private' }]);
    expect(streams[2].events.slice(seen[2])).toEqual([]);
    streams.forEach((s) => s.close());
  });

  it('gives each member of an urgent post’s audience their own alert, read for all of them at once', async () => {
    const members = [await t.signedIn(), await t.signedIn(), await t.signedIn()];
    const admin = await t.signedIn({ role: 'admin' });
    const streams: Stream[] = [];
    for (const member of members) {
      const stream = await member.client.openStream();
      await stream.next('RESYNC');
      streams.push(stream);
      // Each connects at a different sequence, so they follow from different places.
      await admin.client.post('/api/sync/posts/push', [{ newDocumentState: newPostDoc(), assumedMasterState: null }]);
    }
    await Promise.all(streams.map(quiet));
    const seen = streams.map((s) => s.events.length);
    const alert = newPostDoc({ isUrgent: true, category: 'company_announcement' });
    await admin.client.post('/api/sync/posts/push', [{ newDocumentState: alert, assumedMasterState: null }]);
    await Promise.all(streams.map(quiet));
    members.forEach((member, i) => {
      const events = streams[i].events.slice(seen[i]).map((e) => JSON.parse(e.data) as ChangeEvent<Doc>);
      const alerts = events.find((e) => e.collection === 'acknowledgements');
      expect(alerts?.documents).toMatchObject([{ id: `${alert.id}:${member.user.id}`, acknowledgedAt: null }]);
    });
    streams.forEach((s) => s.close());
  });

  it('writes an urgent post and each member’s alert together to more streams than one slice', async () => {
    const members = await Promise.all(Array.from({ length: FANOUT_SLICE + 5 }, () => t.buildUser()));
    const streams = await Promise.all(
      members.map(async (member) => {
        const client = t.client();
        client.cookie = `sp_session=${await insertReadySession(t.server.deps.db, member.id)}`;
        const stream = await client.openStream();
        await stream.next('RESYNC');
        return stream;
      }),
    );
    const admin = await t.signedIn({ role: 'admin' });
    const alert = newPostDoc({ isUrgent: true, category: 'company_announcement' });
    await admin.client.post('/api/sync/posts/push', [{ newDocumentState: alert, assumedMasterState: null }]);
    await Promise.all(streams.map(quiet));
    members.forEach((member, i) => {
      const events = streams[i].events
        .filter((e) => e.event === 'change')
        .map((e) => JSON.parse(e.data) as ChangeEvent<Doc>);
      expect(events.find((e) => e.collection === 'posts')?.documents).toMatchObject([{ id: alert.id }]);
      expect(events.find((e) => e.collection === 'acknowledgements')?.documents).toEqual([
        expect.objectContaining({ id: `${alert.id}:${member.id}`, acknowledgedAt: null }),
      ]);
    });
    streams.forEach((s) => s.close());
  });

  it('follows each event from where the last one left off, and from the connection for a new stream', async () => {
    const writer = await t.signedIn();
    const early = await (await t.signedIn()).client.openStream();
    await early.next('RESYNC');
    const seen = early.events.length;
    await writer.client.post('/api/sync/posts/push', [{ newDocumentState: newPostDoc(), assumedMasterState: null }]);
    await quiet(early);
    const late = await (await t.signedIn()).client.openStream();
    await late.next('RESYNC');
    await writer.client.post('/api/sync/posts/push', [{ newDocumentState: newPostDoc(), assumedMasterState: null }]);
    await Promise.all([quiet(early), quiet(late)]);
    const [one, two] = early.events.slice(seen).map((e) => JSON.parse(e.data) as ChangeEvent);
    expect(two.since).toBe(one.checkpoint!.seq);
    const lateEvent = JSON.parse(late.events.at(-1)!.data) as ChangeEvent;
    expect(lateEvent.documents).toHaveLength(1);
    expect(lateEvent.since).toBeGreaterThanOrEqual(one.checkpoint!.seq);
    expect(lateEvent.checkpoint).toEqual(two.checkpoint);
    early.close();
    late.close();
  });

  it('announces a change too large to carry, and the pull brings it', async () => {
    const watcher = await t.signedIn();
    const admin = await t.signedIn({ role: 'admin' });
    const post = await t.buildPost();
    for (let i = 0; i <= EVENT_DOCUMENTS_MAX; i += 1) await t.buildComment(post.id, watcher.user.id);
    const stream = await watcher.client.openStream();
    await stream.next('RESYNC');
    const seen = stream.events.length;
    // Deleting the post makes a tombstone of each of its comments in one change.
    expect((await admin.client.delete(`/api/posts/${post.id}`)).status).toBe(204);
    await quiet(stream);
    const events = stream.events.slice(seen).map((e) => JSON.parse(e.data) as ChangeEvent);
    expect(events.find((e) => e.collection === 'comments')).toEqual({ collection: 'comments' });
    expect(events.find((e) => e.collection === 'posts')?.documents).toMatchObject([{ id: post.id, _deleted: true }]);
    stream.close();
  });

  it('answers pulls of a collection everyone sees alike from one computed answer until something changes', async () => {
    const one = await t.signedIn();
    const two = await t.signedIn();
    const a = await pullPage(one.client, 'posts');
    const b = await pullPage(two.client, 'posts');
    expect(b.text).toBe(a.text);
    expect(a.page.through).toBeGreaterThan(0);
    const pushed = newPostDoc();
    await one.client.post('/api/sync/posts/push', [{ newDocumentState: pushed, assumedMasterState: null }]);
    const after = await pullPage(two.client, 'posts');
    expect(after.page.documents.map((d) => d.id)).toContain(pushed.id);
    expect(after.page.through).toBeGreaterThan(a.page.through!);
  });
});

describe('a server set to announce only', () => {
  it('sends the collection alone, as before decision 131', async () => {
    const server = await startTestServer({ SYNC_DELIVERY: 'announce' });
    try {
      const watcher = await server.signedIn();
      const stream = await watcher.client.openStream();
      await stream.next('RESYNC');
      const seen = stream.events.length;
      await watcher.client.post('/api/sync/posts/push', [{ newDocumentState: newPostDoc(), assumedMasterState: null }]);
      expect(JSON.parse((await stream.next('change', seen)).data)).toEqual({ collection: 'posts' });
      stream.close();
    } finally {
      await server.close();
    }
  });
});
