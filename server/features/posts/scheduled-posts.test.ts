import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmergencyAlert } from '../../../schema/alerts';
import { POST_MESSAGES, type PostView, type ScheduledPostView } from '../../../schema/posts';
import type { PostDoc, PullResponse } from '../../../schema/sync';
import { currentSeq } from '../../lib/seq.queries';
import { startPushReceiver, type PushReceiver } from '../../test/push-receiver';
import { newPostDoc } from '../../test/sync-docs';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;
let receiver: PushReceiver;

beforeAll(async () => {
  receiver = await startPushReceiver();
  t = await startTestServer({ PUSH_ALLOW_HOSTS: receiver.origin });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const MINUTE = 60_000;
/** ISO 8601 of the server's clock moved by `ms`. */
const serverTimeIn = (ms: number, s: TestServer = t) => new Date(s.server.deps.now() + ms).toISOString();
/** Whether the server holds a published post with this id (sessions may have expired once the clock moved). */
const isPublished = async (s: TestServer, id: string) =>
  ((await statement(s.db, 'SELECT count(*) AS n FROM posts WHERE id = ?').get([id])) as { n: number }).n === 1;

/** A server of the test's own, whose publisher publishes only the test's posts. */
async function withFreshServer(run: (s: TestServer) => Promise<void>) {
  const fresh = await startTestServer({ PUSH_ALLOW_HOSTS: receiver.origin });
  try {
    await run(fresh);
  } finally {
    await fresh.close();
  }
}

const feedIds = async (client: TestClient) =>
  ((await client.get('/api/posts?limit=100')).body as unknown as PostView[]).map((p) => p.id);
const pulledIds = async (client: TestClient) =>
  ((await client.get('/api/sync/posts/pull?limit=500')).body as unknown as PullResponse<PostDoc>).documents.map(
    (d) => d.id,
  );
const pulledDoc = async (client: TestClient, id: string) =>
  ((await client.get('/api/sync/posts/pull?limit=500')).body as unknown as PullResponse<PostDoc>).documents.find(
    (d) => d.id === id,
  );
const scheduledOf = async (client: TestClient) =>
  (await client.get('/api/posts/scheduled')).body as unknown as ScheduledPostView[];

async function schedule(client: TestClient, body: Record<string, unknown>) {
  const res = await client.post('/api/posts', { content: 'Rota changes from Monday', ...body });
  expect(res.status).toBe(201);
  return res.body as unknown as ScheduledPostView;
}

describe('scheduling a post', () => {
  it('answers 401 for GET /api/posts/scheduled when signed out', async () => {
    expect((await t.client().get('/api/posts/scheduled')).status).toBe(401);
  });

  it('shows a scheduled post only to its author and admins, in no feed, pull or change until published', async () => {
    const author = await t.signedIn({ firstName: 'Sam' });
    const other = await t.signedIn();
    const admin = await t.signedIn({ role: 'admin' });
    const seq = await currentSeq(t.db);
    const publishAt = serverTimeIn(10 * MINUTE);
    const post = await schedule(author.client, { publishAt });
    expect(post).toMatchObject({ content: 'Rota changes from Monday', publishAt, author: { firstName: 'Sam' } });
    expect(await currentSeq(t.db)).toBe(seq);

    expect((await scheduledOf(author.client)).map((p) => p.id)).toEqual([post.id]);
    expect((await scheduledOf(admin.client)).map((p) => p.id)).toContain(post.id);
    expect(await scheduledOf(other.client)).toEqual([]);
    for (const client of [author.client, other.client, admin.client]) {
      expect(await feedIds(client)).not.toContain(post.id);
      expect(await pulledIds(client)).not.toContain(post.id);
    }
    for (const client of [author.client, other.client]) {
      expect((await client.get(`/api/posts/${post.id}/comments`)).status).toBe(404);
      expect((await client.post(`/api/posts/${post.id}/comments`, { content: 'Early' })).status).toBe(404);
      expect((await client.post(`/api/posts/${post.id}/reactions`, { type: 'like' })).status).toBe(404);
    }
  });

  it('publishes it at its time, once, with its alert and pushes; its createdAt is the publication time', async () => {
    await withFreshServer(async (s) => {
      const author = await s.signedIn({ role: 'admin', firstName: 'Ada' });
      const member = await s.signedIn();
      await member.client.post('/api/push/subscribe', receiver.subscription('scheduled-member'));
      const post = await schedule(author.client, { isUrgent: true, publishAt: serverTimeIn(5 * MINUTE, s) });

      s.advance(4 * MINUTE);
      expect(await s.server.publisher.check()).toBe(0);
      expect((await member.client.get('/api/alerts/unacknowledged')).body).toEqual([]);
      s.advance(MINUTE + 1);
      const publishedAt = s.server.deps.now();
      expect(await s.server.publisher.check()).toBe(1);
      expect(await s.server.publisher.check()).toBe(0);

      const feed = (await member.client.get('/api/posts?limit=100')).body as unknown as PostView[];
      const published = feed.filter((p) => p.id === post.id);
      expect(published).toHaveLength(1);
      expect(Date.parse(published[0].createdAt)).toBeGreaterThanOrEqual(publishedAt);
      expect(published[0]).not.toHaveProperty('publishAt');
      expect(await pulledIds(member.client)).toContain(post.id);
      expect(await scheduledOf(author.client)).toEqual([]);
      const alerts = (await member.client.get('/api/alerts/unacknowledged')).body as unknown as EmergencyAlert[];
      expect(alerts.map((a) => a.id)).toEqual([post.id]);
      const pushes = await receiver.waitFor('scheduled-member');
      expect(pushes.map((p) => (p.payload as { data: { postId: string } }).data.postId)).toEqual([post.id]);
    });
  });

  it('lets its author edit its text and time, an admin change anyone’s (audited), and cancel it', async () => {
    const author = await t.signedIn();
    const other = await t.signedIn();
    const admin = await t.signedIn({ role: 'admin' });
    const post = await schedule(author.client, { publishAt: serverTimeIn(60 * MINUTE) });

    const later = serverTimeIn(120 * MINUTE);
    const edited = await author.client.patch(`/api/posts/${post.id}`, {
      content: 'Rota from Tuesday',
      publishAt: later,
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ content: 'Rota from Tuesday', publishAt: later, editedBy: null });

    const refused = await other.client.patch(`/api/posts/${post.id}`, { content: 'Mine now', publishAt: later });
    expect(refused.status).toBe(403);
    expect((await other.client.delete(`/api/posts/${post.id}`)).status).toBe(403);

    const sooner = serverTimeIn(30 * MINUTE);
    const byAdmin = await admin.client.patch(`/api/posts/${post.id}`, {
      content: 'Rota from Tuesday',
      publishAt: sooner,
    });
    expect(byAdmin.body).toMatchObject({ publishAt: sooner, editedBy: { id: admin.user.id } });
    const audit = (await statement(
      t.db,
      "SELECT details FROM audit_log WHERE action = 'post.update' AND target_id = ?",
    ).get([post.id])) as { details: string };
    expect(JSON.parse(audit.details)).toMatchObject({ fields: ['publishAt'], after: { publishAt: sooner } });
    expect(await feedIds(other.client)).not.toContain(post.id);

    expect((await author.client.delete(`/api/posts/${post.id}`)).status).toBe(204);
    expect(await scheduledOf(author.client)).toEqual([]);
    t.advance(60 * MINUTE);
    await t.server.publisher.check();
    expect(await isPublished(t, post.id)).toBe(false);
  });

  it('publishes at once when the time is edited to null or to a time already past', async () => {
    const author = await t.signedIn();
    const other = await t.signedIn();
    for (const publishAt of [null, serverTimeIn(-MINUTE)]) {
      const post = await schedule(author.client, { publishAt: serverTimeIn(60 * MINUTE) });
      const res = await author.client.patch(`/api/posts/${post.id}`, { content: 'Now then', publishAt });
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('publishAt');
      expect(await feedIds(other.client)).toContain(post.id);
    }
  });

  it('refuses a bad time, one too far ahead, and a time on a published post (400)', async () => {
    const author = await t.signedIn();
    for (const publishAt of ['tomorrow', '2026-12-01T09:00:00', 1_800_000_000_000]) {
      const res = await author.client.post('/api/posts', { content: 'Soon', publishAt });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ path: 'publishAt' }] });
    }
    const far = await author.client.post('/api/posts', { content: 'Soon', publishAt: serverTimeIn(400 * 86_400_000) });
    expect(far.status).toBe(400);
    expect(far.body.message).toBe(POST_MESSAGES.publishAtTooFar);

    const published = (await author.client.post('/api/posts', { content: 'Out now' })).body as unknown as PostView;
    const res = await author.client.patch(`/api/posts/${published.id}`, {
      content: 'Out now',
      publishAt: serverTimeIn(MINUTE),
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(POST_MESSAGES.alreadyPublished);
  });

  it('refuses staff a time on a colleague’s published post (403)', async () => {
    const author = await t.signedIn();
    const other = await t.signedIn();
    const published = (await author.client.post('/api/posts', { content: 'Out now' })).body as unknown as PostView;
    const res = await other.client.patch(`/api/posts/${published.id}`, {
      content: 'Out now',
      publishAt: serverTimeIn(MINUTE),
    });
    expect(res.status).toBe(403);
  });
});

