import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MENTION_MESSAGES, MENTIONS_MAX } from '../../../schema/mentions';
import type { CommentView, PostView } from '../../../schema/posts';
import type { AcknowledgementDoc, CommentDoc, PostDoc, PullResponse } from '../../../schema/sync';
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
/** A category that no push goes out for, so only mentions push. */
const QUIET = 'shifts_lifts';

let devices = 0;
/** A signed-in colleague whose browser subscribed to push; answers the device name its pushes arrive under. */
async function subscribed(overrides: Parameters<TestServer['signedIn']>[0] = {}, houses: string[] = []) {
  const signed = await t.signedIn(overrides);
  if (houses.length > 0) await t.setHouses(signed.user.id, houses);
  devices += 1;
  const device = `mention-device-${devices}`;
  expect((await signed.client.post('/api/push/subscribe', receiver.subscription(device))).status).toBe(201);
  return { ...signed, device };
}

/** The mention pushes a device has received. */
const mentionPushes = (device: string) => receiver.of(device).filter((push) => push.payload.data.type === 'mention');

/** The user's mention entries as their device pulls them (the `acknowledgements` collection). */
async function mentionEntries(client: TestClient): Promise<AcknowledgementDoc[]> {
  const res = await client.get('/api/sync/acknowledgements/pull?limit=1000');
  expect(res.status).toBe(200);
  return (res.body as unknown as PullResponse<AcknowledgementDoc>).documents.filter((doc) => doc.mention);
}

const unviewed = async (client: TestClient) =>
  (await client.get('/api/notifications/unviewed-count')).body.count as number;

async function post(client: TestClient, body: Record<string, unknown>) {
  const res = await client.post('/api/posts', { category: QUIET, ...body });
  expect(res.status).toBe(201);
  return res.body as unknown as PostView;
}

async function comment(client: TestClient, postId: string, body: Record<string, unknown>) {
  const res = await client.post(`/api/posts/${postId}/comments`, body);
  expect(res.status).toBe(201);
  return res.body as unknown as CommentView;
}

describe('mentions in posts and comments over REST', () => {
  it('are stored and returned, keeping active colleagues and houses and dropping unknown ones', async () => {
    const author = await t.signedIn();
    const colleague = await t.signedIn();
    const gone = await t.buildUser({ isActive: false });
    const mentions = [colleague.user.id, 'house:Giles House', randomUUID(), gone.id, 'house:Nowhere'];
    const created = await post(author.client, { content: 'Thanks all', mentions });
    expect(created.mentions).toEqual([colleague.user.id, 'house:Giles House']);
    const feed = (await author.client.get('/api/posts?limit=100')).body as unknown as PostView[];
    expect(feed.find((p) => p.id === created.id)?.mentions).toEqual([colleague.user.id, 'house:Giles House']);

    const edited = await author.client.patch(`/api/posts/${created.id}`, { content: 'Thanks', mentions: [] });
    expect(edited.status).toBe(200);
    expect(edited.body.mentions).toEqual([]);
    const kept = await author.client.patch(`/api/posts/${created.id}`, { content: 'Thanks again' });
    expect(kept.body.mentions).toEqual([]);

    const made = await comment(colleague.client, created.id, { content: 'Welcome', mentions: [author.user.id] });
    expect(made.mentions).toEqual([author.user.id]);
    const listed = (await author.client.get(`/api/posts/${created.id}/comments`)).body as unknown as CommentView[];
    expect(listed.map((c) => c.mentions)).toEqual([[author.user.id]]);
    const form = new FormData();
    form.append('content', 'From a form');
    form.append('category', QUIET);
    form.append('mentions', colleague.user.id);
    const multipart = await author.client.postForm('/api/posts', form);
    expect(multipart.status).toBe(201);
    expect(multipart.body.mentions).toEqual([colleague.user.id]);
  });

  it('refuses more than the limit, or a list that is not one, with a clear message', async () => {
    const { client } = await t.signedIn();
    const target = await post(client, { content: 'Target' });
    const tooMany = Array.from({ length: MENTIONS_MAX + 1 }, () => randomUUID());
    for (const [url, body] of [
      ['/api/posts', { content: 'Hello', mentions: tooMany }],
      [`/api/posts/${target.id}/comments`, { content: 'Hello', mentions: tooMany }],
    ] as const) {
      const res = await client.post(url, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'validation_failed', message: MENTION_MESSAGES.tooMany });
    }
    const notList = await client.patch(`/api/posts/${target.id}`, { content: 'Hello', mentions: 'everyone' });
    expect(notList.status).toBe(400);
    expect(notList.body.message).toBe(MENTION_MESSAGES.list);
  });
});

