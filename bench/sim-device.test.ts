import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SyncCollection } from '../schema/sync';
import { insertSignedInUser } from '../server/test/ready-sessions';
import { startTestServer, type TestServer } from '../server/test/test-server';
import {
  changeKeys,
  createRow,
  decide,
  newCommentDoc,
  newMessageDoc,
  newPostDoc,
  newReactionDoc,
  reactionKey,
  SimDevice,
  waitUntil,
  type ChangeEventData,
  type PullAnswer,
  type WireDoc,
} from './sim-device';

const doc = (id: string): WireDoc => ({ id, _deleted: false });
const upTo = (seq: number) => ({ seq, id: '~', before: null });

describe('the decision a device takes on a change event', () => {
  const delivery = (since: number, seq: number): ChangeEventData => ({
    collection: 'posts',
    since,
    checkpoint: upTo(seq),
    documents: [doc('p')],
  });

  it('holds the documents when they start at or before its coverage and end after it', () => {
    expect(decide(5, delivery(5, 7))).toBe('hold');
    expect(decide(6, delivery(5, 7))).toBe('hold');
  });

  it('does nothing when its coverage already reaches the event', () => {
    expect(decide(7, delivery(5, 7))).toBe('nothing');
    expect(decide(9, { collection: 'posts', since: 5, checkpoint: upTo(7) })).toBe('nothing');
  });

  it('pulls when the event leaves a gap, carries no documents, or the device has no coverage yet', () => {
    expect(decide(4, delivery(5, 7))).toBe('pull');
    expect(decide(5, { collection: 'posts', since: 5, checkpoint: upTo(7) })).toBe('pull');
    expect(decide(undefined, delivery(5, 7))).toBe('pull');
    expect(decide(5, { collection: 'posts' })).toBe('pull');
  });
});

