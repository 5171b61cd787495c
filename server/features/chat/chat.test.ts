import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHAT_MESSAGES,
  conversationIdOf,
  SendMessageBodySchema,
  type ConversationView,
  type MessageView,
} from '../../../schema/chat';
import type { ConversationDoc, MessageDoc, PullResponse, PushResponse, SyncCheckpoint } from '../../../schema/sync';
import { parseInput } from '../../lib/http';
import { actorOf, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { sendMessage } from './chat.service';
import { statement } from '../../db/client';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const conversationsOf = async (client: TestClient) =>
  (await client.get('/api/conversations')).body as unknown as ConversationView[];
const messagesOf = async (client: TestClient, id: string) =>
  (await client.get(`/api/conversations/${encodeURIComponent(id)}/messages`)).body as unknown as MessageView[];
const path = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

/** Two signed-in colleagues and their conversation, opened by the first. */
async function pair(names: [string, string] = ['Ann', 'Ben']) {
  const a = await t.signedIn({ firstName: names[0], lastName: 'One' });
  const b = await t.signedIn({ firstName: names[1], lastName: 'Two' });
  const res = await a.client.post('/api/conversations', { participantId: b.user.id });
  expect(res.status).toBe(201);
  return { a, b, id: res.body.id as string };
}

async function pullAll<T extends { id: string }>(client: TestClient, collection: string) {
  const docs = new Map<string, T>();
  let checkpoint: SyncCheckpoint | undefined;
  for (;;) {
    const query = checkpoint ? `?seq=${checkpoint.seq}&id=${encodeURIComponent(checkpoint.id)}` : '';
    const res = await client.get(`/api/sync/${collection}/pull${query}`);
    expect(res.status).toBe(200);
    const page = res.body as unknown as PullResponse<T>;
    for (const doc of page.documents) docs.set(doc.id, doc);
    if (page.documents.length === 0) return docs;
    checkpoint = page.checkpoint;
  }
}

async function push<T>(client: TestClient, collection: string, rows: unknown[]) {
  const res = await client.post(`/api/sync/${collection}/push`, rows);
  expect(res.status).toBe(200);
  return (res.body as unknown as PushResponse<T>).conflicts;
}

const newMessageDoc = (conversationId: string, content: string): MessageDoc => ({
  id: randomUUID(),
  conversationId,
  senderId: null,
  content,
  createdAt: 0,
  writtenAt: Date.now(),
  _deleted: false,
});

describe('access to the chat calls', () => {
  it.each([
    ['GET', '/api/conversations'],
    ['POST', '/api/conversations', { participantId: 'x' }],
    ['POST', '/api/conversations', { memberIds: ['x', 'y'], name: 'Team' }],
    ['PATCH', '/api/conversations/x', { muted: true }],
    ['POST', '/api/conversations/x/members', { userIds: ['y'] }],
    ['DELETE', '/api/conversations/x/members/y'],
    ['POST', '/api/conversations/x/join'],
    ['POST', '/api/conversations/x/leave'],
    ['POST', '/api/conversations/x/read', { upTo: 'm' }],
    ['GET', '/api/conversations/x/messages'],
    ['POST', '/api/conversations/x/messages', { content: 'Hi' }],
    ['PATCH', '/api/conversations/x/read'],
    ['GET', '/api/messages/unread-count'],
    ['GET', '/api/users'],
  ])('%s %s answers 401 when signed out', async (method, url, body?: unknown) => {
    const res = await t.client().request(method, url, body);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'unauthenticated', message: 'Unauthorized' });
  });
});