describe('mentions through sync', () => {
  it('are stored from pushed posts and comments and pulled back with them', async () => {
    const author = await t.signedIn();
    const colleague = await t.signedIn();
    const doc = newPostDoc({ authorId: author.user.id, category: QUIET, mentions: [colleague.user.id, 'nobody'] });
    const push = await author.client.post('/api/sync/posts/push', [
      { newDocumentState: doc, assumedMasterState: null },
    ]);
    expect(push.body.conflicts).toEqual([]);
    const posts = (await author.client.get('/api/sync/posts/pull?limit=1000')).body as unknown as PullResponse<PostDoc>;
    expect(posts.documents.find((d) => d.id === doc.id)?.mentions).toEqual([colleague.user.id]);

    const commentDoc: CommentDoc = {
      id: randomUUID(),
      postId: doc.id,
      authorId: colleague.user.id,
      content: 'Noted',
      createdAt: Date.now(),
      writtenAt: Date.now(),
      updatedAt: Date.now(),
      mentions: [author.user.id],
      _deleted: false,
    };
    const sent = await colleague.client.post('/api/sync/comments/push', [
      { newDocumentState: commentDoc, assumedMasterState: null },
    ]);
    expect(sent.body.conflicts).toEqual([]);
    const pulled = (await author.client.get('/api/sync/comments/pull?limit=1000'))
      .body as unknown as PullResponse<CommentDoc>;
    expect(pulled.documents.find((d) => d.id === commentDoc.id)?.mentions).toEqual([author.user.id]);
  });

  it('refuses a pushed post with too many mentions as a conflict row, and keeps nothing of it', async () => {
    const author = await t.signedIn();
    const doc = newPostDoc({ authorId: author.user.id, mentions: Array.from({ length: 21 }, () => randomUUID()) });
    const push = await author.client.post('/api/sync/posts/push', [
      { newDocumentState: doc, assumedMasterState: null },
    ]);
    expect(push.status).toBe(200);
    expect((push.body.conflicts as PostDoc[]).map((d) => [d.id, d._deleted])).toEqual([[doc.id, true]]);
  });
});

