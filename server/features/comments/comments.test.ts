import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { CreateCommentBodySchema, POST_MESSAGES, type CommentView } from '../../../schema/posts';
import { comments as commentRows } from '../../db/tables';
import { parseInput } from '../../lib/http';
import { actorOf, startTestServer, type TestServer } from '../../test/test-server';
import { addComment } from './comments.service';
import { statement } from '../../db/client';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const comments = (body: unknown) => body as unknown as CommentView[];

describe('GET and POST /api/posts/{id}/comments', () => {
  it('adds comments by the signed-in user and lists them oldest first with their authors', async () => {
    const post = await t.buildPost();
    const { user, client } = await t.signedIn({ firstName: 'Ola', lastName: 'Nordmann' });
    const first = await client.post(`/api/posts/${post.id}/comments`, { content: '  First!  ' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      postId: post.id,
      content: 'First!',
      author: { id: user.id, firstName: 'Ola', lastName: 'Nordmann', profileImageUrl: null },
    });
    const second = await (await t.signedIn()).client.post(`/api/posts/${post.id}/comments`, { content: 'Second' });
    expect(second.status).toBe(201);
    const res = await client.get(`/api/posts/${post.id}/comments`);
    expect(res.status).toBe(200);
    expect(comments(res.body).map((c) => c.content)).toEqual(['First!', 'Second']);
    expect(typeof comments(res.body)[0].createdAt).toBe('string');
  });

  it.each([
    [{ content: '   ' }, POST_MESSAGES.commentRequired],
    [{}, POST_MESSAGES.commentRequired],
    [{ content: 'x'.repeat(2001) }, POST_MESSAGES.commentTooLong],
  ])('refuses %j with "%s"', async (body, message) => {
    const post = await t.buildPost();
    const { client } = await t.signedIn();
    const res = await client.post(`/api/posts/${post.id}/comments`, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('answers 404 for a missing or deleted post', async () => {
    const { client } = await t.signedIn();
    const deleted = await t.buildPost({ deleted: true });
    for (const id of [randomUUID(), deleted.id]) {
      expect((await client.get(`/api/posts/${id}/comments`)).status).toBe(404);
      const res = await client.post(`/api/posts/${id}/comments`, { content: 'Hello?' });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('Post not found');
    }
  });

  it('stores a comment sent twice with the same client id once', async () => {
    const post = await t.buildPost();
    const { client } = await t.signedIn();
    const id = randomUUID();
    expect((await client.post(`/api/posts/${post.id}/comments`, { id, content: 'Offline' })).status).toBe(201);
    const again = await client.post(`/api/posts/${post.id}/comments`, { id, content: 'Offline' });
    expect(again.body.id).toBe(id);
    expect(comments((await client.get(`/api/posts/${post.id}/comments`)).body)).toHaveLength(1);
    const thief = (await t.signedIn()).client;
    expect((await thief.post(`/api/posts/${post.id}/comments`, { id, content: 'Mine?' })).status).toBe(409);
  });
});

describe('DELETE /api/comments/{id}', () => {
  it('lets the author delete their comment, which then leaves the list and the count', async () => {
    const post = await t.buildPost();
    const { client } = await t.signedIn();
    const made = await client.post(`/api/posts/${post.id}/comments`, { content: 'Oops' });
    expect((await client.delete(`/api/comments/${made.body.id as string}`)).status).toBe(204);
    expect(comments((await client.get(`/api/posts/${post.id}/comments`)).body)).toHaveLength(0);
    const posts = (await client.get('/api/posts?limit=100')).body as unknown as { id: string; commentCount: number }[];
    expect(posts.find((p) => p.id === post.id)?.commentCount).toBe(0);
    expect((await client.delete(`/api/comments/${made.body.id as string}`)).status).toBe(404);
  });

  it("refuses another staff member and an administrator, but lets a System Administrator delete anyone's comment", async () => {
    const post = await t.buildPost();
    const author = await t.buildUser();
    const comment = await t.buildComment(post.id, author.id);
    for (const role of ['staff', 'admin'] as const) {
      const res = await (await t.signedIn({ role })).client.delete(`/api/comments/${comment.id}`);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(POST_MESSAGES.cannotDeleteComment);
    }
    const sysadmin = (await t.signedIn({ role: 'system_admin' })).client;
    expect((await sysadmin.delete(`/api/comments/${comment.id}`)).status).toBe(204);
  });
});

describe('the time a comment was written', () => {
  const MIN = 60_000;
  const ms = (iso: string) => new Date(iso).getTime();

  it('is never before the post reached the server, or before its written time for its own author', async () => {
    const { user: author } = await t.signedIn();
    const postAt = Date.now() - 30 * MIN;
    // A post its author wrote offline 40 minutes ago that reached the server 30 minutes ago.
    const post = await t.buildPost({ authorId: author.id, createdAt: postAt, writtenAt: postAt - 10 * MIN });
    const { user: colleague } = await t.signedIn();
    const at = Date.now();
    const deps = { ...t.server.deps, now: () => at };
    const comment = (user: typeof author, writtenAt: unknown) =>
      addComment(deps, actorOf(user), post.id, parseInput(CreateCommentBodySchema, { content: 'Yes', writtenAt }));
    expect(ms((await comment(colleague, postAt - 5 * MIN)).writtenAt)).toBe(postAt);
    expect(ms((await comment(colleague, postAt + 5 * MIN)).writtenAt)).toBe(postAt + 5 * MIN);
    expect(ms((await comment(author, postAt - 5 * MIN)).writtenAt)).toBe(postAt - 5 * MIN);
    expect(ms((await comment(author, postAt - 20 * MIN)).writtenAt)).toBe(postAt - 10 * MIN);
    expect(ms((await comment(colleague, at + MIN)).writtenAt)).toBe(at);
    expect(ms((await comment(colleague, undefined)).writtenAt)).toBe(at);
  });

  it('is taken from POST /api/posts/{id}/comments and from a sync push, clamped the same way', async () => {
    const postAt = Date.now() - 30 * MIN;
    const post = await t.buildPost({ createdAt: postAt });
    const { user, client } = await t.signedIn();
    const rest = await client.post(`/api/posts/${post.id}/comments`, { content: 'REST', writtenAt: postAt + MIN });
    expect(rest.status).toBe(201);
    expect(ms(rest.body.writtenAt as string)).toBe(postAt + MIN);
    const early = await client.post(`/api/posts/${post.id}/comments`, { content: 'Early', writtenAt: 5 });
    expect(ms(early.body.writtenAt as string)).toBe(postAt);
    const [kept, ahead] = [randomUUID(), randomUUID()];
    const doc = (id: string, writtenAt: number) => ({
      id,
      postId: post.id,
      authorId: user.id,
      content: 'Synced',
      createdAt: writtenAt,
      writtenAt,
      updatedAt: writtenAt,
      _deleted: false,
    });
    const push = await client.post('/api/sync/comments/push', [
      { newDocumentState: doc(kept, postAt + 2 * MIN), assumedMasterState: null },
      { newDocumentState: doc(ahead, Date.now() + 60 * MIN), assumedMasterState: null },
    ]);
    expect(push.status).toBe(200);
    const stored = async (id: string) => (await t.db.select().from(commentRows).where(eq(commentRows.id, id)).get())!;
    expect((await stored(kept)).writtenAt).toBe(postAt + 2 * MIN);
    expect((await stored(ahead)).writtenAt).toBe((await stored(ahead)).createdAt);
    const listed = comments((await client.get(`/api/posts/${post.id}/comments`)).body);
    expect(listed.find((c) => c.id === kept)?.writtenAt).toBe(new Date(postAt + 2 * MIN).toISOString());
  });
});

describe('a comment deleted by someone other than its author', () => {
  it('keeps no words in the tombstone and is audited with the fingerprint of what it said', async () => {
    const post = await t.buildPost();
    const { user: author, client } = await t.signedIn();
    const { user: remover, client: systemAdmin } = await t.signedIn({ role: 'system_admin' });
    const id = (await client.post(`/api/posts/${post.id}/comments`, { content: 'Unkind words' })).body.id as string;
    expect((await systemAdmin.delete(`/api/comments/${id}`)).status).toBe(204);
    expect(await t.db.select().from(commentRows).where(eq(commentRows.id, id)).get()).toMatchObject({
      deleted: true,
      content: '',
      authorId: author.id,
    });
    const entries = (await statement(
      t.db,
      `SELECT actor_id AS "actorId", details FROM audit_log WHERE action = 'comment.delete' AND target_id = ?`,
    ).all([id])) as { actorId: string; details: string }[];
    expect(entries).toEqual([{ actorId: remover.id, details: expect.any(String) as string }]);
    expect(JSON.parse(entries[0].details)).toEqual({
      authorId: author.id,
      postId: post.id,
      before: { content: { chars: 12, sha256: createHash('sha256').update('Unkind words').digest('hex') } },
    });
  });

  it("erases the author's own deleted comment too, without an audit entry", async () => {
    const post = await t.buildPost();
    const { client } = await t.signedIn();
    const id = (await client.post(`/api/posts/${post.id}/comments`, { content: 'Oops' })).body.id as string;
    expect((await client.delete(`/api/comments/${id}`)).status).toBe(204);
    expect((await t.db.select().from(commentRows).where(eq(commentRows.id, id)).get())?.content).toBe('');
    const audited = await statement(t.db, 'SELECT count(*) AS n FROM audit_log WHERE target_id = ?').get([id]);
    expect(audited).toEqual({ n: 0 });
  });
});