/** A server that speaks the delivering protocol from a script: pull answers are given by the test, one by one. */
async function scriptedServer() {
  const streams: http.ServerResponse[] = [];
  const pulls: { seq: string | null; answer: (page: PullAnswer) => void }[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname === '/api/sync/stream') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: RESYNC\ndata: {}\n\n');
      streams.push(response);
      return;
    }
    pulls.push({
      seq: url.searchParams.get('seq'),
      answer: (page) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(page));
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Listening on a TCP port, the address is an AddressInfo (a string only for a pipe).
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    pulls,
    send: (data: ChangeEventData) =>
      streams.forEach((s) => s.write(`event: change\ndata: ${JSON.stringify(data)}\n\n`)),
    /** Waits for the n-th pull request (1-based) and answers it. */
    async answer(n: number, page: PullAnswer) {
      await waitUntil(() => pulls.length >= n, 3000, `pull request ${n}`);
      pulls[n - 1].answer(page);
    },
    close: () =>
      new Promise<void>((resolve) => {
        streams.forEach((s) => s.end());
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a simulated device against a server that delivers changes', () => {
  let script: Awaited<ReturnType<typeof scriptedServer>>;
  let device: SimDevice;
  afterEach(async () => {
    device.close();
    await script.close();
  });

  const start = async (limit = 2) => {
    script = await scriptedServer();
    device = new SimDevice({
      base: script.base,
      token: 'token',
      deviceId: 'device-1',
      collections: ['posts'],
      limit,
      keysOf: changeKeys,
    });
    device.connect();
  };
  const pulledFrom = () => script.pulls.map((p) => p.seq);

  it('pulls full pages from its checkpoint, takes the coverage of a short one, then holds what events carry', async () => {
    await start();
    await script.answer(1, { documents: [doc('a'), doc('b')], checkpoint: { seq: 2, id: 'b', before: null } });
    await script.answer(2, { documents: [doc('c')], checkpoint: { seq: 3, id: 'c', before: null }, through: 5 });
    await device.synced;
    expect(device.stateOf('posts').coverage).toBe(5);

    script.send({ collection: 'posts', since: 5, checkpoint: upTo(7), documents: [doc('d')] });
    await waitUntil(() => device.held.has('posts/d'), 3000, 'the delivered post');
    expect(device.stateOf('posts')).toEqual({ coverage: 7, checkpoint: upTo(7) });

    script.send({ collection: 'posts', since: 5, checkpoint: upTo(6), documents: [doc('old')] });
    script.send({ collection: 'posts', since: 9, checkpoint: upTo(10), documents: [doc('e')] });
    await script.answer(3, { documents: [doc('e2')], checkpoint: { seq: 10, id: 'e2', before: null }, through: 10 });
    await waitUntil(() => device.idle() && device.held.has('posts/e2'), 3000, 'the pull after a gap');
    expect(pulledFrom()).toEqual([null, '2', '7']);
    expect(device.held.has('posts/old')).toBe(false);
    expect(device.held.has('posts/e')).toBe(false);
    expect(device.stateOf('posts').coverage).toBe(10);
    expect(device.delivered).toBe(1);
  });

  it('looks again at events that came during a pull once it ends, pulling once more only if they need it', async () => {
    await start(10);
    await waitUntil(() => script.pulls.length === 1, 3000, 'the first pull');
    script.send({ collection: 'posts', since: 0, checkpoint: upTo(4), documents: [doc('covered')] });
    script.send({ collection: 'posts', since: 5, checkpoint: upTo(8), documents: [doc('after')] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await script.answer(1, { documents: [doc('a')], checkpoint: { seq: 3, id: 'a', before: null }, through: 5 });
    await waitUntil(() => device.held.has('posts/after') && device.idle(), 3000, 'the event after the pull');
    expect(device.held.has('posts/covered')).toBe(false);
    expect(device.stateOf('posts')).toEqual({ coverage: 8, checkpoint: upTo(8) });

    // Announcements only (today's server): two during a pull make one more pull, not two.
    script.send({ collection: 'posts' });
    await waitUntil(() => script.pulls.length === 2, 3000, 'the announced pull');
    script.send({ collection: 'posts' });
    script.send({ collection: 'posts' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await script.answer(2, { documents: [], checkpoint: upTo(8) });
    await script.answer(3, { documents: [], checkpoint: upTo(8) });
    await waitUntil(() => device.idle(), 3000, 'the device to be idle');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pulledFrom()).toEqual([null, '8', '8']);
  });
});

describe('simulated devices against the real server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });

  it('each ends holding every change it may see exactly once, by event or by pull', async () => {
    const collections: SyncCollection[] = ['posts', 'comments', 'reactions', 'conversations', 'messages'];
    const users: { id: string; token: string }[] = [];
    for (const name of ['Ann', 'Ben', 'Cat'])
      users.push(
        await insertSignedInUser(t.db, {
          email: `${name}@sim.example`,
          firstName: name,
          lastName: 'Sim',
          role: 'staff',
        }),
      );
    /** Per device, how many times each version of each document reached it. */
    const received = users.map(() => new Map<string, number>());
    const devices = users.map(
      (user, i) =>
        new SimDevice({
          base: t.url,
          token: user.token,
          deviceId: `sim-device-${i}`,
          collections,
          keysOf: changeKeys,
          onDocuments: (collection, documents) => {
            for (const d of documents) {
              const version = `${collection} ${JSON.stringify(d)}`;
              received[i].set(version, (received[i].get(version) ?? 0) + 1);
            }
          },
        }),
    );
    try {
      devices.forEach((d) => d.connect());
      await Promise.all(devices.map((d) => d.synced));
      const [ann, ben, cat] = users;
      const post = newPostDoc(ann.id, 'Handover at 8');
      expect((await devices[0].push('posts', [createRow(post)])).status).toBe(200);
      const everyone = (key: string) => () => devices.every((d) => d.held.has(key));
      await waitUntil(everyone(`posts/${post.id}`), 5000, 'the post');

      const message = newMessageDoc(ann.id, ben.id, 'Can you cover Friday?');
      const comment = newCommentDoc(post.id, ben.id, 'Noted');
      const sent = await Promise.all([
        devices[0].push('messages', [createRow(message)]),
        devices[2].push('reactions', [createRow(newReactionDoc(post.id, cat.id, 'like'))]),
        devices[1].push('comments', [createRow(comment)]),
      ]);
      expect(sent.map((s) => s.status)).toEqual([200, 200, 200]);
      await waitUntil(
        () =>
          everyone(reactionKey(post.id, cat.id))() &&
          everyone(`comments/${comment.id}`)() &&
          devices[1].held.has(`messages/${message.id}`) &&
          devices.every((d) => d.idle()),
        5000,
        'every change',
      );
      expect(devices[2].held.has(`messages/${message.id}`)).toBe(false);
      // A second change to collections each device already pulled from: only it comes, not the first again.
      const reply = newMessageDoc(ben.id, ann.id, 'Yes');
      const another = newCommentDoc(post.id, cat.id, 'Thanks');
      await Promise.all([
        devices[1].push('messages', [createRow(reply)]),
        devices[2].push('comments', [createRow(another)]),
      ]);
      await waitUntil(
        () =>
          everyone(`comments/${another.id}`)() &&
          devices[0].held.has(`messages/${reply.id}`) &&
          devices.every((d) => d.idle()),
        5000,
        'the second changes',
      );
      for (const counts of received) expect([...counts.values()].every((n) => n === 1)).toBe(true);
      expect(devices.map((d) => d.errors)).toEqual([0, 0, 0]);
    } finally {
      devices.forEach((d) => d.close());
    }
  });
});