describe('who a mention tells', () => {
  it('tells the mentioned colleague once, with a bell entry and a push that carries no content', async () => {
    const author = await subscribed({ firstName: 'Ann' });
    const colleague = await subscribed();
    const created = await post(author.client, { content: 'Secret resident detail', mentions: [colleague.user.id] });
    await t.settlePushes();
    expect(mentionPushes(colleague.device).map((push) => push.payload)).toEqual([
      {
        title: 'You were mentioned',
        body: 'Ann mentioned you. Open Staff Portal to read it.',
        tag: `mention-${created.id}`,
        data: { type: 'mention', postId: created.id },
      },
    ]);
    expect(await mentionEntries(colleague.client)).toEqual([
      expect.objectContaining({
        id: `mention:${created.id}:${colleague.user.id}`,
        postId: created.id,
        userId: colleague.user.id,
        mention: true,
        mentionedBy: author.user.id,
        commentId: null,
        viewedAt: null,
        _deleted: false,
      }),
    ]);
    expect(await unviewed(colleague.client)).toBe(1);
    expect(mentionPushes(author.device)).toEqual([]);
    expect(await mentionEntries(author.client)).toEqual([]);
  });

  it('never tells the author, even through a house they are in', async () => {
    const author = await subscribed({}, ['Tudor Way']);
    await post(author.client, { content: 'Me', mentions: [author.user.id, 'house:Tudor Way'] });
    await t.settlePushes();
    expect(mentionPushes(author.device)).toEqual([]);
    expect(await mentionEntries(author.client)).toEqual([]);
  });

  it('tells the active members of a mentioned house only', async () => {
    const author = await subscribed();
    const member = await subscribed({}, ['Hanover Drive']);
    const other = await subscribed({}, ['Main Road']);
    const inactive = await subscribed({}, ['Hanover Drive']);
    await statement(t.db, 'UPDATE users SET is_active = FALSE WHERE id = ?').run([inactive.user.id]);
    await post(author.client, { content: 'Hanover team', mentions: ['house:Hanover Drive'] });
    await t.settlePushes();
    expect(mentionPushes(member.device)).toHaveLength(1);
    expect(mentionPushes(other.device)).toEqual([]);
    expect(mentionPushes(inactive.device)).toEqual([]);
    expect(await mentionEntries(member.client)).toHaveLength(1);
    expect(await mentionEntries(other.client)).toEqual([]);
    const entries = statement(t.db, 'SELECT user_id AS "userId" FROM mention_entries WHERE user_id = ?');
    expect(await entries.all([inactive.user.id])).toEqual([]);
  });

  it('tells nobody outside the audience of a post addressed to houses, in the post or its comments', async () => {
    const author = await subscribed({ role: 'admin' });
    const inside = await subscribed({}, ['The Lodges']);
    const outside = await subscribed({}, ['Apps House']);
    const admin = await subscribed({ role: 'admin' });
    const mentions = [inside.user.id, outside.user.id, admin.user.id];
    const urgent = await post(author.client, {
      content: 'Lodges only',
      isUrgent: true,
      audienceHouses: ['The Lodges'],
      mentions,
    });
    await comment(inside.client, urgent.id, { content: 'On it', mentions: [outside.user.id, admin.user.id] });
    await t.settlePushes();
    expect(mentionPushes(inside.device)).toHaveLength(1);
    expect(mentionPushes(admin.device)).toHaveLength(2);
    expect(mentionPushes(outside.device)).toEqual([]);
    expect(await mentionEntries(outside.client)).toEqual([]);
    expect((await mentionEntries(admin.client)).map((e) => e.commentId === null)).toEqual([true, false]);
  });

  it('on an edit, tells only the people newly mentioned', async () => {
    const author = await subscribed();
    const first = await subscribed();
    const second = await subscribed({}, ['Westminster Croft']);
    const created = await post(author.client, { content: 'Hi', mentions: [first.user.id] });
    const edit = (mentions: string[]) => author.client.patch(`/api/posts/${created.id}`, { content: 'Hi', mentions });
    expect((await edit([first.user.id, second.user.id])).status).toBe(200);
    expect((await edit([first.user.id, second.user.id])).status).toBe(200);
    // Mentioned again through their house, or dropped and mentioned again: told already.
    expect((await edit(['house:Westminster Croft'])).status).toBe(200);
    expect((await edit([first.user.id])).status).toBe(200);
    await t.settlePushes();
    expect(mentionPushes(first.device)).toHaveLength(1);
    expect(mentionPushes(second.device)).toHaveLength(1);
    expect(await mentionEntries(first.client)).toHaveLength(1);
    expect(await mentionEntries(second.client)).toHaveLength(1);
  });

  it('tells once for a comment written offline and sent twice', async () => {
    const author = await subscribed();
    const colleague = await subscribed();
    const target = await post(colleague.client, { content: 'Rota' });
    const body = { id: randomUUID(), content: 'Can you swap?', mentions: [colleague.user.id] };
    await comment(author.client, target.id, body);
    await comment(author.client, target.id, body);
    await t.settlePushes();
    expect(mentionPushes(colleague.device)).toHaveLength(1);
    const entries = await mentionEntries(colleague.client);
    expect(entries.map((e) => e.id)).toEqual([`mention:${body.id}:${colleague.user.id}`]);
  });

  it('tells nobody of a scheduled post until it is published', async () => {
    const author = await subscribed();
    const colleague = await subscribed();
    const publishAt = new Date(t.server.deps.now() + 5 * MINUTE).toISOString();
    const scheduled = await post(author.client, { content: 'Later', publishAt, mentions: [colleague.user.id] });
    await t.settlePushes();
    expect(mentionPushes(colleague.device)).toEqual([]);
    expect(await mentionEntries(colleague.client)).toEqual([]);
    t.advance(5 * MINUTE + 1);
    await t.server.publisher.check();
    await t.settlePushes();
    expect(mentionPushes(colleague.device).map((p) => p.payload.data.postId)).toEqual([scheduled.id]);
    expect(await mentionEntries(colleague.client)).toHaveLength(1);
  });

  it('pushes at most three mentions a minute from one author, then one summary; every bell entry stays', async () => {
    const author = await subscribed({ firstName: 'Max' });
    const colleague = await subscribed();
    const target = await post(colleague.client, { content: 'Busy day' });
    for (let i = 0; i < 5; i += 1) {
      await comment(author.client, target.id, { content: `Ping ${i}`, mentions: [colleague.user.id] });
    }
    await t.settlePushes();
    expect(mentionPushes(colleague.device)).toHaveLength(3);
    t.advance(MINUTE);
    await t.server.heldPushes.flush();
    await t.settlePushes();
    const pushes = mentionPushes(colleague.device);
    expect(pushes).toHaveLength(4);
    expect(pushes[3].payload).toEqual({
      title: 'You were mentioned',
      body: 'Max mentioned you 2 more times. Open Staff Portal to read them.',
      tag: 'mentions',
      data: { type: 'mention' },
    });
    expect(JSON.stringify(pushes.map((push) => push.payload))).not.toContain('Ping');
    expect(await mentionEntries(colleague.client)).toHaveLength(5);
  });
});