describe('scheduled posts through sync', () => {
  it('publishes a post pushed late with a time already past at once, exactly once', async () => {
    const author = await t.signedIn();
    const other = await t.signedIn();
    const doc = newPostDoc({ content: 'Written offline', publishAt: serverTimeIn(-10 * MINUTE) });
    for (let i = 0; i < 2; i += 1) {
      await author.client.post('/api/sync/posts/push', [{ newDocumentState: doc, assumedMasterState: null }]);
    }
    expect((await pulledIds(other.client)).filter((id) => id === doc.id)).toHaveLength(1);
    const count = (await statement(t.db, 'SELECT count(*) AS n FROM posts WHERE id = ?').get([doc.id])) as {
      n: number;
    };
    expect(count.n).toBe(1);
  });

  it('schedules a post pushed with a time ahead; its author’s later pushes edit or cancel it, no one else’s', async () => {
    const author = await t.signedIn();
    const other = await t.signedIn();
    const publishAt = serverTimeIn(30 * MINUTE);
    const doc = newPostDoc({ content: 'Team meeting', publishAt });
    const first = await author.client.post('/api/sync/posts/push', [
      { newDocumentState: doc, assumedMasterState: null },
    ]);
    expect(first.body.conflicts).toEqual([]);
    expect(await pulledIds(other.client)).not.toContain(doc.id);
    const [scheduled] = await scheduledOf(author.client);
    expect(scheduled).toMatchObject({ id: doc.id, publishAt });

    const foreign = await other.client.post('/api/sync/posts/push', [
      { newDocumentState: { ...doc, content: 'Taken over' }, assumedMasterState: null },
    ]);
    expect(foreign.body.conflicts).toEqual([{ ...doc, content: 'Taken over', _deleted: true }]);

    const master = { ...doc, authorId: author.user.id };
    const edit = { ...master, content: 'Team meeting moved' };
    const edited = await author.client.post('/api/sync/posts/push', [
      { newDocumentState: edit, assumedMasterState: doc },
    ]);
    expect(edited.body.conflicts).toEqual([]);
    expect((await scheduledOf(author.client))[0].content).toBe('Team meeting moved');

    await author.client.post('/api/sync/posts/push', [
      { newDocumentState: { ...edit, _deleted: true }, assumedMasterState: edit },
    ]);
    expect(await scheduledOf(author.client)).toEqual([]);
    t.advance(60 * MINUTE);
    await t.server.publisher.check();
    expect(await isPublished(t, doc.id)).toBe(false);
  });

  it('moves a scheduled post pushed with a new time, publishes one pushed with a past time, and refuses a time on a published post', async () => {
    const author = await t.signedIn();
    const admin = await t.signedIn({ role: 'admin' });
    const push = (newDocumentState: PostDoc, assumedMasterState: PostDoc | null) =>
      author.client.post('/api/sync/posts/push', [{ newDocumentState, assumedMasterState }]);
    const doc = { ...newPostDoc({ content: 'Supervision', publishAt: serverTimeIn(30 * MINUTE) }) };
    expect((await push(doc, null)).body.conflicts).toEqual([]);
    const master = { ...doc, authorId: author.user.id };

    const later = serverTimeIn(90 * MINUTE);
    const moved = { ...master, publishAt: later };
    expect((await push(moved, master)).body.conflicts).toEqual([]);
    expect((await scheduledOf(author.client)).find((p) => p.id === doc.id)).toMatchObject({ publishAt: later });

    // An admin moves it meanwhile: the author's push from the earlier state is a conflict answering the new time.
    const adminTime = serverTimeIn(120 * MINUTE);
    expect(
      (await admin.client.patch(`/api/posts/${doc.id}`, { content: 'Supervision', publishAt: adminTime })).status,
    ).toBe(200);
    const stale = await push({ ...moved, content: 'Supervision at 3' }, moved);
    expect(stale.body.conflicts).toMatchObject([{ id: doc.id, publishAt: adminTime, content: 'Supervision' }]);

    const [current] = stale.body.conflicts as PostDoc[]; // a push answers the conflicting masters
    expect((await push({ ...current, publishAt: serverTimeIn(-MINUTE) }, current)).body.conflicts).toEqual([]);
    expect(await isPublished(t, doc.id)).toBe(true);
    expect((await scheduledOf(author.client)).some((p) => p.id === doc.id)).toBe(false);

    const published = (await pulledDoc(author.client, doc.id))!;
    expect(published.publishAt).toBeUndefined();
    const refused = await push({ ...published, content: 'Too late', publishAt: serverTimeIn(60 * MINUTE) }, published);
    expect(refused.body.conflicts).toMatchObject([{ id: doc.id, content: 'Supervision' }]);
    // The same time it already had (none) is no change: the words go through.
    expect((await push({ ...published, content: 'Supervision, notes attached' }, published)).body.conflicts).toEqual(
      [],
    );
    expect((await pulledDoc(author.client, doc.id))!.content).toBe('Supervision, notes attached');
  });

  it('publishes a scheduled post pushed with no time (null) at once', async () => {
    const author = await t.signedIn();
    const doc = newPostDoc({ content: 'Now, not later', publishAt: serverTimeIn(30 * MINUTE) });
    await author.client.post('/api/sync/posts/push', [{ newDocumentState: doc, assumedMasterState: null }]);
    const master = { ...doc, authorId: author.user.id };
    const res = await author.client.post('/api/sync/posts/push', [
      { newDocumentState: { ...master, publishAt: null }, assumedMasterState: master },
    ]);
    expect(res.body.conflicts).toEqual([]);
    expect(await isPublished(t, doc.id)).toBe(true);
  });
});
