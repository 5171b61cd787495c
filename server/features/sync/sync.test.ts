import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../schema/constants';
import type { PostView } from '../../../schema/posts';
import type {
  CommentDoc,
  DirectoryUserDoc,
  PostDoc,
  PullResponse,
  PushResponse,
  ReactionDoc,
  SyncCheckpoint,
} from '../../../schema/sync';
import { newPostDoc } from '../../test/sync-docs';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

async function pull<T>(client: TestClient, collection: string, checkpoint?: SyncCheckpoint, limit?: number) {
  const params = new URLSearchParams();
  if (checkpoint) params.set('seq', String(checkpoint.seq));
  if (checkpoint) params.set('id', checkpoint.id);
  if (limit) params.set('limit', String(limit));
  const res = await client.get(`/api/sync/${collection}/pull?${params}`);
  expect(res.status).toBe(200);
  return res.body as unknown as PullResponse<T>;
}

/** Pulls a collection to the end, page by page, as RxDB does. */
async function pullAll<T extends { id: string }>(client: TestClient, collection: string, limit = 500) {
  const docs = new Map<string, T>();
  let checkpoint: SyncCheckpoint | undefined;
  for (;;) {
    const page: PullResponse<T> = await pull<T>(client, collection, checkpoint, limit);
    for (const doc of page.documents) docs.set(doc.id, doc);
    if (page.documents.length === 0) return { docs, checkpoint: page.checkpoint };
    checkpoint = page.checkpoint;
  }
}

async function push<T>(client: TestClient, collection: string, rows: unknown[]) {
  const res = await client.post(`/api/sync/${collection}/push`, rows);
  expect(res.status).toBe(200);
  return (res.body as unknown as PushResponse<T>).conflicts;
}

async function masterOf(client: TestClient, id: string): Promise<PostDoc> {
  const { docs } = await pullAll<PostDoc>(client, 'posts');
  return docs.get(id)!;
}

describe('access to the sync calls', () => {
  it.each([
    ['GET', '/api/sync/posts/pull'],
    ['POST', '/api/sync/posts/push'],
    ['GET', '/api/sync/stream'],
  ])('%s %s answers 401 when signed out', async (method, path) => {
    expect((await t.client().request(method, path, method === 'POST' ? [] : undefined)).status).toBe(401);
  });

  it('refuses an unknown collection, a push to the read-only directory and an oversized batch', async () => {
    const { client } = await t.signedIn();
    expect((await client.get('/api/sync/secrets/pull')).status).toBe(400);
    const directory = await client.post('/api/sync/users/push', []);
    expect(directory.status).toBe(400);
    expect(directory.body.message).toBe('This collection is read-only');
    const many = Array.from({ length: 101 }, () => ({ newDocumentState: newPostDoc(), assumedMasterState: null }));
    const big = await client.post('/api/sync/posts/push', many);
    expect(big.status).toBe(400);
    expect(big.body.message).toBe('At most 100 rows can be pushed at once');
  });
});

