import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/test-server';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('POST /api/posts/{id}/reactions', () => {
  it('toggles: a type sets it, the same type again removes it, another type replaces it', async () => {
    const post = await t.buildPost();
    const { client } = await t.signedIn();
    const path = `/api/posts/${post.id}/reactions`;
    expect((await client.post(path, { type: 'like' })).body).toEqual({
      userReaction: 'like',
      reactionCounts: { like: 1 },
    });
    expect((await client.post(path, { type: 'like' })).body).toEqual({ userReaction: null, reactionCounts: {} });
    await client.post(path, { type: 'love' });
    const replaced = await client.post(path, { type: 'wow' });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toEqual({ userReaction: 'wow', reactionCounts: { wow: 1 } });
  });

  it("counts everyone's reactions, one per user", async () => {
    const post = await t.buildPost();
    const a = (await t.signedIn()).client;
    const b = (await t.signedIn()).client;
    await a.post(`/api/posts/${post.id}/reactions`, { type: 'laugh' });
    const res = await b.post(`/api/posts/${post.id}/reactions`, { type: 'laugh' });
    expect(res.body).toEqual({ userReaction: 'laugh', reactionCounts: { laugh: 2 } });
  });

  it('refuses an unknown type and answers 404 for a missing post', async () => {
    const post = await t.buildPost();
    const { client } = await t.signedIn();
    const bad = await client.post(`/api/posts/${post.id}/reactions`, { type: 'meh' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Reaction must be one of: like, love, laugh, wow, sad, angry');
    expect((await client.post(`/api/posts/${randomUUID()}/reactions`, { type: 'like' })).status).toBe(404);
  });
});

describe('GET /api/posts/{id}/reactions', () => {
  it('answers [{ type, users: [{ firstName, lastName }] }] in the reaction bar order, people in the order they chose', async () => {
    const post = await t.buildPost();
    const ann = await t.buildUser({ firstName: 'Ann', lastName: 'Lee' });
    const bob = await t.buildUser({ firstName: 'Bob', lastName: 'Ray' });
    const cat = await t.buildUser({ firstName: 'Cat', lastName: 'Day' });
    await t.buildReaction(post.id, cat.id, 'sad');
    await t.buildReaction(post.id, ann.id, 'like');
    await new Promise((r) => setTimeout(r, 5));
    await t.buildReaction(post.id, bob.id, 'like');
    const { client } = await t.signedIn();
    const res = await client.get(`/api/posts/${post.id}/reactions`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        type: 'like',
        users: [
          { firstName: 'Ann', lastName: 'Lee' },
          { firstName: 'Bob', lastName: 'Ray' },
        ],
      },
      { type: 'sad', users: [{ firstName: 'Cat', lastName: 'Day' }] },
    ]);
  });

  it('drops the reactions of a deleted account', async () => {
    const post = await t.buildPost();
    const gone = await t.buildUser();
    await t.buildReaction(post.id, gone.id, 'angry');
    const sysadmin = (await t.signedIn({ role: 'system_admin' })).client;
    expect((await sysadmin.delete(`/api/admin/users/${gone.id}`)).status).toBe(204);
    expect((await sysadmin.get(`/api/posts/${post.id}/reactions`)).body).toEqual([]);
    const posts = (await sysadmin.get('/api/posts?limit=100')).body as unknown as {
      id: string;
      reactionCounts: object;
    }[];
    expect(posts.find((p) => p.id === post.id)?.reactionCounts).toEqual({});
  });

  it('answers 404 for a missing post', async () => {
    const { client } = await t.signedIn();
    expect((await client.get(`/api/posts/${randomUUID()}/reactions`)).status).toBe(404);
  });
});