describe('GET /api/users', () => {
  it('lists the other active colleagues by name, never oneself, an inactive or a pending account, and no e-mail', async () => {
    const fresh = await startTestServer();
    try {
      const { user, client } = await fresh.signedIn({ firstName: 'Zoe', lastName: 'Me' });
      const colleague = await fresh.buildUser({ firstName: 'Amy', lastName: 'Active', role: 'admin' });
      await fresh.buildUser({ firstName: 'Ina', lastName: 'Inactive', isActive: false });
      await fresh.buildUser({ firstName: 'Pat', lastName: 'Pending', isActive: false, pendingApproval: true });
      const res = await client.get('/api/users');
      expect(res.status).toBe(200);
      const list = res.body as unknown as Record<string, unknown>[];
      // "System Administrator" is the first administrator, made from ADMIN_EMAIL.
      expect(list.map((u) => u.firstName)).toEqual(['Amy', 'System']);
      expect(list[0]).toEqual({
        id: colleague.id,
        firstName: 'Amy',
        lastName: 'Active',
        role: 'admin',
        profileImageUrl: null,
      });
      expect(list.some((u) => u.id === user.id)).toBe(false);
      expect(JSON.stringify(list)).not.toMatch(/@/);
    } finally {
      await fresh.close();
    }
  });
});

describe('POST /api/conversations', () => {
  it('opens a conversation (201), then answers the same one to either side (200)', async () => {
    const a = await t.signedIn({ firstName: 'Cara', lastName: 'Carer' });
    const b = await t.signedIn({ firstName: 'Dev', lastName: 'Driver', role: 'admin' });
    const first = await a.client.post('/api/conversations', { participantId: b.user.id });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: conversationIdOf(a.user.id, b.user.id),
      kind: 'direct',
      name: null,
      memberIds: [a.user.id, b.user.id].sort(),
      createdBy: null,
      muted: false,
      otherUser: { id: b.user.id, firstName: 'Dev', lastName: 'Driver', role: 'admin', profileImageUrl: null },
      unreadCount: 0,
      lastMessage: null,
      lastMessageAt: null,
    });
    const again = await a.client.post('/api/conversations', { participantId: b.user.id });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const fromOther = await b.client.post('/api/conversations', { participantId: a.user.id });
    expect(fromOther.status).toBe(200);
    expect(fromOther.body).toMatchObject({ id: first.body.id, otherUser: { firstName: 'Cara' } });
    const count = await statement(t.db, 'SELECT count(*) AS n FROM conversations WHERE id = ?').get([first.body.id]);
    expect(count).toEqual({ n: 1 });
  });

  it('refuses oneself (400), an unknown or inactive user (404) and a missing participant (400)', async () => {
    const { user, client } = await t.signedIn();
    const inactive = await t.buildUser({ isActive: false });
    const self = await client.post('/api/conversations', { participantId: user.id });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe(CHAT_MESSAGES.notWithYourself);
    for (const participantId of [randomUUID(), inactive.id]) {
      const res = await client.post('/api/conversations', { participantId });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(CHAT_MESSAGES.userNotFound);
    }
    const missing = await client.post('/api/conversations', {});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe(CHAT_MESSAGES.participantRequired);
  });
});