describe('pull', () => {
  it('gzips a pull page for a client that accepts it', async () => {
    for (let i = 0; i < 5; i += 1) await t.buildPost({ content: 'A longer post about the garden party. '.repeat(20) });
    const { client } = await t.signedIn();
    const res = await fetch(`${t.url}/api/sync/posts/pull?limit=20`, {
      headers: { cookie: client.cookie, 'accept-encoding': 'gzip' },
    });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const page = (await res.json()) as PullResponse<PostDoc>;
    expect(page.documents.length).toBeGreaterThanOrEqual(5);
  });

  it('sends a small pull page as it is, with its length: no gzip stream for a change or two', async () => {
    const { client } = await t.signedIn();
    const res = await fetch(`${t.url}/api/sync/conversations/pull?limit=20`, {
      headers: { cookie: client.cookie, 'accept-encoding': 'gzip' },
    });
    expect(res.headers.get('content-encoding')).toBeNull();
    const body = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect((JSON.parse(body) as PullResponse<PostDoc>).documents).toEqual([]);
  });

  it('pages through many documents by checkpoint, each exactly once, in change order', async () => {
    const fresh = await startTestServer();
    try {
      const made = new Set<string>();
      for (let i = 0; i < 23; i += 1) made.add((await fresh.buildPost({ content: `p${i}` })).id);
      const { client } = await fresh.signedIn();
      const seen: string[] = [];
      let checkpoint: SyncCheckpoint | undefined;
      let pages = 0;
      for (;;) {
        const page: PullResponse<PostDoc> = await pull<PostDoc>(client, 'posts', checkpoint, 5);
        if (page.documents.length === 0) {
          expect(page.checkpoint).toEqual(checkpoint);
          break;
        }
        pages += 1;
        seen.push(...page.documents.map((d) => d.id));
        expect(page.checkpoint.id).toBe(page.documents[page.documents.length - 1].id);
        if (checkpoint) expect(page.checkpoint.seq).toBeGreaterThan(checkpoint.seq);
        checkpoint = page.checkpoint;
      }
      expect(pages).toBe(5);
      expect(new Set(seen)).toEqual(made);
      expect(seen).toHaveLength(23);

      // A later edit moves the post to the end of the feed: the next pull brings only it.
      const [first] = seen;
      const sysadmin = (await fresh.signedIn({ role: 'system_admin' })).client;
      await sysadmin.patch(`/api/posts/${first}`, { content: 'edited' });
      const next = await pull<PostDoc>(client, 'posts', checkpoint);
      expect(next.documents.map((d) => [d.id, d.content])).toEqual([[first, 'edited']]);
    } finally {
      await fresh.close();
    }
  });

  it('fills a first sync newest first, then carries on in change order with nothing missed', async () => {
    const fresh = await startTestServer();
    try {
      const made: string[] = [];
      for (let i = 0; i < 23; i += 1) made.push((await fresh.buildPost({ content: `p${i}` })).id);
      const { client } = await fresh.signedIn();
      const sysadmin = (await fresh.signedIn({ role: 'system_admin' })).client;
      const query = (params: Record<string, string | number>) =>
        client.get(
          `/api/sync/posts/pull?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`,
        );

      const first = (await query({ backfill: 1, limit: 10 })).body as unknown as PullResponse<PostDoc>;
      expect(first.documents.map((d) => d.id)).toEqual(made.slice(-10).reverse());
      expect(first.checkpoint.before).toBeDefined();

      // Changes made while the fill runs: an edit of a post not yet sent, and a new post.
      await sysadmin.patch(`/api/posts/${made[0]}`, { content: 'edited during the fill' });
      const late = await fresh.buildPost({ content: 'late' });

      const seen = [...first.documents.map((d) => d.id)];
      let checkpoint = first.checkpoint;
      while (checkpoint.before) {
        const page = (
          await query({
            backfill: 1,
            limit: 10,
            seq: checkpoint.seq,
            id: checkpoint.id,
            beforeSeq: checkpoint.before.seq,
            beforeId: checkpoint.before.id,
          })
        ).body as unknown as PullResponse<PostDoc>;
        seen.push(...page.documents.map((d) => d.id));
        checkpoint = page.checkpoint;
      }
      // The edited post left the filled range (its change is newer); everything else came newest first.
      expect(seen).toEqual(made.slice(1).reverse());
      const rest = await pull<PostDoc>(client, 'posts', checkpoint);
      expect(rest.documents.map((d) => [d.id, d.content])).toEqual([
        [made[0], 'edited during the fill'],
        [late.id, 'late'],
      ]);
    } finally {
      await fresh.close();
    }
  });

  it('returns deletes as tombstones without their content', async () => {
    const { user, client } = await t.signedIn();
    const post = await t.buildPost({ authorId: user.id, content: 'Soon gone' });
    const comment = await t.buildComment(post.id, user.id);
    await t.buildReaction(post.id, user.id, 'like');
    const { checkpoint } = await pullAll<PostDoc>(client, 'posts');
    const before = await pullAll<CommentDoc>(client, 'comments');
    const reactionsBefore = await pullAll<ReactionDoc>(client, 'reactions');
    expect((await client.delete(`/api/posts/${post.id}`)).status).toBe(204);
    const after = await pull<PostDoc>(client, 'posts', checkpoint);
    expect(after.documents).toEqual([expect.objectContaining({ id: post.id, _deleted: true, content: '' })]);
    const comments = await pull<CommentDoc>(client, 'comments', before.checkpoint);
    expect(comments.documents).toEqual([expect.objectContaining({ id: comment.id, _deleted: true })]);
    const reactions = await pull<ReactionDoc>(client, 'reactions', reactionsBefore.checkpoint);
    expect(reactions.documents).toEqual([
      expect.objectContaining({ id: `${post.id}:${user.id}`, userId: user.id, _deleted: true }),
    ]);
  });

  it('refuses a limit above 1000', async () => {
    const { client } = await t.signedIn();
    const res = await client.get('/api/sync/posts/pull?limit=1001');
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('limit must be a number from 1 to 1000');
  });
});