describe('the bell entries of mentions', () => {
  it('are marked seen by their user through sync, and leave the bell with their comment or post', async () => {
    const author = await t.signedIn();
    const colleague = await t.signedIn();
    const target = await post(author.client, { content: 'Hello', mentions: [colleague.user.id] });
    const made = await comment(author.client, target.id, { content: 'See this', mentions: [colleague.user.id] });
    const [entry, ofComment] = await mentionEntries(colleague.client);
    expect(ofComment.commentId).toBe(made.id);
    expect(await unviewed(colleague.client)).toBe(2);

    const stranger = await author.client.post('/api/sync/acknowledgements/push', [
      { newDocumentState: { ...entry, viewedAt: Date.now() }, assumedMasterState: entry },
    ]);
    // Someone else's entry is not theirs: refused, and still unseen.
    expect(stranger.body.conflicts).toHaveLength(1);
    expect(await unviewed(colleague.client)).toBe(2);
    const seen = await colleague.client.post('/api/sync/acknowledgements/push', [
      { newDocumentState: { ...entry, viewedAt: Date.now() }, assumedMasterState: entry },
    ]);
    expect(seen.body.conflicts).toEqual([]);
    expect(await unviewed(colleague.client)).toBe(1);
    const viewed = (await mentionEntries(colleague.client)).find((e) => e.id === entry.id);
    expect(viewed?.viewedAt).not.toBeNull();

    expect((await author.client.delete(`/api/comments/${made.id}`)).status).toBe(204);
    expect(await unviewed(colleague.client)).toBe(0);
    expect((await author.client.delete(`/api/posts/${target.id}`)).status).toBe(204);
    const after = await mentionEntries(colleague.client);
    expect(after.map((e) => e._deleted)).toEqual([true, true]);
  });
});