describe('messages', () => {
  it('sends a message as a MessageView, trimmed, at the server time, by the signed-in sender', async () => {
    const { a, b, id } = await pair();
    const before = Date.now();
    const res = await a.client.post(`${path(id)}/messages`, {
      content: '  Running late, 10 min  ',
      senderId: b.user.id,
    });
    expect(res.status).toBe(201);
    const message = res.body as unknown as MessageView;
    expect(message).toEqual({
      id: expect.any(String),
      conversationId: id,
      content: 'Running late, 10 min',
      senderId: a.user.id,
      sender: { firstName: 'Ann' },
      createdAt: expect.any(String),
      writtenAt: message.createdAt, // sent without a written time: its arrival
      isRead: false,
      mentions: [],
      images: [],
      attachments: [],
    });
    expect(Date.parse(message.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(await messagesOf(b.client, id)).toEqual([message]);
  });

  it.each([
    ['blank content', { content: '   ' }, CHAT_MESSAGES.messageRequired],
    ['no content', {}, CHAT_MESSAGES.messageRequired],
    ['2001 characters', { content: 'x'.repeat(2001) }, CHAT_MESSAGES.messageTooLong],
    ['an id that is not a UUID', { content: 'Hi', id: 'not-a-uuid' }, 'id must be a UUID'],
  ])('refuses %s with "%s"', async (_label, body, message) => {
    const { a, id } = await pair();
    const res = await a.client.post(`${path(id)}/messages`, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it('keeps messages in the order they were sent, each later than the one before', async () => {
    const { a, b, id } = await pair();
    for (let i = 0; i < 6; i += 1) await (i % 2 ? b : a).client.post(`${path(id)}/messages`, { content: `m${i}` });
    const list = await messagesOf(a.client, id);
    expect(list.map((m) => m.content)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4', 'm5']);
    const times = list.map((m) => Date.parse(m.createdAt));
    for (let i = 1; i < times.length; i += 1) expect(times[i]).toBeGreaterThan(times[i - 1]);
    const limited = (await a.client.get(`${path(id)}/messages?limit=2`)).body as unknown as MessageView[];
    expect(limited.map((m) => m.content)).toEqual(['m4', 'm5']);
    expect((await a.client.get(`${path(id)}/messages?limit=0`)).status).toBe(400);
  });

  it('pages a long conversation newest first with limit and before, each message once, as MessageViews', async () => {
    const { a, b, id } = await pair();
    const start = Date.now() - 1_000_000;
    // One after another: each message is stored at its own sequence, in the order written.
    const sent: Awaited<ReturnType<typeof t.buildMessage>>[] = [];
    for (let i = 0; i < 450; i += 1) {
      sent.push(
        await t.buildMessage(id, i % 3 ? a.user.id : b.user.id, { content: `m${i}`, createdAt: start + i * 10 }),
      );
    }
    const contents = sent.map((m) => m.content);

    // Without paging parameters: a plain array of MessageView (docs/api-chat-alerts.md), the newest 200, oldest first.
    const plain = await a.client.get(`${path(id)}/messages`);
    expect(plain.status).toBe(200);
    const newest = plain.body as unknown as MessageView[];
    expect(newest.map((m) => m.content)).toEqual(contents.slice(250));
    expect(newest[0]).toEqual({
      id: sent[250].id,
      conversationId: id,
      content: 'm250',
      senderId: a.user.id,
      sender: { firstName: 'Ann' },
      createdAt: new Date(start + 2500).toISOString(),
      writtenAt: new Date(start + 2500).toISOString(),
      isRead: false,
      mentions: [],
      images: [],
      attachments: [],
    });
    expect(plain.headers.get('x-next-cursor')).toBe(sent[250].id);

    // Scrolling up: pages of 100 before the oldest one shown, until the header is absent.
    const seen: string[] = [];
    let before: string | null = null;
    let pages = 0;
    do {
      const query: string = before ? `?limit=100&before=${encodeURIComponent(before)}` : '?limit=100';
      const res = await b.client.get(`${path(id)}/messages${query}`);
      expect(res.status).toBe(200);
      const page = res.body as unknown as MessageView[];
      seen.unshift(...page.map((m) => m.content));
      before = res.headers.get('x-next-cursor');
      if (before) expect(before).toBe(page[0].id);
      pages += 1;
    } while (before);
    expect(pages).toBe(5);
    expect(seen).toEqual(contents);

    // A page that ends exactly at the first message says there is nothing older.
    const last = await a.client.get(`${path(id)}/messages?limit=50&before=${sent[50].id}`);
    expect((last.body as unknown as MessageView[]).map((m) => m.content)).toEqual(contents.slice(0, 50));
    expect(last.headers.get('x-next-cursor')).toBeNull();
    const none = await a.client.get(`${path(id)}/messages?before=${sent[0].id}`);
    expect(none.body).toEqual([]);
    expect(none.headers.get('x-next-cursor')).toBeNull();

    // New messages arriving meanwhile do not move an older page.
    await b.client.post(`${path(id)}/messages`, { content: 'Newer' });
    const again = await a.client.get(`${path(id)}/messages?limit=3&before=${sent[100].id}`);
    expect((again.body as unknown as MessageView[]).map((m) => m.content)).toEqual(['m97', 'm98', 'm99']);
  });

  it('refuses a before that is not a message of this conversation (400), and a stranger still gets 404', async () => {
    const { a, id } = await pair();
    const mine = await a.client.post(`${path(id)}/messages`, { content: 'Here' });
    const other = await pair(['Eve', 'Fay']);
    const elsewhere = await other.a.client.post(`${path(other.id)}/messages`, { content: 'There' });
    for (const before of [randomUUID(), elsewhere.body.id as string, '']) {
      const res = await a.client.get(`${path(id)}/messages?before=${encodeURIComponent(before)}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(CHAT_MESSAGES.invalidBefore);
    }
    const stranger = await other.a.client.get(`${path(id)}/messages?before=${mine.body.id as string}`);
    expect(stranger.status).toBe(404);
    expect((await a.client.get(`${path(id)}/messages?limit=1001`)).status).toBe(400);
    expect((await t.client().get(`${path(id)}/messages?limit=10&before=${mine.body.id as string}`)).status).toBe(401);
  });

  it('stores a message sent twice with the same client id once', async () => {
    const { a, id } = await pair();
    const messageId = randomUUID();
    const first = await a.client.post(`${path(id)}/messages`, { id: messageId, content: 'Once' });
    const again = await a.client.post(`${path(id)}/messages`, { id: messageId, content: 'Once' });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.body.id).toBe(messageId);
    expect((await messagesOf(a.client, id)).filter((m) => m.id === messageId)).toHaveLength(1);
  });

  it('lets only the two participants read or write a conversation: everyone else gets 404', async () => {
    const { a, id } = await pair();
    await a.client.post(`${path(id)}/messages`, { content: 'Private' });
    const stranger = (await t.signedIn({ role: 'system_admin' })).client;
    for (const res of [
      await stranger.get(`${path(id)}/messages`),
      await stranger.post(`${path(id)}/messages`, { content: 'Intruding' }),
      await stranger.patch(`${path(id)}/read`),
      await stranger.get(`${path(randomUUID())}/messages`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(CHAT_MESSAGES.conversationNotFound);
    }
    expect(await conversationsOf(stranger)).toEqual([]);
    expect((await messagesOf(a.client, id)).map((m) => m.content)).toEqual(['Private']);
  });

  it('refuses someone else’s message id (409) without revealing the message', async () => {
    const { a, id } = await pair();
    const sent = await a.client.post(`${path(id)}/messages`, { content: 'Mine' });
    const other = await pair(['Cat', 'Dan']);
    const res = await other.a.client.post(`${path(other.id)}/messages`, { id: sent.body.id, content: 'Copy' });
    expect(res.status).toBe(409);
    expect(res.text).not.toContain('Mine');
  });
});

describe('unread counts and read marks', () => {
  it('counts unread messages per conversation and in all, and reading resets them for the reader only', async () => {
    const { a, b, id } = await pair();
    const c = await t.signedIn({ firstName: 'Cy' });
    const other = (await c.client.post('/api/conversations', { participantId: b.user.id })).body.id as string;
    await a.client.post(`${path(id)}/messages`, { content: 'one' });
    await a.client.post(`${path(id)}/messages`, { content: 'two' });
    await c.client.post(`${path(other)}/messages`, { content: 'three' });
    await b.client.post(`${path(id)}/messages`, { content: 'reply' });

    expect((await b.client.get('/api/messages/unread-count')).body).toEqual({ count: 3 });
    expect((await a.client.get('/api/messages/unread-count')).body).toEqual({ count: 1 });
    const list = await conversationsOf(b.client);
    expect(list.map((cv) => [cv.otherUser?.firstName, cv.unreadCount, cv.lastMessage?.content])).toEqual([
      ['Ann', 2, 'reply'],
      ['Cy', 1, 'three'],
    ]);
    expect(list[0].lastMessageAt).toEqual(expect.any(String));

    const read = await b.client.patch(`${path(id)}/read`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, unreadCount: 0 });
    expect((await b.client.get('/api/messages/unread-count')).body).toEqual({ count: 1 });
    // Ann sees her messages read, Ben's reply still unread by her.
    expect((await messagesOf(a.client, id)).map((m) => [m.content, m.isRead])).toEqual([
      ['one', true],
      ['two', true],
      ['reply', false],
    ]);
    expect((await a.client.get('/api/messages/unread-count')).body).toEqual({ count: 1 });
  });

  it('answers 404 when marking someone else’s conversation read', async () => {
    const { id } = await pair();
    const res = await (await t.signedIn()).client.patch(`${path(id)}/read`);
    expect(res.status).toBe(404);
  });
});

describe('a deleted participant', () => {
  it('leaves the conversation as "Deleted user" for the other side, closed to new messages', async () => {
    const { a, b, id } = await pair();
    await b.client.post(`${path(id)}/messages`, { content: 'Bye' });
    const sysadmin = (await t.signedIn({ role: 'system_admin' })).client;
    expect((await sysadmin.delete(`/api/admin/users/${b.user.id}`)).status).toBe(204);
    const [view] = (await conversationsOf(a.client)).filter((cv) => cv.id === id);
    expect(view.otherUser).toEqual({
      id: null,
      firstName: 'Deleted',
      lastName: 'user',
      role: null,
      profileImageUrl: null,
    });
    expect(await messagesOf(a.client, id)).toEqual([
      expect.objectContaining({ content: 'Bye', senderId: null, sender: { firstName: 'Deleted' } }),
    ]);
    const res = await a.client.post(`${path(id)}/messages`, { content: 'Hello?' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(CHAT_MESSAGES.participantDeleted);
    const docs = await pullAll<ConversationDoc>(a.client, 'conversations');
    expect(docs.get(id)?.otherUserId).toBeNull();
  });
});

describe('sync: conversations and messages', () => {
  it('pulls only the user’s own conversations and messages: a third user never gets another pair’s', async () => {
    const { a, b, id } = await pair();
    await a.client.post(`${path(id)}/messages`, { content: 'Just us' });
    const third = (await t.signedIn()).client;
    const mine = await pair(['Eve', 'Fay']);
    await mine.a.client.post(`${path(mine.id)}/messages`, { content: 'Other pair' });

    for (const client of [a.client, b.client]) {
      const conversations = await pullAll<ConversationDoc>(client, 'conversations');
      expect([...conversations.keys()]).toEqual([id]);
      const messages = await pullAll<MessageDoc>(client, 'messages');
      expect([...messages.values()].map((m) => m.content)).toEqual(['Just us']);
    }
    expect((await pullAll<ConversationDoc>(third, 'conversations')).size).toBe(0);
    expect((await pullAll<MessageDoc>(third, 'messages')).size).toBe(0);
    const backfill = await third.get('/api/sync/messages/pull?backfill=1');
    expect((backfill.body as unknown as PullResponse<MessageDoc>).documents).toEqual([]);
  });

  it('sends each participant the conversation from their side', async () => {
    const { a, b, id } = await pair();
    await a.client.post(`${path(id)}/messages`, { content: 'Hi' });
    await b.client.patch(`${path(id)}/read`);
    const fromA = (await pullAll<ConversationDoc>(a.client, 'conversations')).get(id)!;
    const fromB = (await pullAll<ConversationDoc>(b.client, 'conversations')).get(id)!;
    expect(fromA).toMatchObject({ otherUserId: b.user.id, readUpTo: 0, _deleted: false });
    expect(fromB).toMatchObject({ otherUserId: a.user.id, otherReadUpTo: 0, _deleted: false });
    expect(fromB.readUpTo).toBe(fromA.lastMessageAt);
    expect(fromA.otherReadUpTo).toBe(fromA.lastMessageAt);
  });

  it('takes messages written offline, even before their conversation reaches the server, in order and once', async () => {
    const a = await t.signedIn({ firstName: 'Off' });
    const b = await t.signedIn({ firstName: 'On' });
    const id = conversationIdOf(a.user.id, b.user.id);
    const docs = ['first', 'second', 'third'].map((content) => newMessageDoc(id, content));
    const rows = docs.map((doc) => ({ newDocumentState: doc, assumedMasterState: null }));
    expect(await push(a.client, 'messages', rows)).toEqual([]);
    // Pushed again (a lost answer): each comes back as its master, nothing is stored twice.
    const again = await push<MessageDoc>(a.client, 'messages', rows);
    expect(again.map((m) => m.id)).toEqual(docs.map((d) => d.id));
    const list = await messagesOf(b.client, id);
    expect(list.map((m) => [m.content, m.senderId])).toEqual([
      ['first', a.user.id],
      ['second', a.user.id],
      ['third', a.user.id],
    ]);
    // The conversation document pushed afterwards finds the conversation already there.
    const conversation: ConversationDoc = {
      id,
      kind: 'direct',
      name: null,
      house: null,
      memberIds: [a.user.id, b.user.id].sort(),
      createdBy: null,
      otherUserId: b.user.id,
      readUpTo: 0,
      otherReadUpTo: 0,
      readMarks: {},
      muted: false,
      lastMessageAt: null,
      createdAt: 0,
      updatedAt: 0,
      _deleted: false,
    };
    expect(
      await push(a.client, 'conversations', [{ newDocumentState: conversation, assumedMasterState: null }]),
    ).toEqual([]);
  });

  it('refuses a message pushed into someone else’s conversation, answering a tombstone and never the master', async () => {
    const { a, id } = await pair();
    const sent = (await a.client.post(`${path(id)}/messages`, { content: 'Secret' })).body as unknown as MessageView;
    const intruder = (await t.signedIn()).client;
    const into = newMessageDoc(id, 'Let me in');
    const copy = { ...newMessageDoc(id, 'Overwrite'), id: sent.id };
    const conflicts = await push<MessageDoc>(intruder, 'messages', [
      { newDocumentState: into, assumedMasterState: null },
      { newDocumentState: copy, assumedMasterState: null },
      { newDocumentState: { ...copy, _deleted: true }, assumedMasterState: copy },
    ]);
    // A refused message comes back without its words (decision 150).
    expect(conflicts).toEqual([
      { ...into, content: '', mentions: [], images: [], attachments: [], _deleted: true },
      { ...copy, content: '', mentions: [], images: [], attachments: [], _deleted: true },
      { ...copy, content: '', mentions: [], images: [], attachments: [], _deleted: true },
    ]);
    expect(JSON.stringify(conflicts)).not.toMatch(/Secret|Let me in|Overwrite/);
    expect((await messagesOf(a.client, id)).map((m) => m.content)).toEqual(['Secret']);
  });

  it('never changes or deletes a message through sync', async () => {
    const { a, id } = await pair();
    await a.client.post(`${path(id)}/messages`, { content: 'Fixed' });
    const [master] = [...(await pullAll<MessageDoc>(a.client, 'messages')).values()];
    for (const change of [{ content: 'Edited' }, { _deleted: true }]) {
      const conflicts = await push<MessageDoc>(a.client, 'messages', [
        { newDocumentState: { ...master, ...change }, assumedMasterState: master },
      ]);
      expect(conflicts).toEqual([master]);
    }
  });

  it('opens a conversation by its pair id and marks it read through sync; a wrong id or an older mark is refused', async () => {
    const a = await t.signedIn();
    const b = await t.signedIn();
    const id = conversationIdOf(a.user.id, b.user.id);
    const doc: ConversationDoc = {
      id,
      kind: 'direct',
      name: null,
      house: null,
      memberIds: [a.user.id, b.user.id].sort(),
      createdBy: null,
      otherUserId: b.user.id,
      readUpTo: 0,
      otherReadUpTo: 0,
      readMarks: {},
      muted: false,
      lastMessageAt: null,
      createdAt: 0,
      updatedAt: 0,
      _deleted: false,
    };
    const wrong = { ...doc, id: randomUUID() };
    expect(await push(a.client, 'conversations', [{ newDocumentState: wrong, assumedMasterState: null }])).toEqual([
      { ...wrong, _deleted: true },
    ]);
    expect(await push(a.client, 'conversations', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([]);
    await b.client.post(`${path(id)}/messages`, { content: 'one' });
    await b.client.post(`${path(id)}/messages`, { content: 'two' });
    const [one] = await messagesOf(a.client, id);
    const master = (await pullAll<ConversationDoc>(a.client, 'conversations')).get(id)!;
    const readOne = { ...master, readUpTo: Date.parse(one.createdAt) };
    expect(await push(a.client, 'conversations', [{ newDocumentState: readOne, assumedMasterState: master }])).toEqual(
      [],
    );
    expect((await messagesOf(b.client, id)).map((m) => m.isRead)).toEqual([true, false]);
    expect((await a.client.get('/api/messages/unread-count')).body).toEqual({ count: 1 });
    const older = await push<ConversationDoc>(a.client, 'conversations', [
      { newDocumentState: { ...master, readUpTo: 1 }, assumedMasterState: master },
    ]);
    expect(older).toEqual([expect.objectContaining({ id, readUpTo: readOne.readUpTo })]);
    const stranger = (await t.signedIn()).client;
    expect(
      await push(stranger, 'conversations', [
        { newDocumentState: { ...readOne, readUpTo: Date.now() }, assumedMasterState: null },
      ]),
    ).toEqual([expect.objectContaining({ id, _deleted: true })]);
  });
});

describe('the live stream', () => {
  it('tells only the two participants about their chat; a third user’s stream hears nothing of it', async () => {
    const { a, b, id } = await pair();
    const third = (await t.signedIn()).client;
    const streams = await Promise.all([a.client.openStream(), b.client.openStream(), third.openStream()]);
    try {
      await Promise.all(streams.map((s) => s.next('RESYNC')));
      const seen = streams.map((s) => s.events.length);
      await a.client.post(`${path(id)}/messages`, { content: 'Live' });
      for (const [i, stream] of streams.slice(0, 2).entries()) {
        const collections = new Set<string>();
        while (collections.size < 2) {
          const event = await stream.next('change', seen[i]);
          collections.add((JSON.parse(event.data) as { collection: string }).collection);
          seen[i] = stream.events.indexOf(event) + 1;
        }
        expect(collections).toEqual(new Set(['messages', 'conversations']));
      }
      await b.client.patch(`${path(id)}/read`);
      await streams[0].next('change', seen[0]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(streams[2].events.slice(1)).toEqual([]);
    } finally {
      streams.forEach((s) => s.close());
    }
  });
});

describe('the time a message was written', () => {
  const HOUR = 3_600_000;
  const ms = (iso: string) => new Date(iso).getTime();

  it('is bounded by the sender account and the arrival at service level; the order stays the arrival', async () => {
    const a = await t.signedIn({ createdAt: Date.now() - HOUR });
    const b = await t.signedIn();
    const id = conversationIdOf(a.user.id, b.user.id);
    const at = Date.now();
    const deps = { ...t.server.deps, now: () => at };
    const send = (writtenAt: unknown) =>
      sendMessage(deps, actorOf(a.user), id, parseInput(SendMessageBodySchema, { content: 'On my way', writtenAt }));
    const offline = await send(at - 10 * 60_000);
    expect(ms(offline.writtenAt)).toBe(at - 10 * 60_000);
    expect(ms(offline.createdAt)).toBe(at);
    const ahead = await send(at + HOUR);
    // Arrival times stay strictly increasing within the conversation; the written time never passes its own.
    expect(ms(ahead.createdAt)).toBe(at + 1);
    expect(ms(ahead.writtenAt)).toBe(at + 1);
    expect(ms((await send(0)).writtenAt)).toBe(a.user.createdAt);
    // One after the other: each send's arrival time follows the one before it.
    for (const unreadable of ['later', undefined]) {
      const sent = await send(unreadable);
      expect(sent.writtenAt).toBe(sent.createdAt);
    }
  });

  it('is taken from POST /api/conversations/{id}/messages and from a sync push, and pulled back', async () => {
    const a = await t.signedIn({ createdAt: Date.now() - HOUR });
    const b = await t.signedIn();
    const id = conversationIdOf(a.user.id, b.user.id);
    const written = Date.now() - 60_000;
    const rest = await a.client.post(`${path(id)}/messages`, { content: 'REST', writtenAt: written });
    expect(rest.status).toBe(201);
    expect(ms(rest.body.writtenAt as string)).toBe(written);
    const early = await a.client.post(`${path(id)}/messages`, { content: 'Early', writtenAt: 1 });
    expect(ms(early.body.writtenAt as string)).toBe(a.user.createdAt);
    const doc = { ...newMessageDoc(id, 'Synced'), writtenAt: Date.now() + HOUR };
    expect(await push(a.client, 'messages', [{ newDocumentState: doc, assumedMasterState: null }])).toEqual([]);
    const pulled = (await pullAll<MessageDoc>(b.client, 'messages')).get(doc.id)!;
    expect(pulled.writtenAt).toBe(pulled.createdAt);
    const shown = (await messagesOf(b.client, id)).find((m) => m.id === doc.id)!;
    expect(shown.writtenAt).toBe(shown.createdAt);
  });
});