describe('push: posts', () => {
  it('creates a post by the pusher at the server time, whatever author or time the document claims', async () => {
    const victim = await t.buildUser();
    const { user, client } = await t.signedIn();
    const doc = newPostDoc({ authorId: victim.id, createdAt: 978_307_200_000, updatedAt: 978_307_200_000 });
    expect(await push(client, 'posts', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([]);
    const master = await masterOf(client, doc.id);
    expect(master.authorId).toBe(user.id);
    expect(master.createdAt).toBeGreaterThan(Date.now() - 60_000);
    const view = ((await client.get('/api/posts?limit=100')).body as unknown as PostView[]).find(
      (p) => p.id === doc.id,
    );
    expect(view?.author.id).toBe(user.id);
  });

  it('stores a create pushed twice once, answering the master the second time', async () => {
    const { client } = await t.signedIn();
    const doc = newPostDoc();
    const row = { newDocumentState: doc, assumedMasterState: null };
    expect(await push(client, 'posts', [row])).toEqual([]);
    const conflicts = await push<PostDoc>(client, 'posts', [row]);
    expect(conflicts).toEqual([expect.objectContaining({ id: doc.id, content: doc.content, _deleted: false })]);
    const { docs } = await pullAll<PostDoc>(client, 'posts');
    expect([...docs.values()].filter((d) => d.id === doc.id)).toHaveLength(1);
    const count = (await statement(t.db, 'SELECT count(*) AS n FROM posts WHERE id = ?').get([doc.id])) as {
      n: number;
    };
    expect(count.n).toBe(1);
  });

  it('detects a conflict: of two clients editing from the same state, the second gets the master back', async () => {
    const { user, client: phone } = await t.signedIn();
    const laptop = t.client();
    await laptop.post('/api/auth/login', { email: user.email, password: 'Str0ng!Passw0rd' });
    const post = await t.buildPost({ authorId: user.id, content: 'v1' });
    const master = await masterOf(phone, post.id);
    const fromPhone = await push(phone, 'posts', [
      { newDocumentState: { ...master, content: 'phone edit' }, assumedMasterState: master },
    ]);
    expect(fromPhone).toEqual([]);
    const fromLaptop = await push<PostDoc>(laptop, 'posts', [
      { newDocumentState: { ...master, isUrgent: true }, assumedMasterState: master },
    ]);
    expect(fromLaptop).toEqual([expect.objectContaining({ id: post.id, content: 'phone edit', isUrgent: false })]);
    // The laptop re-applies its own change on top of the master it got back: accepted.
    const resolved = fromLaptop[0];
    expect(
      await push(laptop, 'posts', [
        { newDocumentState: { ...resolved, isUrgent: true }, assumedMasterState: resolved },
      ]),
    ).toEqual([]);
    expect(await masterOf(phone, post.id)).toMatchObject({ content: 'phone edit', isUrgent: true });
  });

  it('answers, with a conflict, the state this device last wrote when its push answer was lost (decision 69)', async () => {
    const { user, client } = await t.signedIn();
    const post = await t.buildPost({ authorId: user.id, content: 'v1' });
    const v1 = await masterOf(client, post.id);
    const pushAs = async (device: string | null, rows: unknown[]) => {
      const res = await client.request('POST', '/api/sync/posts/push', rows, device ? { 'X-Sync-Device': device } : {});
      expect(res.status).toBe(200);
      return res.body as unknown as PushResponse<PostDoc>;
    };
    // The phone's edit is stored, but its answer never arrives: the phone still assumes v1.
    expect(
      await pushAs('phone000001', [
        { newDocumentState: { ...v1, content: 'v2', category: 'buildings_maintenance' }, assumedMasterState: v1 },
      ]),
    ).toEqual({ conflicts: [] });
    const v2 = await masterOf(client, post.id);
    const next = { newDocumentState: { ...v1, content: 'v3' }, assumedMasterState: v1 };
    // The phone's next push conflicts, and comes with what it last wrote, newer than v1: merge from there.
    expect(await pushAs('phone000001', [next])).toEqual({ conflicts: [v2], bases: { [post.id]: v2 } });
    // Another device of the same user, or a client that does not say which device it is, gets no base.
    expect(await pushAs('laptop00001', [next])).toEqual({ conflicts: [v2] });
    expect(await pushAs(null, [next])).toEqual({ conflicts: [v2] });
    // Nor does another user claiming the phone's device id.
    const other = await t.signedIn({ role: 'admin' });
    const res = await other.client.request('POST', '/api/sync/posts/push', [next], { 'X-Sync-Device': 'phone000001' });
    expect(res.body).toEqual({ conflicts: [v2] });
    // A base older than the assumed master is no help: none is sent.
    await pushAs('laptop00001', [{ newDocumentState: { ...v2, content: 'v4' }, assumedMasterState: v2 }]);
    const v4 = await masterOf(client, post.id);
    expect(v4.updatedAt).toBeGreaterThan(v2.updatedAt);
    const stale = { newDocumentState: { ...v4, content: 'v5' }, assumedMasterState: v4 };
    await other.client.request('POST', '/api/sync/posts/push', [
      { newDocumentState: { ...v4, isUrgent: true }, assumedMasterState: v4 },
    ]);
    const v5 = await masterOf(client, post.id);
    expect(await pushAs('phone000001', [stale])).toEqual({ conflicts: [v5] });
  });

  it('refuses a malformed device id with 400', async () => {
    const { client } = await t.signedIn();
    const res = await client.request('POST', '/api/sync/posts/push', [], { 'X-Sync-Device': 'x y<script>' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ message: expect.stringContaining('X-Sync-Device') });
  });

  it("refuses another staff member's edit and delete through sync, answering the unchanged master", async () => {
    const post = await t.buildPost({ content: 'Mine alone' });
    const { client } = await t.signedIn();
    const master = await masterOf(client, post.id);
    const edit = await push<PostDoc>(client, 'posts', [
      { newDocumentState: { ...master, content: 'Hijacked' }, assumedMasterState: master },
    ]);
    expect(edit).toEqual([master]);
    const del = await push<PostDoc>(client, 'posts', [
      { newDocumentState: { ...master, _deleted: true }, assumedMasterState: master },
    ]);
    expect(del).toEqual([master]);
    expect(await masterOf(client, post.id)).toEqual(master);
  });

  it('lets an admin edit and delete any post through sync', async () => {
    const post = await t.buildPost();
    const { client } = await t.signedIn({ role: 'admin' });
    const master = await masterOf(client, post.id);
    expect(
      await push(client, 'posts', [
        { newDocumentState: { ...master, content: 'Moderated' }, assumedMasterState: master },
      ]),
    ).toEqual([]);
    const edited = await masterOf(client, post.id);
    expect(edited.content).toBe('Moderated');
    expect(
      await push(client, 'posts', [{ newDocumentState: { ...edited, _deleted: true }, assumedMasterState: edited }]),
    ).toEqual([]);
    expect((await masterOf(client, post.id))._deleted).toBe(true);
  });

  it('does not let a refused row in the middle of a batch block the others', async () => {
    const someoneElses = await t.buildPost({ content: 'Not yours' });
    const { client } = await t.signedIn();
    const master = await masterOf(client, someoneElses.id);
    const before = newPostDoc({ content: 'first' });
    const invalid = newPostDoc({ content: '   ' });
    const after = newPostDoc({ content: 'last' });
    const conflicts = await push<PostDoc>(client, 'posts', [
      { newDocumentState: before, assumedMasterState: null },
      { newDocumentState: { ...master, content: 'Hijacked' }, assumedMasterState: master },
      { newDocumentState: invalid, assumedMasterState: null },
      { newDocumentState: after, assumedMasterState: null },
    ]);
    expect(conflicts).toEqual([master, { ...invalid, _deleted: true }]);
    const { docs } = await pullAll<PostDoc>(client, 'posts');
    expect(docs.get(before.id)?.content).toBe('first');
    expect(docs.get(after.id)?.content).toBe('last');
    expect(docs.has(invalid.id)).toBe(false);
  });

  it('takes a full batch of long posts, beyond the 1 MB JSON limit', async () => {
    const { client } = await t.signedIn();
    const rows = Array.from({ length: 100 }, () => ({
      newDocumentState: newPostDoc({ content: 'é'.repeat(10_000) }),
      assumedMasterState: null,
    }));
    expect(Buffer.byteLength(JSON.stringify(rows))).toBeGreaterThan(1024 * 1024);
    expect(await push(client, 'posts', rows)).toEqual([]);
  });

  it('keeps server-owned fields and pictures fixed on an edit', async () => {
    const { user, client } = await t.signedIn();
    const post = await t.buildPost({ authorId: user.id });
    const master = await masterOf(client, post.id);
    const forged = await push(client, 'posts', [
      {
        newDocumentState: { ...master, content: 'ok', authorId: 'someone-else', createdAt: 1, updatedAt: 1 },
        assumedMasterState: master,
      },
    ]);
    expect(forged).toEqual([]);
    const edited = await masterOf(client, post.id);
    expect(edited).toMatchObject({ content: 'ok', authorId: user.id, createdAt: master.createdAt });
    const pictures = await push<PostDoc>(client, 'posts', [
      { newDocumentState: { ...edited, images: ['/api/uploads/x'] }, assumedMasterState: edited },
    ]);
    expect(pictures).toEqual([edited]);
  });

  it('answers the tombstone when an edit reaches a post deleted meanwhile (a delete wins)', async () => {
    const { user, client } = await t.signedIn();
    const post = await t.buildPost({ authorId: user.id });
    const master = await masterOf(client, post.id);
    await client.delete(`/api/posts/${post.id}`);
    const conflicts = await push<PostDoc>(client, 'posts', [
      { newDocumentState: { ...master, content: 'too late' }, assumedMasterState: master },
    ]);
    expect(conflicts).toEqual([expect.objectContaining({ id: post.id, _deleted: true })]);
  });
});

describe('push: comments and reactions', () => {
  it('creates and deletes comments through the same rules as REST; an edit is refused', async () => {
    const post = await t.buildPost();
    const { user, client } = await t.signedIn();
    const doc: CommentDoc = {
      id: randomUUID(),
      postId: post.id,
      authorId: 'forged',
      content: 'Offline comment',
      createdAt: 1,
      writtenAt: 1,
      updatedAt: 1,
      _deleted: false,
    };
    expect(await push(client, 'comments', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([]);
    const { docs } = await pullAll<CommentDoc>(client, 'comments');
    const master = docs.get(doc.id)!;
    expect(master).toMatchObject({ authorId: user.id, content: 'Offline comment' });
    expect(master.createdAt).toBeGreaterThan(1);

    const edit = await push(client, 'comments', [
      { newDocumentState: { ...master, content: 'changed' }, assumedMasterState: master },
    ]);
    expect(edit).toEqual([master]);

    const stranger = (await t.signedIn()).client;
    const refused = await push(stranger, 'comments', [
      { newDocumentState: { ...master, _deleted: true }, assumedMasterState: master },
    ]);
    expect(refused).toEqual([master]);
    expect(
      await push(client, 'comments', [{ newDocumentState: { ...master, _deleted: true }, assumedMasterState: master }]),
    ).toEqual([]);
    expect(((await client.get(`/api/posts/${post.id}/comments`)).body as unknown as unknown[]).length).toBe(0);
  });

  it('refuses a comment on a missing post with a tombstone', async () => {
    const { client } = await t.signedIn();
    const doc = {
      id: randomUUID(),
      postId: randomUUID(),
      authorId: null,
      content: 'Hello',
      createdAt: 0,
      updatedAt: 0,
      _deleted: false,
    };
    expect(await push(client, 'comments', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([
      { ...doc, _deleted: true },
    ]);
  });

  it('sets, replaces and removes the pusher’s own reaction, last push wins; another user’s reaction is refused', async () => {
    const post = await t.buildPost();
    const { user, client } = await t.signedIn();
    const id = `${post.id}:${user.id}`;
    const doc: ReactionDoc = {
      id,
      postId: post.id,
      userId: user.id,
      type: 'like',
      createdAt: 0,
      updatedAt: 0,
      _deleted: false,
    };
    expect(await push(client, 'reactions', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([]);
    // A second device with a stale view still wins: only this user writes this document.
    expect(
      await push(client, 'reactions', [{ newDocumentState: { ...doc, type: 'sad' }, assumedMasterState: null }]),
    ).toEqual([]);
    let view = ((await client.get('/api/posts?limit=100')).body as unknown as PostView[]).find((p) => p.id === post.id);
    expect(view).toMatchObject({ userReaction: 'sad', reactionCounts: { sad: 1 } });
    expect(
      await push(client, 'reactions', [{ newDocumentState: { ...doc, _deleted: true }, assumedMasterState: null }]),
    ).toEqual([]);
    view = ((await client.get('/api/posts?limit=100')).body as unknown as PostView[]).find((p) => p.id === post.id);
    expect(view).toMatchObject({ userReaction: null, reactionCounts: {} });

    const victim = await t.buildUser();
    const forged = { ...doc, id: `${post.id}:${victim.id}`, userId: victim.id };
    expect(await push(client, 'reactions', [{ newDocumentState: forged, assumedMasterState: null }])).toEqual([
      { ...forged, _deleted: true },
    ]);
    expect((await client.get(`/api/posts/${post.id}/reactions`)).body).toEqual([]);
  });
});

describe('reactions on the posts (decision 74)', () => {
  it("pulls each post with everyone's live reactions, per type in the order they were chosen", async () => {
    const { client } = await t.signedIn();
    const post = await t.buildPost();
    const ann = await t.buildUser();
    const bob = await t.buildUser();
    const cat = await t.buildUser();
    await t.buildReaction(post.id, ann.id, 'like');
    await new Promise((r) => setTimeout(r, 3));
    await t.buildReaction(post.id, cat.id, 'sad');
    await new Promise((r) => setTimeout(r, 3));
    await t.buildReaction(post.id, bob.id, 'like');
    const quiet = await t.buildPost();
    const { docs } = await pullAll<PostDoc>(client, 'posts');
    expect(docs.get(post.id)?.reactions).toEqual({ like: [ann.id, bob.id], sad: [cat.id] });
    expect(docs.get(quiet.id)?.reactions).toEqual({});
    // The first sync's newest-first fill carries them too.
    const fill = await client.get('/api/sync/posts/pull?backfill=1&limit=1000');
    const filled = (fill.body as unknown as PullResponse<PostDoc>).documents.find((d) => d.id === post.id);
    expect(filled?.reactions).toEqual({ like: [ann.id, bob.id], sad: [cat.id] });
  });

  it('moves the post up the change feed when a reaction is set, changed or removed, through REST or sync', async () => {
    const { client } = await t.signedIn();
    const { user: other, client: otherClient } = await t.signedIn();
    const post = await t.buildPost();
    let { checkpoint } = await pullAll<PostDoc>(client, 'posts');
    const nextPost = async () => {
      const page = await pull<PostDoc>(client, 'posts', checkpoint);
      checkpoint = page.checkpoint;
      return page.documents;
    };
    await otherClient.post(`/api/posts/${post.id}/reactions`, { type: 'love' });
    expect((await nextPost()).map((d) => [d.id, d.reactions])).toEqual([[post.id, { love: [other.id] }]]);
    const doc: ReactionDoc = {
      id: `${post.id}:${other.id}`,
      postId: post.id,
      userId: other.id,
      type: 'wow',
      createdAt: 0,
      updatedAt: 0,
      _deleted: false,
    };
    expect(await push(otherClient, 'reactions', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([]);
    expect((await nextPost()).map((d) => [d.id, d.reactions])).toEqual([[post.id, { wow: [other.id] }]]);
    await push(otherClient, 'reactions', [{ newDocumentState: { ...doc, _deleted: true }, assumedMasterState: doc }]);
    expect((await nextPost()).map((d) => [d.id, d.reactions])).toEqual([[post.id, {}]]);
    // Nothing else moved: the post's own fields are as they were.
    expect(await nextPost()).toEqual([]);
  });

  it("tells every stream that the posts changed, and only the reacting user's streams about reactions", async () => {
    const { client: watcher } = await t.signedIn();
    const { client: reacting, user: reactor } = await t.signedIn();
    const post = await t.buildPost();
    const watching = await watcher.openStream();
    const own = await reacting.openStream();
    try {
      await watching.next('RESYNC');
      await own.next('RESYNC');
      const [seenWatcher, seenOwn] = [watching.events.length, own.events.length];
      await reacting.post(`/api/posts/${post.id}/reactions`, { type: 'like' });
      // The event carries the post with its reactions: the watcher stores it without a pull (decision 131).
      expect(JSON.parse((await watching.next('change', seenWatcher)).data)).toMatchObject({
        collection: 'posts',
        documents: [{ id: post.id, reactions: { like: [reactor.id] } }],
      });
      await own.next('change', seenOwn);
      await new Promise((r) => setTimeout(r, 50));
      const collections = (events: { event: string; data: string }[], from: number) =>
        events.slice(from).map((e) => (JSON.parse(e.data) as { collection: string }).collection);
      expect(collections(watching.events, seenWatcher)).toEqual(['posts']);
      expect(collections(own.events, seenOwn).sort()).toEqual(['posts', 'reactions']);
    } finally {
      watching.close();
      own.close();
    }
  });

  it("pulls only the user's own reaction documents, tombstones included, and never reveals another's", async () => {
    const { user, client } = await t.signedIn();
    const other = await t.buildUser();
    const post = await t.buildPost();
    await t.buildReaction(post.id, user.id, 'like');
    await t.buildReaction(post.id, other.id, 'angry');
    const { docs, checkpoint } = await pullAll<ReactionDoc>(client, 'reactions');
    expect([...docs.values()].filter((d) => d.postId === post.id)).toEqual([
      expect.objectContaining({ id: `${post.id}:${user.id}`, type: 'like', _deleted: false }),
    ]);
    expect((await client.post(`/api/posts/${post.id}/reactions`, { type: 'like' })).status).toBe(200);
    expect((await pull<ReactionDoc>(client, 'reactions', checkpoint)).documents).toEqual([
      expect.objectContaining({ id: `${post.id}:${user.id}`, _deleted: true }),
    ]);
    // Pushing over another user's reaction answers the pushed document as a tombstone, not theirs.
    const forged: ReactionDoc = {
      id: `${post.id}:${other.id}`,
      postId: post.id,
      userId: other.id,
      type: 'like',
      createdAt: 0,
      updatedAt: 0,
      _deleted: false,
    };
    expect(await push(client, 'reactions', [{ newDocumentState: forged, assumedMasterState: forged }])).toEqual([
      { ...forged, _deleted: true },
    ]);
    expect((await client.get(`/api/posts/${post.id}/reactions`)).body).toEqual([
      { type: 'angry', users: [expect.objectContaining({ firstName: other.firstName })] },
    ]);
  });

  it('moves the posts a deleted account had reacted to, which then carry its reactions no more', async () => {
    const { client } = await t.signedIn();
    const sysadmin = (await t.signedIn({ role: 'system_admin' })).client;
    const gone = await t.buildUser();
    const post = await t.buildPost();
    await t.buildReaction(post.id, gone.id, 'sad');
    const { checkpoint, docs } = await pullAll<PostDoc>(client, 'posts');
    expect(docs.get(post.id)?.reactions).toEqual({ sad: [gone.id] });
    expect((await sysadmin.delete(`/api/admin/users/${gone.id}`)).status).toBe(204);
    const moved = (await pull<PostDoc>(client, 'posts', checkpoint, 1000)).documents.find((d) => d.id === post.id);
    expect(moved?.reactions).toEqual({});
  });
});

describe('push that changes nothing', () => {
  it('brings the stored version back to the pusher even when the push changed nothing', async () => {
    const post = await t.buildPost();
    const { user, client } = await t.signedIn();
    const id = `${post.id}:${user.id}`;
    const doc: ReactionDoc = {
      id,
      postId: post.id,
      userId: user.id,
      type: 'like',
      createdAt: 1,
      updatedAt: 1,
      _deleted: false,
    };
    expect(await push(client, 'reactions', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([]);
    const { checkpoint, docs } = await pullAll<ReactionDoc>(client, 'reactions');
    const stored = docs.get(id)!;
    // The same choice again (a retry, or a second device) with the phone's own times: nothing changes on the
    // server, yet the pusher must get the stored version, or its copy stays pending with the phone's times.
    const stream = await client.openStream();
    await stream.next('RESYNC');
    const again = { ...doc, updatedAt: 2 };
    expect(await push(client, 'reactions', [{ newDocumentState: again, assumedMasterState: doc }])).toEqual([]);
    await stream.next('change', 1);
    stream.close();
    const next = await pull<ReactionDoc>(client, 'reactions', checkpoint);
    expect(next.documents).toEqual([stored]);

    // The same for a read mark pushed again.
    const other = await t.buildUser();
    const conversationId = await t.buildConversation(user.id, other.id);
    await t.buildMessage(conversationId, other.id);
    const conversation = (await pullAll<{ id: string; readUpTo: number }>(client, 'conversations')).docs.get(
      conversationId,
    )!;
    const before = (await pullAll(client, 'conversations')).checkpoint;
    expect(
      await push(client, 'conversations', [{ newDocumentState: conversation, assumedMasterState: conversation }]),
    ).toEqual([]);
    expect((await pull(client, 'conversations', before)).documents).toEqual([conversation]);
  });
});

describe('the staff directory', () => {
  it('pulls colleagues without e-mail, leaves out pending registrations, and tombstones deleted accounts', async () => {
    const colleague = await t.buildUser({ firstName: 'Dir', lastName: 'Ectory', role: 'admin' });
    const pending = await t.buildUser({ isActive: false, pendingApproval: true });
    const { client } = await t.signedIn();
    const { docs, checkpoint } = await pullAll<DirectoryUserDoc>(client, 'users');
    expect(docs.get(colleague.id)).toEqual({
      id: colleague.id,
      firstName: 'Dir',
      lastName: 'Ectory',
      role: 'admin',
      profileImageUrl: null,
      isActive: true,
      houses: [],
      type: 'employee',
      updatedAt: colleague.updatedAt,
      _deleted: false,
    });
    expect(docs.has(pending.id)).toBe(false);
    expect(JSON.stringify([...docs.values()])).not.toMatch(/@|email|password/i);

    const sysadmin = (await t.signedIn({ role: 'system_admin' })).client;
    await sysadmin.delete(`/api/admin/users/${colleague.id}`);
    const next = await pull<DirectoryUserDoc>(client, 'users', checkpoint);
    expect(next.documents.find((d) => d.id === colleague.id)).toEqual(
      expect.objectContaining({ _deleted: true, firstName: 'Deleted', lastName: 'user' }),
    );
  });

  it("moves a deleted author's posts up the feed with no author", async () => {
    const gone = await t.buildUser();
    const post = await t.buildPost({ authorId: gone.id });
    const { client } = await t.signedIn();
    const { checkpoint } = await pullAll<PostDoc>(client, 'posts');
    const sysadmin = (await t.signedIn({ role: 'system_admin' })).client;
    await sysadmin.delete(`/api/admin/users/${gone.id}`);
    const next = await pull<PostDoc>(client, 'posts', checkpoint);
    expect(next.documents).toEqual([expect.objectContaining({ id: post.id, authorId: null, _deleted: false })]);
  });
});

describe('the live stream', () => {
  it('sends RESYNC on connect and a change event after another user pushes', async () => {
    const { client: watcher } = await t.signedIn();
    const { client: writer } = await t.signedIn();
    const stream = await watcher.openStream();
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      await stream.next('RESYNC');
      const seen = stream.events.length;
      const pushed = newPostDoc();
      await push(writer, 'posts', [{ newDocumentState: pushed, assumedMasterState: null }]);
      expect(await stream.change('posts', seen)).toMatchObject({
        documents: [{ id: pushed.id, content: pushed.content }],
      });
      const before = stream.events.length;
      const post = await t.buildPost();
      await writer.post(`/api/posts/${post.id}/comments`, { content: 'Hi' });
      // The hub keeps each collection's events in order, not one collection's against another's: a posts event
      // carrying the post inserted above may come first.
      expect(await stream.change('comments', before)).toMatchObject({
        documents: [{ postId: post.id, content: 'Hi' }],
      });
    } finally {
      stream.close();
    }
  });

  it('sends one event per collection for a whole pushed batch', async () => {
    const { client: watcher } = await t.signedIn();
    const { client: writer } = await t.signedIn();
    const stream = await watcher.openStream();
    try {
      await stream.next('RESYNC');
      const seen = stream.events.length;
      const rows = Array.from({ length: 10 }, () => ({ newDocumentState: newPostDoc(), assumedMasterState: null }));
      await push(writer, 'posts', rows);
      await stream.next('change', seen);
      await new Promise((r) => setTimeout(r, 100));
      expect(stream.events.slice(seen).filter((e) => e.event === 'change')).toHaveLength(1);
    } finally {
      stream.close();
    }
  });

  it("closes a user's stream when they are deactivated, and on sign-out", async () => {
    const { user, client } = await t.signedIn();
    const stream = await client.openStream();
    await stream.next('RESYNC');
    const sysadmin = (await t.signedIn({ role: 'system_admin' })).client;
    expect((await sysadmin.patch(`/api/admin/users/${user.id}/status`, { isActive: false })).status).toBe(200);
    await Promise.race([
      stream.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error('still open')), 3000)),
    ]);
    expect(stream.closed).toBe(true);

    const other = (await t.signedIn()).client;
    const second = await other.openStream();
    await second.next('RESYNC');
    await other.post('/api/auth/logout');
    await Promise.race([
      second.ended,
      new Promise((_, reject) => setTimeout(() => reject(new Error('still open')), 3000)),
    ]);
    expect(t.server.deps.hub.size()).toBe(0);
  });
});

describe('sync is background traffic', () => {
  it('does not keep an idle session alive, however often it pulls', async () => {
    const { client } = await t.signedIn();
    const stream = await client.openStream();
    for (let i = 0; i < 4; i += 1) {
      t.advance(7 * 60_000);
      expect((await client.get('/api/sync/posts/pull?limit=1')).status).toBe(200);
      expect((await client.post('/api/sync/posts/push', [])).status).toBe(200);
    }
    t.advance(LIMITS.inactivityLogoutMs - 28 * 60_000);
    expect((await client.get('/api/sync/posts/pull?limit=1')).status).toBe(401);
    expect((await client.get('/api/auth/user')).status).toBe(401);
    stream.close();
  });
});
