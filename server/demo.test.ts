import { describe, expect, it } from 'vitest';
import { listHouses } from '../schema/constants';
import { POST_CATEGORIES, type PostView } from '../schema/posts';
import { seedDemo, DEMO_PASSWORD } from './demo';
import { startTestServer } from './test/test-server';
import { statement } from './db/client';

const DAY_MS = 86_400_000;

describe('demo data', () => {
  it('makes a dozen staff across the three roles who can sign in, and one registration to approve', async () => {
    const t = await startTestServer();
    try {
      const accounts = await seedDemo(t.db, { orgName: t.server.deps.config.orgName });
      expect(accounts).toHaveLength(12);
      expect(new Set(accounts.map((a) => a.role))).toEqual(new Set(['staff', 'admin', 'system_admin']));
      const res = await t.client().post('/api/auth/login', { email: accounts[3].email, password: DEMO_PASSWORD });
      expect(res.status).toBe(200);
      const pending = await statement(t.db, 'select count(*) as n from users where pending_approval = TRUE').get();
      expect(pending).toEqual({ n: 1 });
    } finally {
      await t.close();
    }
  });

  it('writes a feed of sixty posts in every category over the last four weeks, with comments and reactions', async () => {
    const t = await startTestServer();
    try {
      const now = Date.now();
      const orgName = t.server.deps.config.orgName;
      const accounts = await seedDemo(t.db, { now, orgName });
      const sql = { prepare: (text: string) => statement(t.db, text) };
      const categories = (await sql
        .prepare(
          'select category, count(*) as n, count(CASE WHEN is_urgent THEN 1 END) as urgent from posts group by category',
        )
        .all()) as { category: string; n: number; urgent: number }[];
      const byCategory = Object.fromEntries(categories.map((c) => [c.category, c.n]));
      for (const category of POST_CATEGORIES) expect(byCategory[category]).toBeGreaterThanOrEqual(8);
      for (const legacy of ['business', 'activity', 'wages']) expect(byCategory[legacy]).toBe(1);
      expect(categories.reduce((sum, c) => sum + c.n, 0)).toBe(60);
      expect(categories.reduce((sum, c) => sum + c.urgent, 0)).toBeGreaterThanOrEqual(4);

      const houses = listHouses(orgName);
      const tagged = (await sql
        .prepare("select house_tags as tags from posts where category = 'residents_activities'")
        .all()) as {
        tags: string;
      }[];
      const tags = tagged.flatMap((row) => JSON.parse(row.tags) as string[]);
      expect(tagged.every((row) => JSON.parse(row.tags).length > 0)).toBe(true);
      expect(new Set(tags)).toEqual(new Set(houses));
      const untagged = sql.prepare(
        "select count(*) as n from posts where category != 'residents_activities' and house_tags != '[]'",
      );
      expect(await untagged.get()).toEqual({ n: 0 });

      const span = (await sql
        .prepare('select min(created_at) as oldest, max(created_at) as newest from posts')
        .get()) as {
        oldest: number;
        newest: number;
      };
      expect(span.newest).toBeLessThan(now);
      expect(now - span.oldest).toBeGreaterThan(21 * DAY_MS);
      expect(now - span.oldest).toBeLessThanOrEqual(30 * DAY_MS);
      const authors = (await sql.prepare('select count(distinct author_id) as n from posts').get()) as { n: number };
      expect(authors.n).toBeGreaterThanOrEqual(8);
      const comments = (await sql.prepare('select count(*) as n, max(created_at) as newest from comments').get()) as {
        n: number;
        newest: number;
      };
      const reactions = (await sql
        .prepare('select count(*) as n, count(distinct type) as types from reactions')
        .get()) as {
        n: number;
        types: number;
      };
      expect(comments.n).toBeGreaterThanOrEqual(60);
      expect(comments.newest).toBeLessThan(now);
      expect(reactions.n).toBeGreaterThanOrEqual(120);
      expect(reactions.types).toBeGreaterThanOrEqual(4);
      const early = sql.prepare(
        'select count(*) as n from comments c join posts p on p.id = c.post_id where c.created_at < p.created_at',
      );
      expect(await early.get()).toEqual({ n: 0 });

      // Every row took its own place in the change feed, but for a post and the last reaction to it: the post
      // carries the reactions and moves up with each one (decision 74).
      const seqs = (await sql
        .prepare('select server_seq as seq from posts union all select server_seq from comments')
        .all()) as { seq: number }[];
      expect(new Set(seqs.map((s) => s.seq)).size).toBe(seqs.length);
      expect(Math.min(...seqs.map((s) => s.seq))).toBeGreaterThan(0);
      const reactionSeqs = (await sql.prepare('select server_seq as seq from reactions').all()) as { seq: number }[];
      expect(new Set(reactionSeqs.map((s) => s.seq)).size).toBe(reactionSeqs.length);
      expect(
        await sql
          .prepare(
            `select count(*) as n from posts p
             where exists (select 1 from reactions r where r.post_id = p.id)
               and p.server_seq <> (select max(r.server_seq) from reactions r where r.post_id = p.id)`,
          )
          .get(),
      ).toEqual({ n: 0 });

      // What a signed-in colleague sees: the API and a first sync pull agree with the database.
      const client = t.client();
      await client.post('/api/auth/login', { email: accounts[5].email, password: DEMO_PASSWORD });
      const feed = await client.get('/api/posts?limit=100');
      const posts = feed.body as unknown as PostView[];
      expect(posts).toHaveLength(60);
      expect(posts[0].createdAt >= posts[59].createdAt).toBe(true);
      expect(posts.reduce((sum, p) => sum + p.commentCount, 0)).toBe(comments.n);
      const reactionTotal = posts.reduce(
        (sum, p) => sum + Object.values(p.reactionCounts).reduce((a, b) => a + (b ?? 0), 0),
        0,
      );
      expect(reactionTotal).toBe(reactions.n);
      expect(posts.every((p) => p.author.id !== null)).toBe(true);
      const pulled = await client.get('/api/sync/posts/pull?limit=1000');
      expect((pulled.body.documents as unknown[]).length).toBe(60);
      const pulledComments = await client.get('/api/sync/comments/pull?limit=1000');
      expect((pulledComments.body.documents as unknown[]).length).toBe(comments.n);
    } finally {
      await t.close();
    }
  });
});
