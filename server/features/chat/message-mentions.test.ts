import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { houseChatIdOf, type MessageView } from '../../../schema/chat';
import { MENTION_MESSAGES, MENTIONS_MAX } from '../../../schema/mentions';
import type { AcknowledgementDoc, MessageDoc, PullResponse, PushResponse } from '../../../schema/sync';
import { MIGRATIONS_DIR } from '../../lib/paths';
import { startPushReceiver, type PushReceiver } from '../../test/push-receiver';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';

let t: TestServer;
let receiver: PushReceiver;
let sysadmin: TestClient;

beforeAll(async () => {
  receiver = await startPushReceiver();
  t = await startTestServer({ PUSH_ALLOW_HOSTS: receiver.origin });
  sysadmin = (await t.signedIn({ role: 'system_admin', firstName: 'Sys' })).client;
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const path = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;

/** A signed-in colleague whose browser subscribed to push. */
async function subscribed(firstName: string) {
  const signed = await t.signedIn({ firstName });
  const device = `message-mentions-${randomUUID()}`;
  expect((await signed.client.post('/api/push/subscribe', receiver.subscription(device))).status).toBe(201);
  return { ...signed, device };
}

async function send(client: TestClient, id: string, body: Record<string, unknown>) {
  const res = await client.post(`${path(id)}/messages`, body);
  expect(res.status).toBe(201);
  return res.body as unknown as MessageView;
}

/** The user's mention entries as their device pulls them (the `acknowledgements` collection). */
async function mentionEntries(client: TestClient): Promise<AcknowledgementDoc[]> {
  const res = await client.get('/api/sync/acknowledgements/pull?limit=1000');
  expect(res.status).toBe(200);
  return (res.body as unknown as PullResponse<AcknowledgementDoc>).documents.filter((doc) => doc.mention);
}

const pushesOf = (device: string, type: string) =>
  receiver.of(device).filter((push) => push.payload.data.type === type);

async function pullMessages(client: TestClient): Promise<MessageDoc[]> {
  const res = await client.get('/api/sync/messages/pull?limit=1000');
  expect(res.status).toBe(200);
  return (res.body as unknown as PullResponse<MessageDoc>).documents;
}

describe('mentions in chat messages', () => {
  it('keep members only, are returned and pulled, and tell each member named with a bell entry and a push of no words', async () => {
    const [sender, named, other, outsider] = await Promise.all(
      ['Sam', 'Nia', 'Oli', 'Out'].map((name) => subscribed(name)),
    );
    const made = await sender.client.post('/api/conversations', {
      memberIds: [named.user.id, other.user.id],
      name: 'Night team',
    });
    const id = String(made.body.id);
    const mentions = [named.user.id, outsider.user.id, sender.user.id, 'house:Tudor Way', randomUUID()];
    const message = await send(sender.client, id, { content: 'Keys for @Nia are in the tin', mentions });
    // A non-member, a house outside a house chat and an unknown id are dropped; the sender's own id is kept but tells nobody.
    expect(message.mentions).toEqual([named.user.id, sender.user.id]);
    const listed = (await named.client.get(`${path(id)}/messages`)).body as unknown as MessageView[];
    expect(listed.find((m) => m.id === message.id)?.mentions).toEqual([named.user.id, sender.user.id]);
    expect((await pullMessages(named.client)).find((m) => m.id === message.id)?.mentions).toEqual([
      named.user.id,
      sender.user.id,
    ]);

    const [entry] = await mentionEntries(named.client);
    expect(entry).toMatchObject({
      id: `mention:${message.id}:${named.user.id}`,
      postId: '',
      conversationId: id,
      mentionedBy: sender.user.id,
      viewedAt: null,
      _deleted: false,
    });
    expect(await mentionEntries(other.client)).toEqual([]);
    expect(await mentionEntries(outsider.client)).toEqual([]);
    expect(await mentionEntries(sender.client)).toEqual([]);

    await receiver.waitFor(named.device);
    await receiver.waitFor(other.device);
    await t.settlePushes();
    // The one named gets the mention push in place of the message's; the others the message's as before.
    expect(pushesOf(named.device, 'chat')).toEqual([]);
    expect(pushesOf(named.device, 'mention').map((push) => push.payload)).toEqual([
      {
        title: 'You were mentioned',
        body: 'Sam mentioned you in a message. Open Staff Portal to read it.',
        tag: `mention-chat-${id}`,
        data: { type: 'mention', conversationId: id },
      },
    ]);
    expect(JSON.stringify(receiver.of(named.device))).not.toContain('tin');
    expect(pushesOf(other.device, 'chat')).toHaveLength(1);
    expect(receiver.of(outsider.device)).toEqual([]);
  });

  it('in a house chat, house:<its house> tells every member but the sender; a muted member named is pushed, one told through the house is not', async () => {
    const house = 'Giles House';
    const id = houseChatIdOf(house);
    const people = await Promise.all(['Hal', 'Ida', 'Joe', 'Kim'].map((name) => subscribed(name)));
    for (const person of people) {
      expect((await sysadmin.put(`/api/admin/users/${person.user.id}/houses`, { houses: [house] })).status).toBe(200);
    }
    const [sender, mutedNamed, mutedHouse, plain] = people;
    for (const muter of [mutedNamed, mutedHouse]) {
      expect((await muter.client.patch(path(id), { muted: true })).status).toBe(200);
    }
    const message = await send(sender.client, id, {
      content: 'Handover at 7, @everyone',
      mentions: ['house:Giles House', 'house:Tudor Way', mutedNamed.user.id],
    });
    expect(message.mentions).toEqual(['house:Giles House', mutedNamed.user.id]);

    for (const person of [mutedNamed, mutedHouse, plain]) {
      expect((await mentionEntries(person.client)).map((e) => e.conversationId)).toEqual([id]);
    }
    expect(await mentionEntries(sender.client)).toEqual([]);
    await receiver.waitFor(mutedNamed.device);
    await receiver.waitFor(plain.device);
    await t.settlePushes();
    expect(pushesOf(mutedNamed.device, 'mention')).toHaveLength(1);
    expect(pushesOf(plain.device, 'mention')).toHaveLength(1);
    expect(pushesOf(plain.device, 'chat')).toEqual([]);
    expect(receiver.of(mutedHouse.device)).toEqual([]);
    expect(receiver.of(sender.device)).toEqual([]);

    // house:<another house> in this house's chat tells nobody of that house.
    const elsewhere = await subscribed('Lea');
    expect((await sysadmin.put(`/api/admin/users/${elsewhere.user.id}/houses`, { houses: ['Tudor Way'] })).status).toBe(
      200,
    );
    await send(sender.client, id, { content: 'Not you', mentions: ['house:Tudor Way', elsewhere.user.id] });
    expect(await mentionEntries(elsewhere.client)).toEqual([]);
  });

  it('pushed through sync are kept, and a message sent twice tells once', async () => {
    const [sender, named] = await Promise.all(['Max', 'Ned'].map((name) => subscribed(name)));
    const third = await t.signedIn({ firstName: 'Pat' });
    const id = String(
      (
        await sender.client.post('/api/conversations', {
          memberIds: [named.user.id, third.user.id],
          name: 'Sync team',
        })
      ).body.id,
    );
    const doc: MessageDoc = {
      id: randomUUID(),
      conversationId: id,
      senderId: sender.user.id,
      content: 'Ask @Ned',
      createdAt: Date.now(),
      writtenAt: Date.now(),
      mentions: [named.user.id, 'house:Giles House'],
      _deleted: false,
    };
    for (let i = 0; i < 2; i += 1) {
      const res = await sender.client.post('/api/sync/messages/push', [
        { newDocumentState: doc, assumedMasterState: null },
      ]);
      expect(res.status).toBe(200);
      expect((res.body as unknown as PushResponse<MessageDoc>).conflicts.length).toBe(i);
    }
    expect((await pullMessages(named.client)).find((m) => m.id === doc.id)?.mentions).toEqual([named.user.id]);
    expect(await mentionEntries(named.client)).toHaveLength(1);
    await receiver.waitFor(named.device);
    await t.settlePushes();
    expect(pushesOf(named.device, 'mention')).toHaveLength(1);
  });

  it('refuses a list of mentions that is too long or not a list, with a clear message', async () => {
    const sender = await t.signedIn();
    const other = await t.signedIn();
    const id = String((await sender.client.post('/api/conversations', { memberIds: [other.user.id] })).body.id);
    const tooMany = Array.from({ length: MENTIONS_MAX + 1 }, (_, i) => `user-${i}`);
    const res = await sender.client.post(`${path(id)}/messages`, { content: 'Hi', mentions: tooMany });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', details: [{ message: MENTION_MESSAGES.tooMany }] });
    const notList = await sender.client.post(`${path(id)}/messages`, { content: 'Hi', mentions: 'everyone' });
    expect(notList.status).toBe(400);
    expect(notList.body.details).toEqual([expect.objectContaining({ message: MENTION_MESSAGES.list })]);
  });
});

describe('migration 0021', () => {
  it('keeps every mention entry of posts and comments as it was, and older messages mention nobody', () => {
    // The migrations before 0021 in a folder of their own: the database as it was before mentions in messages.
    const before = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'message-mentions-migration-'));
    try {
      fs.cpSync(MIGRATIONS_DIR, before, { recursive: true });
      const journalPath = nodePath.join(before, 'meta', '_journal.json');
      const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: { idx: number }[] };
      journal.entries = journal.entries.filter((entry) => entry.idx < 21);
      fs.writeFileSync(journalPath, JSON.stringify(journal));
      const sqlite = new Database(':memory:');
      sqlite.pragma('foreign_keys = ON');
      const db = drizzle(sqlite);
      migrate(db, { migrationsFolder: before });
      sqlite
        .prepare(
          `INSERT INTO users (id, email, first_name, last_name, role, is_active, created_at, updated_at)
           VALUES (?, ?, 'A', 'B', 'staff', 1, 1, 1)`,
        )
        .run('u1', 'u1@test.example');
      sqlite
        .prepare(
          `INSERT INTO posts (id, author_id, content, category, is_urgent, created_at, updated_at, server_seq)
           VALUES ('p1', 'u1', 'Hi', 'shifts_lifts', 0, 1, 1, 1)`,
        )
        .run();
      sqlite
        .prepare(
          `INSERT INTO conversations (id, user_a_id, user_b_id, created_at, updated_at, server_seq)
           VALUES ('g1', NULL, NULL, 1, 1, 2)`,
        )
        .run();
      sqlite
        .prepare(
          `INSERT INTO messages (id, conversation_id, sender_id, content, created_at, server_seq)
           VALUES ('m1', 'g1', 'u1', 'Old', 3, 3)`,
        )
        .run();
      sqlite
        .prepare(
          `INSERT INTO mention_entries (id, user_id, post_id, comment_id, mentioned_by, created_at, viewed_at, server_seq)
           VALUES ('mention:p1:u1', 'u1', 'p1', NULL, 'u1', 4, 5, 4)`,
        )
        .run();

      migrate(db, { migrationsFolder: MIGRATIONS_DIR });
      expect(sqlite.prepare('SELECT * FROM mention_entries').all()).toEqual([
        {
          id: 'mention:p1:u1',
          user_id: 'u1',
          post_id: 'p1',
          comment_id: null,
          conversation_id: null,
          message_id: null,
          mentioned_by: 'u1',
          created_at: 4,
          viewed_at: 5,
          deleted: 0,
          server_seq: 4,
        },
      ]);
      expect(sqlite.prepare('SELECT mentions FROM messages').all()).toEqual([{ mentions: '[]' }]);
      expect(sqlite.pragma('foreign_key_check')).toEqual([]);
      sqlite.close();
    } finally {
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
});
