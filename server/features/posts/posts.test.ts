import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { CreatePostBodySchema, POST_MESSAGES, type PostView } from '../../../schema/posts';
import type { PostDoc } from '../../../schema/sync';
import { comments, posts } from '../../db/tables';
import { parseInput } from '../../lib/http';
import { newPostDoc } from '../../test/sync-docs';
import { ADMIN, actorOf, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { updateUser } from '../users/users.queries';
import { createPost, feedCacheBytes } from './posts.service';
import { sqliteOf, statement } from '../../db/client';

let t: TestServer;
let admin: TestClient;

beforeAll(async () => {
  t = await startTestServer({ ORG_NAME: 'Test Care Ltd' });
  admin = t.client();
  await admin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
});
afterAll(async () => {
  await t.close();
});

const list = (body: unknown) => body as unknown as PostView[];

describe('access to the feed calls', () => {
  const calls: [string, string, unknown?][] = [
    ['GET', '/api/posts'],
    ['POST', '/api/posts', { content: 'Hello' }],
    ['PATCH', '/api/posts/some-id', { content: 'Hello' }],
    ['DELETE', '/api/posts/some-id'],
    ['GET', '/api/posts/some-id/comments'],
    ['POST', '/api/posts/some-id/comments', { content: 'Hi' }],
    ['DELETE', '/api/comments/some-id'],
    ['POST', '/api/posts/some-id/reactions', { type: 'like' }],
    ['GET', '/api/posts/some-id/reactions'],
    ['GET', '/api/uploads/some-id'],
  ];

  it.each(calls)('%s %s answers 401 when signed out', async (method, path, body) => {
    const res = await t.client().request(method, path, body);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthenticated', message: 'Unauthorized' });
  });
});

describe('POST /api/posts', () => {
  it('creates a post from the multipart form of docs/api-feed.md, by the signed-in author at the server time', async () => {
    const { user, client } = await t.signedIn({ firstName: 'Maya', lastName: 'Jones' });
    const form = new FormData();
    form.append('content', '  Garden party on Friday  ');
    form.append('category', 'residents_activities');
    form.append('isUrgent', 'true');
    form.append('houseTags', 'Apps House');
    form.append('houseTags', 'Test Care Ltd');
    const before = Date.now();
    const res = await client.postForm('/api/posts', form);
    expect(res.status).toBe(201);
    const post = res.body as unknown as PostView;
    expect(post).toMatchObject({
      content: 'Garden party on Friday',
      category: 'residents_activities',
      isUrgent: true,
      houseTags: ['Apps House', 'Test Care Ltd'],
      images: [],
      attachments: [],
      author: { id: user.id, firstName: 'Maya', lastName: 'Jones', role: 'staff', profileImageUrl: null },
      reactionCounts: {},
      userReaction: null,
      commentCount: 0,
    });
    expect(Date.parse(post.createdAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('keeps house tags only for Residents Activities and defaults to a Company Announcement', async () => {
    const { client } = await t.signedIn();
    const form = new FormData();
    form.append('content', 'Boiler fixed');
    form.append('houseTags', 'Apps House');
    const res = await client.postForm('/api/posts', form);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ category: 'company_announcement', houseTags: [], isUrgent: false });
  });

  it('accepts a JSON body and stores a legacy category as its modern one', async () => {
    const { client } = await t.signedIn();
    const res = await client.post('/api/posts', { content: 'Rota', category: 'wages', isUrgent: false });
    expect(res.status).toBe(201);
    expect(res.body.category).toBe('wages_hr');
  });

  it.each([
    [{ content: '   ' }, POST_MESSAGES.contentRequired],
    [{}, POST_MESSAGES.contentRequired],
    [{ content: 'x'.repeat(10_001) }, POST_MESSAGES.contentTooLong],
    [{ content: 'Hi', category: 'gossip' }, POST_MESSAGES.unknownCategory],
    [{ content: 'Hi', isUrgent: 'maybe' }, POST_MESSAGES.urgentBoolean],
    [{ content: 'Hi', category: 'residents_activities', houseTags: ['Nowhere'] }, 'Unknown house: Nowhere'],
    [{ content: 'Hi', images: Array.from({ length: 21 }, (_, i) => `/api/uploads/${i}`) }, POST_MESSAGES.tooManyFiles],
  ])('refuses %j with "%s"', async (body, message) => {
    const { client } = await t.signedIn();
    const res = await client.post('/api/posts', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('refuses a blank multipart post with the same message', async () => {
    const { client } = await t.signedIn();
    const form = new FormData();
    form.append('content', ' ');
    const res = await client.postForm('/api/posts', form);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Post content is required');
  });

  it('keeps a client id, and the same post sent twice is stored once', async () => {
    const { client } = await t.signedIn();
    const id = randomUUID();
    const first = await client.post('/api/posts', { id, content: 'Written offline' });
    const again = await client.post('/api/posts', { id, content: 'Written offline' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(id);
    const all = list((await client.get('/api/posts?limit=100')).body);
    expect(all.filter((p) => p.id === id)).toHaveLength(1);
  });

  it("answers 409 when someone else's post already has the client id", async () => {
    const post = await t.buildPost();
    const { client } = await t.signedIn();
    const res = await client.post('/api/posts', { id: post.id, content: 'Mine now?' });
    expect(res.status).toBe(409);
  });

  it('ignores an author or creation time the client sends', async () => {
    const victim = await t.buildUser();
    const { user, client } = await t.signedIn();
    const res = await client.post('/api/posts', {
      content: 'Forged?',
      authorId: victim.id,
      author: { id: victim.id },
      createdAt: '2001-01-01T00:00:00.000Z',
    });
    expect(res.status).toBe(201);
    expect((res.body.author as { id: string }).id).toBe(user.id);
    expect(Date.parse(res.body.createdAt as string)).toBeGreaterThan(Date.parse('2020-01-01'));
  });
});

describe('GET /api/posts', () => {
  let fresh: TestServer;
  beforeAll(async () => {
    fresh = await startTestServer();
  });
  afterAll(async () => {
    await fresh.close();
  });

  it('keeps the shared page cache within its byte bound whatever cursors a reader makes up', async () => {
    const own = await startTestServer();
    try {
      const base = Date.now() - 1_000_000;
      for (let i = 0; i < 60; i += 1) {
        await own.buildPost({ content: `${'long words '.repeat(900)}${i}`, createdAt: base + i * 1000 });
      }
      const { client } = await own.signedIn();
      const cursor = (createdAt: number) => Buffer.from(JSON.stringify([createdAt, 'z'])).toString('base64url');
      // 200 made-up cursors, each a full page of ten-kilobyte posts.
      for (let i = 0; i < 200; i += 1) {
        const res = await client.get(`/api/posts?limit=50&cursor=${cursor(base + 100_000 + i)}`);
        expect(res.status).toBe(200);
      }
      expect(feedCacheBytes(own.server.deps)).toBeLessThanOrEqual(32 * 1024 * 1024);
    } finally {
      await own.close();
    }
  });

  it('lists newest first, a page at a time, with an opaque cursor in X-Next-Cursor', async () => {
    const base = Date.now() - 100_000;
    const made = [];
    for (let i = 0; i < 7; i += 1)
      made.push(await fresh.buildPost({ content: `post ${i}`, createdAt: base + i * 1000 }));
    // Two posts at the same millisecond are still ordered, by id.
    made.push(await fresh.buildPost({ content: 'twin', createdAt: base + 6000 }));
    const { client } = await fresh.signedIn();
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Awaited<ReturnType<TestClient['get']>> = await client.get(
        `/api/posts?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(res.status).toBe(200);
      seen.push(...list(res.body).map((p) => p.id));
      cursor = res.headers.get('x-next-cursor');
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    const expected = [...made].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)).map((p) => p.id);
    expect(seen).toEqual(expected);
  });

  it('defaults to 20 posts and refuses a limit above 100 or a bad cursor', async () => {
    for (let i = 0; i < 22; i += 1) await fresh.buildPost();
    const { client } = await fresh.signedIn();
    expect(list((await client.get('/api/posts')).body)).toHaveLength(20);
    const tooMany = await client.get('/api/posts?limit=101');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toBe('limit must be a number from 1 to 100');
    const bad = await client.get('/api/posts?cursor=nonsense');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid cursor');
  });

  it('filters by category, legacy values included under their modern category', async () => {
    const legacy = await fresh.buildPost({ category: 'activity', content: 'old activity' });
    const modern = await fresh.buildPost({ category: 'residents_activities', content: 'new activity' });
    const other = await fresh.buildPost({ category: 'business' });
    const { client } = await fresh.signedIn();
    for (const category of ['residents_activities', 'activity']) {
      const ids = list((await client.get(`/api/posts?limit=100&category=${category}`)).body).map((p) => p.id);
      expect(ids).toEqual(expect.arrayContaining([legacy.id, modern.id]));
      expect(ids).not.toContain(other.id);
      expect(ids).toHaveLength(2);
    }
    const business = list((await client.get('/api/posts?limit=100&category=buildings_maintenance')).body);
    expect(business.map((p) => p.id)).toEqual([other.id]);
    expect(business[0].category).toBe('business');
    const all = list((await client.get('/api/posts?limit=100&category=all')).body);
    expect(all.length).toBeGreaterThan(3);
    expect((await client.get('/api/posts?category=gossip')).status).toBe(400);
  });

  it('counts reactions and live comments and shows the viewer their own reaction', async () => {
    const post = await fresh.buildPost({ createdAt: Date.now() + 60_000 });
    const { user: viewer, client } = await fresh.signedIn();
    const others = await Promise.all([fresh.buildUser(), fresh.buildUser(), fresh.buildUser()]);
    await fresh.buildReaction(post.id, others[0].id, 'like');
    await fresh.buildReaction(post.id, others[1].id, 'like');
    await fresh.buildReaction(post.id, others[2].id, 'sad');
    await fresh.buildReaction(post.id, viewer.id, 'love');
    await fresh.buildComment(post.id, others[0].id);
    await fresh.buildComment(post.id, viewer.id);
    await fresh.buildComment(post.id, others[1].id, { deleted: true });
    const [first] = list((await client.get('/api/posts?limit=1')).body);
    expect(first.id).toBe(post.id);
    expect(first.reactionCounts).toEqual({ like: 2, sad: 1, love: 1 });
    expect(first.userReaction).toBe('love');
    expect(first.commentCount).toBe(2);
    const [asOther] = list((await (await fresh.signedIn()).client.get('/api/posts?limit=1')).body);
    expect(asOther.userReaction).toBeNull();
  });

  it('answers every reader from one shared page that any write replaces at once', async () => {
    const author = await fresh.buildUser({ firstName: 'Shared' });
    const post = await fresh.buildPost({ authorId: author.id, createdAt: Date.now() + 120_000 });
    const reader = await fresh.signedIn();
    const other = await fresh.signedIn();
    const first = async (client: TestClient) => list((await client.get('/api/posts?limit=1')).body)[0];
    expect((await first(reader.client)).commentCount).toBe(0);
    // Another user's reaction and comment through REST show in the reader's next page.
    expect((await other.client.post(`/api/posts/${post.id}/reactions`, { type: 'like' })).status).toBeLessThan(300);
    expect((await other.client.post(`/api/posts/${post.id}/comments`, { content: 'Hi' })).status).toBe(201);
    const seen = await first(reader.client);
    expect(seen.reactionCounts).toEqual({ like: 1 });
    expect(seen.commentCount).toBe(1);
    // Each reader sees only their own reaction in the shared page.
    expect(seen.userReaction).toBeNull();
    expect((await first(other.client)).userReaction).toBe('like');
    // An author's new name shows at once.
    await updateUser(fresh.db, author.id, { firstName: 'Renamed' });
    expect((await first(reader.client)).author.firstName).toBe('Renamed');
  });

  it('reads a page in the same number of SQL statements whatever its size (no N+1)', async () => {
    for (let i = 0; i < 30; i += 1) await fresh.buildPost();
    const { client } = await fresh.signedIn();
    // Counts statements run, on either engine, where its connections run them (the feed's statements are prepared
    // once, so counting prepare() would not do).
    const engine = fresh.db.$conn.engine as unknown as { run: (...args: unknown[]) => unknown };
    const original = engine.run;
    let statements = 0;
    const stackLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 100;
    engine.run = function (this: unknown, ...args: unknown[]) {
      // Only what a request runs counts: the server's timers (jobs, sweeps, the mail outbox) may run meanwhile.
      if (new Error().stack?.includes('node_modules/hono/')) statements += 1;
      return original.apply(this, args);
    };
    const count = async (limit: number) => {
      statements = 0;
      const res = await client.get(`/api/posts?limit=${limit}`);
      expect(list(res.body).length).toBe(limit);
      return statements;
    };
    try {
      // First reads build the shared page: session, sequence, posts, reaction and comment counts, own reactions.
      const small = await count(2);
      const large = await count(30);
      expect(large).toBe(small);
      expect(small).toBeGreaterThanOrEqual(4);
      expect(large).toBeLessThanOrEqual(6);
      // Read again with nothing written in between: only the session and the sequence (the viewer's answer is
      // kept until the next write).
      expect(await count(30)).toBe(2);
    } finally {
      engine.run = original;
      Error.stackTraceLimit = stackLimit;
    }
  });

  it('shows the author of a deleted account as "Deleted user"', async () => {
    const gone = await fresh.buildUser({ firstName: 'Gone', lastName: 'Away' });
    const post = await fresh.buildPost({ authorId: gone.id, createdAt: Date.now() + 120_000 });
    const sysadmin = fresh.client();
    await sysadmin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
    expect((await sysadmin.delete(`/api/admin/users/${gone.id}`)).status).toBe(204);
    const [first] = list((await sysadmin.get('/api/posts?limit=1')).body);
    expect(first.id).toBe(post.id);
    expect(first.author).toEqual({
      id: null,
      firstName: 'Deleted',
      lastName: 'user',
      role: null,
      profileImageUrl: null,
    });
  });
});

describe('PATCH /api/posts/{id}', () => {
  it('lets the author change content, category and urgency', async () => {
    const { user, client } = await t.signedIn();
    const post = await t.buildPost({
      authorId: user.id,
      category: 'residents_activities',
      houseTags: '["Apps House"]',
    });
    const res = await client.patch(`/api/posts/${post.id}`, {
      content: 'Edited',
      category: 'shifts_lifts',
      isUrgent: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: 'Edited', category: 'shifts_lifts', isUrgent: true, houseTags: [] });
  });

  it("refuses another staff member's edit with 403", async () => {
    const post = await t.buildPost({ content: 'Original' });
    const { client } = await t.signedIn();
    const res = await client.patch(`/api/posts/${post.id}`, {
      content: 'Hijacked',
      category: 'wages_hr',
      isUrgent: false,
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'forbidden', message: POST_MESSAGES.cannotEditPost });
    const stored = list((await client.get('/api/posts?limit=100')).body).find((p) => p.id === post.id);
    expect(stored?.content).toBe('Original');
  });

  it.each(['admin', 'system_admin'] as const)('lets an %s edit any post', async (role) => {
    const post = await t.buildPost();
    const { client } = await t.signedIn({ role });
    const res = await client.patch(`/api/posts/${post.id}`, {
      content: 'Moderated',
      category: 'company_announcement',
      isUrgent: false,
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('Moderated');
  });

  it('refuses blank content and answers 404 for a missing post', async () => {
    const { user, client } = await t.signedIn();
    const post = await t.buildPost({ authorId: user.id });
    const blank = await client.patch(`/api/posts/${post.id}`, { content: ' ', category: 'wages_hr', isUrgent: false });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe(POST_MESSAGES.contentRequired);
    const missing = await client.patch(`/api/posts/${randomUUID()}`, {
      content: 'x',
      category: 'wages_hr',
      isUrgent: false,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Post not found');
  });
});

describe('DELETE /api/posts/{id}', () => {
  it("refuses another staff member's delete, lets the author delete, and the post leaves the feed", async () => {
    const { user, client } = await t.signedIn();
    const post = await t.buildPost({ authorId: user.id });
    const other = (await t.signedIn()).client;
    const refused = await other.delete(`/api/posts/${post.id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(POST_MESSAGES.cannotDeletePost);
    expect((await client.delete(`/api/posts/${post.id}`)).status).toBe(204);
    const ids = list((await client.get('/api/posts?limit=100')).body).map((p) => p.id);
    expect(ids).not.toContain(post.id);
    expect((await client.delete(`/api/posts/${post.id}`)).status).toBe(404);
    expect((await client.get(`/api/posts/${post.id}/comments`)).status).toBe(404);
  });

  it.each(['admin', 'system_admin'] as const)('lets an %s delete any post', async (role) => {
    const post = await t.buildPost();
    const { client } = await t.signedIn({ role });
    expect((await client.delete(`/api/posts/${post.id}`)).status).toBe(204);
  });
});

describe('GET /api/placeholder-image', () => {
  it('answers a cacheable grey PNG', async () => {
    const res = await t.client().download('/api/placeholder-image');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(res.bytes.subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('the time a post was written', () => {
  const HOUR = 3_600_000;
  /** An author whose account is an hour old, so a written time can fall between it and now. */
  const author = () => t.signedIn({ createdAt: Date.now() - HOUR });
  const ms = (iso: string) => new Date(iso).getTime();

  it('is bounded by the author account and the arrival at service level, and missing means the arrival', async () => {
    const { user } = await author();
    const at = Date.now();
    const deps = { ...t.server.deps, now: () => at };
    const create = (writtenAt: unknown) =>
      createPost(deps, actorOf(user), parseInput(CreatePostBodySchema, { content: 'Rota', writtenAt }));
    expect(ms((await create(at - 5 * 60_000)).writtenAt)).toBe(at - 5 * 60_000);
    expect(ms((await create(at + HOUR)).writtenAt)).toBe(at);
    expect(ms((await create(1_000)).writtenAt)).toBe(user.createdAt);
    expect(ms((await create(undefined)).writtenAt)).toBe(at);
    expect(ms((await create('not a time')).writtenAt)).toBe(at);
    expect(ms((await create(-5)).writtenAt)).toBe(at);
  });

  it('is taken from POST /api/posts as JSON and as a form, and a clock ahead of the server is clamped', async () => {
    const { client } = await author();
    const written = Date.now() - 10 * 60_000;
    const json = await client.post('/api/posts', { content: 'Written on the bus', writtenAt: written });
    expect(json.status).toBe(201);
    expect(ms(json.body.writtenAt as string)).toBe(written);
    expect(ms(json.body.createdAt as string)).toBeGreaterThan(written);
    const form = new FormData();
    form.append('content', 'Written on the train');
    form.append('writtenAt', String(written));
    const multipart = await client.postForm('/api/posts', form);
    expect(multipart.status).toBe(201);
    expect(ms(multipart.body.writtenAt as string)).toBe(written);
    const ahead = await client.post('/api/posts', { content: 'A fast clock', writtenAt: Date.now() + HOUR });
    expect(ahead.status).toBe(201);
    expect(ahead.body.writtenAt).toBe(ahead.body.createdAt);
    const unreadable = await client.post('/api/posts', { content: 'No clock', writtenAt: 'yesterday' });
    expect(unreadable.status).toBe(201);
    expect(unreadable.body.writtenAt).toBe(unreadable.body.createdAt);
  });

  it('is taken from a sync push, clamped, and pulled back with the post', async () => {
    const { user, client } = await author();
    const written = Date.now() - 20 * 60_000;
    const doc = (id: string, writtenAt: number) =>
      newPostDoc({ id, authorId: user.id, content: 'Offline post', createdAt: writtenAt });
    const [kept, early] = [randomUUID(), randomUUID()];
    const push = await client.post('/api/sync/posts/push', [
      { newDocumentState: doc(kept, written), assumedMasterState: null },
      { newDocumentState: doc(early, user.createdAt - HOUR), assumedMasterState: null },
    ]);
    expect(push.status).toBe(200);
    expect(push.body.conflicts).toEqual([]);
    const stored = async (id: string) => (await t.db.select().from(posts).where(eq(posts.id, id)).get())!;
    expect((await stored(kept)).writtenAt).toBe(written);
    expect((await stored(kept)).createdAt).toBeGreaterThan(written);
    expect((await stored(early)).writtenAt).toBe(user.createdAt);
    const pulled = (await client.get('/api/sync/posts/pull?limit=1000')).body.documents as PostDoc[];
    expect(pulled.find((d) => d.id === kept)?.writtenAt).toBe(written);
  });
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The audit entries about one post, oldest first, with their details read. */
async function auditOf(postId: string) {
  const rows = (await statement(
    t.db,
    'SELECT action, actor_id AS "actorId", details FROM audit_log WHERE target_id = ? ORDER BY id',
  ).all([postId])) as { action: string; actorId: string; details: string }[];
  return rows.map((row) => ({ ...row, details: JSON.parse(row.details) as Record<string, unknown> }));
}

/**
 * Whether the database still holds `text`: SQLite's file and write-ahead log, bytes and all (secure_delete); on
 * PostgreSQL every row of every table of the app's schema.
 */
async function databaseHolds(text: string): Promise<boolean> {
  if (t.db.$conn.engine.kind === 'sqlite') {
    sqliteOf(t.db).pragma('wal_checkpoint(TRUNCATE)');
    const file = sqliteOf(t.db).name;
    return Buffer.concat([fs.readFileSync(file), fs.readFileSync(`${file}-wal`)]).includes(text);
  }
  const tables = await statement(
    t.db,
    "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
  ).pluck<string>();
  expect(tables).toContain('sync_device_states');
  for (const table of tables) {
    const found = await statement(t.db, `SELECT count(*) AS n FROM "${table}" AS r WHERE strpos(r::text, ?) > 0`).get([
      text,
    ]);
    if (Number(found?.n) > 0) return true;
  }
  return false;
}

describe('edits and deletes by someone other than the author', () => {
  it('names the editor on the post and audits what they changed, before and after', async () => {
    const { user: author, client } = await t.signedIn({ firstName: 'Sam', lastName: 'Staff' });
    const { user: editor, client: admin } = await t.signedIn({ role: 'admin', firstName: 'Ada', lastName: 'Admin' });
    const created = await client.post('/api/posts', { content: 'Original words', category: 'wages_hr' });
    const id = created.body.id as string;
    expect(created.body.editedBy).toBeNull();

    const res = await admin.patch(`/api/posts/${id}`, { content: 'Rewritten words', isUrgent: true });
    expect(res.status).toBe(200);
    const byAdmin = { id: editor.id, firstName: 'Ada', lastName: 'Admin' };
    expect(res.body).toMatchObject({ author: { id: author.id }, editedBy: byAdmin, isUrgent: true });
    const listed = list((await client.get('/api/posts?limit=100')).body).find((p) => p.id === id);
    expect(listed?.editedBy).toEqual(byAdmin);
    const pulled = (await client.get('/api/sync/posts/pull?limit=1000')).body.documents as PostDoc[];
    expect(pulled.find((d) => d.id === id)?.editedBy).toBe(editor.id);

    expect(await auditOf(id)).toEqual([
      {
        action: 'post.update',
        actorId: editor.id,
        details: {
          authorId: author.id,
          fields: ['content', 'isUrgent'],
          before: { content: { chars: 14, sha256: sha256('Original words') }, isUrgent: false },
          after: { content: { chars: 15, sha256: sha256('Rewritten words') }, isUrgent: true },
        },
      },
    ]);

    // The author's own edit afterwards is not audited, and the post still says who else changed it.
    const own = await client.patch(`/api/posts/${id}`, { content: 'My words again' });
    expect(own.body.editedBy).toEqual(byAdmin);
    expect(await auditOf(id)).toHaveLength(1);
  });

  it("names no one once the editor's account is deleted, and the audit entry stays", async () => {
    const { client } = await t.signedIn();
    const { user: editor, client: admin } = await t.signedIn({ role: 'admin' });
    const id = (await client.post('/api/posts', { content: 'Kept' })).body.id as string;
    await admin.patch(`/api/posts/${id}`, { content: 'Changed' });
    await statement(t.db, 'DELETE FROM users WHERE id = ?').run([editor.id]);
    const listed = list((await client.get('/api/posts?limit=100')).body).find((p) => p.id === id);
    expect(listed?.editedBy).toBeNull();
    expect((await auditOf(id)).map((entry) => entry.actorId)).toEqual([editor.id]);
  });

  it("leaves the author's own edit unnamed and unaudited, as before", async () => {
    const { client } = await t.signedIn();
    const id = (await client.post('/api/posts', { content: 'Mine' })).body.id as string;
    const res = await client.patch(`/api/posts/${id}`, { content: 'Still mine', category: 'shifts_lifts' });
    expect(res.body.editedBy).toBeNull();
    expect(await auditOf(id)).toEqual([]);
  });

  it('names and audits an edit by someone else that arrives through sync', async () => {
    const { user: author, client } = await t.signedIn();
    const { user: editor, client: admin } = await t.signedIn({ role: 'system_admin' });
    const id = (await client.post('/api/posts', { content: 'Before sync' })).body.id as string;
    const master = ((await admin.get('/api/sync/posts/pull?limit=1000')).body.documents as PostDoc[]).find(
      (d) => d.id === id,
    )!;
    const push = await admin.post('/api/sync/posts/push', [
      { newDocumentState: { ...master, category: 'buildings_maintenance' }, assumedMasterState: master },
    ]);
    expect(push.body.conflicts).toEqual([]);
    expect((await t.db.select().from(posts).where(eq(posts.id, id)).get())?.editedBy).toBe(editor.id);
    expect(await auditOf(id)).toEqual([
      {
        action: 'post.update',
        actorId: editor.id,
        details: {
          authorId: author.id,
          fields: ['category'],
          before: { category: 'company_announcement' },
          after: { category: 'buildings_maintenance' },
        },
      },
    ]);
  });

  it("erases an admin's delete of someone else's post, with its comments, pictures and kept states, and audits it", async () => {
    const { user: author, client } = await t.signedIn();
    const { user: remover, client: admin } = await t.signedIn({ role: 'admin' });
    const form = new FormData();
    form.append('content', 'Words to forget');
    form.append('category', 'residents_activities');
    form.append('houseTags', 'Apps House');
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    form.append('images', new File([new Uint8Array(png)], 'garden.png'));
    const created = await client.postForm('/api/posts', form);
    const id = created.body.id as string;
    const picture = (created.body.images as string[])[0];
    expect((await admin.download(picture)).status).toBe(200);
    const stored = statement(t.db, 'SELECT stored_name AS name FROM uploads WHERE id = ?');
    const file = path.join(
      t.dataDir,
      'uploads',
      ((await stored.get([picture.split('/').pop()])) as { name: string }).name,
    );
    expect(fs.existsSync(file)).toBe(true);
    const comment = await t.buildComment(id, remover.id, { content: 'A comment to forget' });
    // A device's push leaves a kept state of the post (decision 69): an earlier version of its words.
    const master = ((await client.get('/api/sync/posts/pull?limit=1000')).body.documents as PostDoc[]).find(
      (d) => d.id === id,
    )!;
    await client.request(
      'POST',
      '/api/sync/posts/push',
      [{ newDocumentState: { ...master, content: 'Earlier words' }, assumedMasterState: master }],
      { 'X-Sync-Device': 'device-1' },
    );
    const states = statement(t.db, 'SELECT count(*) AS n FROM sync_device_states WHERE doc_id = ?');
    expect(await states.get([id])).toEqual({ n: 1 });

    expect((await admin.delete(`/api/posts/${id}`)).status).toBe(204);

    expect(await t.db.select().from(posts).where(eq(posts.id, id)).get()).toMatchObject({
      id,
      authorId: author.id,
      deleted: true,
      content: '',
      houseTags: '[]',
      audienceHouses: '[]',
      images: '[]',
      attachments: '[]',
    });
    expect(await t.db.select().from(comments).where(eq(comments.id, comment.id)).get()).toMatchObject({
      deleted: true,
      content: '',
    });
    expect(await states.get([id])).toEqual({ n: 0 });
    expect((await admin.download(picture)).status).toBe(404);
    expect((await client.download(picture)).status).toBe(404);
    await vi.waitFor(() => expect(fs.existsSync(file)).toBe(false));

    const entries = await auditOf(id);
    expect(entries).toEqual([
      {
        action: 'post.delete',
        actorId: remover.id,
        details: {
          authorId: author.id,
          before: {
            content: { chars: 13, sha256: sha256('Earlier words') },
            category: 'residents_activities',
            isUrgent: false,
            houseTags: ['Apps House'],
            audienceHouses: [],
            images: 1,
            attachments: 0,
          },
        },
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain('words');
  });

  // SQLite: its own file and write-ahead log. PostgreSQL keeps its storage to itself: every row of every table, as
  // any query or dump would see it (what its pages keep until reused: decision 165).
  it('leaves no deleted words in the database (SQLite: its file; PostgreSQL: every row)', async () => {
    const { client } = await t.signedIn();
    const marker = `forget-me-${randomUUID()}`;
    const id = (await client.post('/api/posts', { content: 'A post' })).body.id as string;
    await t.buildComment(id, null, { content: `${marker} in a comment` });
    // An edit pushed from a device: the post holds the words, and so does the device's kept state (a row deleted
    // with the post, whose bytes SQLite would otherwise leave in the page's free space).
    const master = ((await client.get('/api/sync/posts/pull?limit=1000')).body.documents as PostDoc[]).find(
      (d) => d.id === id,
    )!;
    const push = await client.request(
      'POST',
      '/api/sync/posts/push',
      [{ newDocumentState: { ...master, content: `${marker} in a post` }, assumedMasterState: master }],
      { 'X-Sync-Device': 'device-2' },
    );
    expect(push.body.conflicts).toEqual([]);
    expect(await databaseHolds(marker)).toBe(true); // the probe finds the words while they are there
    expect((await client.delete(`/api/posts/${id}`)).status).toBe(204);
    expect(await databaseHolds(marker)).toBe(false);
    // The author's own delete is not audited: nobody else was involved.
    expect(await auditOf(id)).toEqual([]);
  });

  it("keeps a picture that another of the author's posts still shows", async () => {
    const { client } = await t.signedIn();
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#993366' } })
      .png()
      .toBuffer();
    const upload = new FormData();
    upload.append('file', new File([new Uint8Array(png)], 'shared.png'));
    const url = (await client.postForm('/api/uploads', upload)).body.url as string;
    const first = (await client.post('/api/posts', { content: 'First', images: [url] })).body.id as string;
    await client.post('/api/posts', { content: 'Second', images: [url] });
    expect((await client.delete(`/api/posts/${first}`)).status).toBe(204);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await client.download(url)).status).toBe(200);
  });
});
