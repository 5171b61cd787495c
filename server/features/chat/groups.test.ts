import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import nodePath from 'node:path';
import Database from 'better-sqlite3';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CHAT_MESSAGES,
  conversationIdOf,
  houseChatIdOf,
  type ConversationView,
  type MessageView,
} from '../../../schema/chat';
import type { ConversationDoc, MessageDoc, PullResponse, PushResponse, SyncCheckpoint } from '../../../schema/sync';
import { MIGRATIONS_DIR } from '../../lib/paths';
import { startPushReceiver, type PushReceiver } from '../../test/push-receiver';
import { CHECKPOINT_ID_END } from '../../../schema/sync-protocol';
import { currentSeq } from '../../lib/seq.queries';
import { actorOf, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { conversationsSync, messagesSync } from './chat.sync';
import { statement } from '../../db/client';

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
const conversationsOf = async (client: TestClient) =>
  (await client.get('/api/conversations')).body as unknown as ConversationView[];
const viewOf = async (client: TestClient, id: string) => (await conversationsOf(client)).find((c) => c.id === id);
const messagesOf = async (client: TestClient, id: string) =>
  (await client.get(`${path(id)}/messages`)).body as unknown as MessageView[];
const send = async (client: TestClient, id: string, content: string) => {
  const res = await client.post(`${path(id)}/messages`, { content });
  expect(res.status).toBe(201);
  return res.body as unknown as MessageView;
};
const setHouses = async (userId: string, houses: string[]) =>
  expect((await sysadmin.put(`/api/admin/users/${userId}/houses`, { houses })).status).toBe(200);

/** Pulls a collection from a checkpoint to its end; answers the documents by id and the last checkpoint. */
async function pullFrom<T extends { id: string }>(client: TestClient, collection: string, from?: SyncCheckpoint) {
  const docs = new Map<string, T>();
  let checkpoint = from;
  for (;;) {
    const query = checkpoint ? `?seq=${checkpoint.seq}&id=${encodeURIComponent(checkpoint.id)}&limit=3` : '?limit=3';
    const res = await client.get(`/api/sync/${collection}/pull${query}`);
    expect(res.status).toBe(200);
    const page = res.body as unknown as PullResponse<T>;
    for (const doc of page.documents) docs.set(doc.id, doc);
    if (page.documents.length === 0) return { docs, checkpoint };
    checkpoint = page.checkpoint;
  }
}

async function push<T>(client: TestClient, collection: string, rows: unknown[]) {
  const res = await client.post(`/api/sync/${collection}/push`, rows);
  expect(res.status).toBe(200);
  return (res.body as unknown as PushResponse<T>).conflicts;
}

/** A group started by the first of three (or more) colleagues. */
async function group(name = 'Night team', count = 3, creatorRole: 'staff' | 'admin' = 'staff') {
  const people = [];
  for (let i = 0; i < count; i += 1) {
    people.push(await t.signedIn({ firstName: `P${i}`, role: i === 0 ? creatorRole : 'staff' }));
  }
  const res = await people[0].client.post('/api/conversations', {
    memberIds: people.slice(1).map((p) => p.user.id),
    name,
  });
  expect(res.status).toBe(201);
  return { people, id: res.body.id as string };
}

const sorted = (ids: string[]) => [...ids].sort();

describe('house chats', () => {
  it('exist for the ten houses from the start, named by the house, empty until the admin page puts someone in', async () => {
    const ids = (await statement(
      t.db,
      "SELECT id, name, house FROM conversations WHERE kind = 'house' ORDER BY id",
    ).all()) as { id: string; name: string; house: string }[];
    expect(ids).toHaveLength(10);
    for (const row of ids) expect(row).toEqual({ id: houseChatIdOf(row.house), name: row.house, house: row.house });
    const newcomer = await t.signedIn();
    expect(await conversationsOf(newcomer.client)).toEqual([]);
  });

  it('follow the admin page: added is in at once, removed, deactivated or deleted is out at once', async () => {
    const id = houseChatIdOf('Tudor Way');
    const ann = await t.signedIn({ firstName: 'Ann' });
    const ben = await t.signedIn({ firstName: 'Ben' });
    await setHouses(ann.user.id, ['Tudor Way']);
    await setHouses(ben.user.id, ['Tudor Way', 'Westminster Croft']);
    const view = await viewOf(ann.client, id);
    expect(view).toMatchObject({
      kind: 'house',
      name: 'Tudor Way',
      house: 'Tudor Way',
      createdBy: null,
      muted: false,
      unreadCount: 0,
      memberIds: sorted([ann.user.id, ben.user.id]),
    });
    expect(view).not.toHaveProperty('otherUser');
    await send(ben.client, id, 'Handover at 7');
    expect((await messagesOf(ann.client, id)).map((m) => m.content)).toEqual(['Handover at 7']);

    // Removed from the house: out of its chat at once, 404 on every call; the others see the new member list.
    await setHouses(ann.user.id, []);
    expect(await viewOf(ann.client, id)).toBeUndefined();
    for (const res of [
      await ann.client.get(`${path(id)}/messages`),
      await ann.client.post(`${path(id)}/messages`, { content: 'Still here?' }),
    ]) {
      expect(res.status).toBe(404);
    }
    expect((await viewOf(ben.client, id))?.memberIds).toEqual([ben.user.id]);

    // Added back: in again, with the conversation's history.
    await setHouses(ann.user.id, ['Tudor Way']);
    expect((await messagesOf(ann.client, id)).map((m) => m.content)).toEqual(['Handover at 7']);

    // Deactivated: out at once for the others; back when activated again.
    expect((await sysadmin.patch(`/api/admin/users/${ann.user.id}/status`, { isActive: false })).status).toBe(200);
    expect((await viewOf(ben.client, id))?.memberIds).toEqual([ben.user.id]);
    expect((await sysadmin.patch(`/api/admin/users/${ann.user.id}/status`, { isActive: true })).status).toBe(200);
    expect((await viewOf(ben.client, id))?.memberIds).toEqual(sorted([ann.user.id, ben.user.id]));

    // Deleted: gone from the members; what they wrote stays as "Deleted user" (deactivation ended their session).
    await t.buildMessage(id, ann.user.id, { content: 'Bye' });
    expect((await sysadmin.delete(`/api/admin/users/${ann.user.id}`)).status).toBe(204);
    expect((await viewOf(ben.client, id))?.memberIds).toEqual([ben.user.id]);
    expect((await messagesOf(ben.client, id)).map((m) => [m.content, m.senderId])).toEqual([
      ['Handover at 7', ben.user.id],
      ['Bye', null],
    ]);
  });

  it('cannot be left by its house’s staff nor edited by hand (409); an admin joins and leaves; others get 404', async () => {
    const id = houseChatIdOf('Main Road');
    const staff = await t.signedIn();
    await setHouses(staff.user.id, ['Main Road']);
    const admin = await t.signedIn({ role: 'admin' });
    const outsider = await t.signedIn();
    const leave = await staff.client.post(`${path(id)}/leave`);
    expect(leave.status).toBe(409);
    expect(leave.body.message).toBe(CHAT_MESSAGES.houseMembersFixed);
    for (const res of [
      await staff.client.post(`${path(id)}/members`, { userIds: [outsider.user.id] }),
      await staff.client.delete(`${path(id)}/members/${admin.user.id}`),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(CHAT_MESSAGES.houseMembersFixed);
    }
    const rename = await staff.client.patch(path(id), { name: 'Road' });
    expect(rename.status).toBe(409);
    expect(rename.body.message).toBe(CHAT_MESSAGES.onlyGroupRenamed);
    expect((await outsider.client.post(`${path(id)}/join`)).status).toBe(404);
    expect((await outsider.client.get(`${path(id)}/messages`)).status).toBe(404);

    expect(await viewOf(admin.client, id)).toBeUndefined();
    const joined = await admin.client.post(`${path(id)}/join`);
    expect(joined.status).toBe(200);
    expect(joined.body.memberIds).toEqual(sorted([staff.user.id, admin.user.id]));
    await send(admin.client, id, 'Checking in');
    expect((await admin.client.post(`${path(id)}/leave`)).status).toBe(204);
    expect(await viewOf(admin.client, id)).toBeUndefined();
    expect((await messagesOf(staff.client, id)).map((m) => m.content)).toEqual(['Checking in']);
    // An admin who joined and is made staff is out of a house they do not work in.
    await admin.client.post(`${path(id)}/join`);
    expect((await sysadmin.put(`/api/admin/users/${admin.user.id}/role`, { role: 'staff' })).status).toBe(200);
    expect((await viewOf(staff.client, id))?.memberIds).toEqual([staff.user.id]);
  });
});

describe('groups', () => {
  it('starts with chosen colleagues and a name; one colleague is the one-to-one chat; no name is 400', async () => {
    const { people, id } = await group('Night team');
    const [a, b, c] = people;
    for (const person of people) {
      expect(await viewOf(person.client, id)).toEqual({
        id,
        kind: 'group',
        name: 'Night team',
        memberIds: sorted(people.map((p) => p.user.id)),
        createdBy: a.user.id,
        muted: false,
        unreadCount: 0,
        lastMessage: null,
        lastMessageAt: null,
      });
    }
    const noName = await a.client.post('/api/conversations', { memberIds: [b.user.id, c.user.id] });
    expect(noName.status).toBe(400);
    expect(noName.body.message).toBe(CHAT_MESSAGES.groupNameRequired);
    const blank = await a.client.post('/api/conversations', { memberIds: [b.user.id, c.user.id], name: '  ' });
    expect(blank.body.message).toBe(CHAT_MESSAGES.groupNameRequired);
    const direct = await a.client.post('/api/conversations', { memberIds: [b.user.id] });
    expect(direct.status).toBe(201);
    expect(direct.body).toMatchObject({ id: conversationIdOf(a.user.id, b.user.id), kind: 'direct' });
    const unknown = await a.client.post('/api/conversations', { memberIds: [b.user.id, randomUUID()], name: 'X' });
    expect(unknown.status).toBe(404);
    expect((await a.client.post('/api/conversations', { memberIds: [] })).status).toBe(400);
  });

  it('lets its creator and admins add, remove and rename; others get 403; anyone may leave', async () => {
    const { people, id } = await group('Day team', 3);
    const [creator, member, other] = people;
    const newcomer = await t.signedIn({ firstName: 'New' });
    const admin = await t.signedIn({ role: 'admin' });
    const refused = await member.client.post(`${path(id)}/members`, { userIds: [newcomer.user.id] });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(CHAT_MESSAGES.notMembersManager);
    const removeRefused = await member.client.delete(`${path(id)}/members/${other.user.id}`);
    expect(removeRefused.status).toBe(403);
    const renameRefused = await member.client.patch(path(id), { name: 'Mine now' });
    expect(renameRefused.status).toBe(403);
    expect(renameRefused.body.message).toBe(CHAT_MESSAGES.notRenamer);

    const added = await creator.client.post(`${path(id)}/members`, { userIds: [newcomer.user.id, admin.user.id] });
    expect(added.status).toBe(200);
    expect(added.body.memberIds).toHaveLength(5);
    // An admin in the group manages it too.
    expect((await admin.client.delete(`${path(id)}/members/${newcomer.user.id}`)).status).toBe(204);
    const renamed = await admin.client.patch(path(id), { name: 'Day shift' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe('Day shift');
    expect((await member.client.delete(`${path(id)}/members/${member.user.id}`)).status).toBe(204);
    expect((await other.client.post(`${path(id)}/leave`)).status).toBe(204);
    expect((await viewOf(creator.client, id))?.memberIds).toEqual(sorted([creator.user.id, admin.user.id]));
    // Removing someone who is not in it, or adding someone unknown.
    expect((await creator.client.delete(`${path(id)}/members/${member.user.id}`)).status).toBe(404);
    expect((await creator.client.post(`${path(id)}/members`, { userIds: [randomUUID()] })).status).toBe(404);
    expect((await creator.client.post(`${path(id)}/members`, { userIds: [] })).status).toBe(400);
  });

  it('keeps one-to-one chats as they are: their members cannot change (409)', async () => {
    const a = await t.signedIn();
    const b = await t.signedIn();
    const c = await t.signedIn();
    const id = (await a.client.post('/api/conversations', { participantId: b.user.id })).body.id as string;
    for (const res of [
      await a.client.post(`${path(id)}/members`, { userIds: [c.user.id] }),
      await a.client.delete(`${path(id)}/members/${b.user.id}`),
      await a.client.post(`${path(id)}/leave`),
    ]) {
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(CHAT_MESSAGES.directMembersFixed);
    }
    expect((await a.client.patch(path(id), { name: 'Us' })).status).toBe(409);
    expect((await a.client.patch(path(id), {})).status).toBe(400);
  });

  it('answers 404 to everyone outside it on every call, an administrator included', async () => {
    const { id } = await group();
    const outsiders = [(await t.signedIn()).client, (await t.signedIn({ role: 'system_admin' })).client];
    for (const client of outsiders) {
      for (const res of [
        await client.get(`${path(id)}/messages`),
        await client.post(`${path(id)}/messages`, { content: 'Hi' }),
        await client.patch(path(id), { muted: true }),
        await client.patch(path(id), { name: 'Taken' }),
        await client.post(`${path(id)}/members`, { userIds: [randomUUID()] }),
        await client.delete(`${path(id)}/members/${randomUUID()}`),
        await client.post(`${path(id)}/join`),
        await client.post(`${path(id)}/leave`),
        await client.post(`${path(id)}/read`, { upTo: randomUUID() }),
        await client.patch(`${path(id)}/read`),
      ]) {
        expect(res.status).toBe(404);
        expect(res.body.message).toBe(CHAT_MESSAGES.conversationNotFound);
      }
      expect((await pullFrom<ConversationDoc>(client, 'conversations')).docs.has(id)).toBe(false);
    }
  });
});

describe('leaving means leaving', () => {
  it('a removed member reads nothing more: 404 over REST, tombstones in the next pull, silence on the stream', async () => {
    const { people, id } = await group('Kitchen', 3);
    const [creator, removed, stays] = people;
    const mine = await send(removed.client, id, 'I wrote this');
    await send(creator.client, id, 'Before');
    const conversations = await pullFrom<ConversationDoc>(removed.client, 'conversations');
    const messages = await pullFrom<MessageDoc>(removed.client, 'messages');
    expect(conversations.docs.get(id)).toMatchObject({ kind: 'group', name: 'Kitchen', _deleted: false });
    expect([...messages.docs.values()].map((m) => m.content)).toEqual(['I wrote this', 'Before']);

    const stream = await removed.client.openStream();
    try {
      await stream.next('RESYNC');
      expect((await creator.client.delete(`${path(id)}/members/${removed.user.id}`)).status).toBe(204);
      // The removal itself reaches the removed member's stream (their tombstones), then nothing more.
      await stream.next('change');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const heard = stream.events.length;
      await send(creator.client, id, 'After');
      await creator.client.patch(path(id), { name: 'Kitchen crew' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stream.events.slice(heard)).toEqual([]);
    } finally {
      stream.close();
    }

    for (const res of [
      await removed.client.get(`${path(id)}/messages`),
      await removed.client.post(`${path(id)}/messages`, { content: 'Let me back' }),
      await removed.client.patch(`${path(id)}/read`),
    ]) {
      expect(res.status).toBe(404);
    }
    expect(await viewOf(removed.client, id)).toBeUndefined();

    // From the checkpoints they held, the next pull brings tombstones of the conversation and every message.
    const gone = await pullFrom<ConversationDoc>(removed.client, 'conversations', conversations.checkpoint);
    expect(gone.docs.get(id)).toMatchObject({ id, _deleted: true, memberIds: [], name: null });
    const goneMessages = await pullFrom<MessageDoc>(removed.client, 'messages', messages.checkpoint);
    expect([...goneMessages.docs.values()].map((m) => [m.id, m._deleted, m.content])).toEqual(
      expect.arrayContaining([[mine.id, true, '']]),
    );
    expect([...goneMessages.docs.values()].every((m) => m._deleted)).toBe(true);
    expect(goneMessages.docs.size).toBe(2);
    expect(JSON.stringify([...goneMessages.docs.values()])).not.toContain('After');
    // A first pull shows nothing of it but tombstones.
    const fresh = await pullFrom<MessageDoc>(removed.client, 'messages');
    expect([...fresh.docs.values()].filter((m) => m.conversationId === id).every((m) => m._deleted)).toBe(true);

    // What they wrote stays for the others.
    expect((await messagesOf(stays.client, id)).map((m) => m.content)).toEqual(['I wrote this', 'Before', 'After']);

    // A message or a read mark pushed by them is refused with a tombstone, never the master.
    const doc: MessageDoc = {
      id: randomUUID(),
      conversationId: id,
      senderId: null,
      content: 'Pushed late',
      createdAt: 0,
      writtenAt: Date.now(),
      _deleted: false,
    };
    // Its tombstone holds no words: the device keeps it, and tells the sender the words itself (decision 150).
    const refusedMessage = await push(removed.client, 'messages', [
      { newDocumentState: doc, assumedMasterState: null },
    ]);
    expect(refusedMessage).toEqual([
      { ...doc, content: '', mentions: [], images: [], attachments: [], _deleted: true },
    ]);
    expect(JSON.stringify(refusedMessage)).not.toContain('Pushed late');
    const stale = { ...conversations.docs.get(id)!, readUpTo: Date.now(), muted: true };
    const refused = await push<ConversationDoc>(removed.client, 'conversations', [
      { newDocumentState: stale, assumedMasterState: conversations.docs.get(id) },
    ]);
    expect(refused).toEqual([expect.objectContaining({ id, _deleted: true })]);
    expect(JSON.stringify(refused)).not.toContain('Kitchen crew');
    expect((await messagesOf(stays.client, id)).map((m) => m.content)).not.toContain('Pushed late');
  });

  it('a member added back pulls the whole conversation again', async () => {
    const { people, id } = await group('Garden', 3);
    const [creator, member] = people;
    await send(creator.client, id, 'One');
    await creator.client.delete(`${path(id)}/members/${member.user.id}`);
    await send(creator.client, id, 'Two');
    const messages = await pullFrom<MessageDoc>(member.client, 'messages');
    expect([...messages.docs.values()].filter((m) => !m._deleted)).toEqual([]);
    await creator.client.post(`${path(id)}/members`, { userIds: [member.user.id] });
    const back = await pullFrom<MessageDoc>(member.client, 'messages', messages.checkpoint);
    // Both at the sequence of the joining, so in id order.
    expect([...back.docs.values()].map((m) => [m.content, m._deleted]).sort()).toEqual([
      ['One', false],
      ['Two', false],
    ]);
  });

  it('a member removed from a house pulls tombstones of its chat and its messages', async () => {
    const id = houseChatIdOf('Hanover Drive');
    const leaver = await t.signedIn();
    const stays = await t.signedIn();
    await setHouses(leaver.user.id, ['Hanover Drive']);
    await setHouses(stays.user.id, ['Hanover Drive']);
    await send(stays.client, id, 'Rota is up');
    const conversations = await pullFrom<ConversationDoc>(leaver.client, 'conversations');
    const messages = await pullFrom<MessageDoc>(leaver.client, 'messages');
    expect(conversations.docs.get(id)).toMatchObject({ kind: 'house', house: 'Hanover Drive', _deleted: false });
    expect([...messages.docs.values()].map((m) => m.content)).toEqual(['Rota is up']);
    await setHouses(leaver.user.id, []);
    const gone = await pullFrom<ConversationDoc>(leaver.client, 'conversations', conversations.checkpoint);
    expect(gone.docs.get(id)?._deleted).toBe(true);
    const goneMessages = await pullFrom<MessageDoc>(leaver.client, 'messages', messages.checkpoint);
    expect([...goneMessages.docs.values()].map((m) => [m.content, m._deleted])).toEqual([['', true]]);
  });
});

describe('one change event to many members', () => {
  it('reads for each member, and for one who left, what their own pull reads', async () => {
    const { people, id } = await group('Laundry', 4);
    const [creator, removed] = people;
    const since = await currentSeq(t.db);
    await send(removed.client, id, 'Mine');
    expect((await creator.client.delete(`${path(id)}/members/${removed.user.id}`)).status).toBe(204);
    await send(creator.client, id, 'After');
    expect((await people[2].client.patch(`${path(id)}/read`)).status).toBeLessThan(300);
    const deps = t.server.deps;
    const userIds = new Set(people.map((p) => p.user.id));
    for (const handler of [conversationsSync, messagesSync]) {
      const together = await handler.pullOfUsers!(deps, userIds, since);
      for (const { user } of people) {
        const own = await handler.pull(deps, actorOf(user), since, CHECKPOINT_ID_END, 101);
        const rows = together.get(user.id)!;
        expect(rows.map(({ seq, doc }) => ({ seq, doc }))).toEqual(own);
        // A conversation a member is in comes as JSON text too, and it reads as the document.
        const encoded = rows.filter((row) => row.json !== undefined);
        expect(encoded.length).toBe(handler === conversationsSync && user.id !== removed.user.id ? 1 : 0);
        for (const { doc, json } of encoded) expect(JSON.parse(json!)).toEqual(doc);
      }
      expect(together.get(removed.user.id)!.every((row) => row.doc._deleted)).toBe(true);
    }
  });
});

describe('read receipts', () => {
  it('says who has seen each message of a group, by read marks set over REST and through sync', async () => {
    const { people, id } = await group('Receipts', 4);
    const [a, b, c, d] = people;
    const first = await send(a.client, id, 'first');
    const second = await send(a.client, id, 'second');
    expect((await b.client.post(`${path(id)}/read`, { upTo: first.id })).status).toBe(200);
    expect((await c.client.post(`${path(id)}/read`, { upTo: second.id })).status).toBe(200);
    const shown = await messagesOf(a.client, id);
    expect(shown.map((m) => [m.content, sorted(m.seenBy ?? []), m.isRead])).toEqual([
      ['first', sorted([b.user.id, c.user.id]), true],
      ['second', [c.user.id], true],
    ]);
    expect((await messagesOf(d.client, id)).map((m) => m.isRead)).toEqual([false, false]);

    // d reads through sync: the others pull d's mark in readMarks, and "Seen by" grows.
    const master = (await pullFrom<ConversationDoc>(d.client, 'conversations')).docs.get(id)!;
    expect(master.readMarks).toEqual({
      [a.user.id]: 0,
      [b.user.id]: Date.parse(first.createdAt),
      [c.user.id]: Date.parse(second.createdAt),
    });
    const readAll = { ...master, readUpTo: Date.parse(second.createdAt) };
    expect(await push(d.client, 'conversations', [{ newDocumentState: readAll, assumedMasterState: master }])).toEqual(
      [],
    );
    const fromA = (await pullFrom<ConversationDoc>(a.client, 'conversations')).docs.get(id)!;
    expect(fromA.readMarks[d.user.id]).toBe(Date.parse(second.createdAt));
    expect(fromA).toMatchObject({ otherUserId: null, otherReadUpTo: 0, readUpTo: 0 });
    expect((await messagesOf(a.client, id))[1].seenBy).toHaveLength(2);

    // upTo must be a message of this conversation.
    for (const upTo of [randomUUID(), '']) {
      const res = await b.client.post(`${path(id)}/read`, { upTo });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(CHAT_MESSAGES.invalidUpTo);
    }
  });

  it('keeps one-to-one messages as they were: isRead, no seenBy', async () => {
    const a = await t.signedIn();
    const b = await t.signedIn();
    const id = (await a.client.post('/api/conversations', { memberIds: [b.user.id] })).body.id as string;
    const sent = await send(a.client, id, 'Hello');
    expect(sent).not.toHaveProperty('seenBy');
    expect((await b.client.post(`${path(id)}/read`, { upTo: sent.id })).status).toBe(200);
    expect(await messagesOf(a.client, id)).toEqual([expect.objectContaining({ content: 'Hello', isRead: true })]);
    expect((await messagesOf(a.client, id))[0]).not.toHaveProperty('seenBy');
  });
});

describe('unread counts, mute and push', () => {
  it('counts unread messages per conversation; a muted group is still counted but pushes to no one who muted it', async () => {
    const people = [];
    for (const name of ['Sender', 'Listener', 'Muter']) {
      const signed = await t.signedIn({ firstName: name });
      const device = `groups-${randomUUID()}`;
      expect((await signed.client.post('/api/push/subscribe', receiver.subscription(device))).status).toBe(201);
      people.push({ ...signed, device });
    }
    const [sender, listener, muter] = people;
    const id = (
      await sender.client.post('/api/conversations', {
        memberIds: [listener.user.id, muter.user.id],
        name: 'Pushes',
      })
    ).body.id as string;
    const muted = await muter.client.patch(path(id), { muted: true });
    expect(muted.status).toBe(200);
    expect(muted.body.muted).toBe(true);
    expect((await viewOf(listener.client, id))?.muted).toBe(false);

    await send(sender.client, id, 'Secret plan');
    const [delivered] = await receiver.waitFor(listener.device);
    expect(delivered.payload).toEqual({
      title: 'New message from Sender',
      body: 'Open Staff Portal to read it.',
      tag: `chat-${id}`,
      data: { type: 'chat', conversationId: id },
    });
    expect(JSON.stringify(delivered.payload)).not.toContain('Secret');
    await t.settlePushes();
    expect(receiver.of(muter.device)).toEqual([]);
    expect(receiver.of(sender.device)).toEqual([]);
    expect((await viewOf(muter.client, id))?.unreadCount).toBe(1);
    expect((await muter.client.get('/api/messages/unread-count')).body).toEqual({ count: 1 });

    // Unmuted through sync, the next message pushes to them too.
    const master = (await pullFrom<ConversationDoc>(muter.client, 'conversations')).docs.get(id)!;
    expect(master.muted).toBe(true);
    expect(
      await push(muter.client, 'conversations', [
        { newDocumentState: { ...master, muted: false }, assumedMasterState: master },
      ]),
    ).toEqual([]);
    expect((await viewOf(muter.client, id))?.muted).toBe(false);
    await send(sender.client, id, 'Again');
    expect(await receiver.waitFor(muter.device)).toHaveLength(1);
    expect((await viewOf(listener.client, id))?.unreadCount).toBe(2);
    expect((await listener.client.patch(`${path(id)}/read`)).body).toMatchObject({ unreadCount: 0 });
  });

  it('refuses a mute that is not true or false', async () => {
    const { people, id } = await group('Mute check');
    const res = await people[1].client.patch(path(id), { muted: 'yes' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('muted must be true or false');
  });
});

describe('migration 0016', () => {
  it('turns each one-to-one chat into its two members with their read marks, and nothing is pulled again', () => {
    // The migrations up to 0014 in a folder of their own: the database as it was before groups.
    const before = fs.mkdtempSync(nodePath.join(os.tmpdir(), 'groups-migration-'));
    try {
      fs.cpSync(MIGRATIONS_DIR, before, { recursive: true });
      const journalPath = nodePath.join(before, 'meta', '_journal.json');
      const journal = JSON.parse(fs.readFileSync(journalPath, 'utf8')) as { entries: { idx: number }[] };
      journal.entries = journal.entries.filter((entry) => entry.idx <= 14);
      fs.writeFileSync(journalPath, JSON.stringify(journal));
      const sqlite = new Database(':memory:');
      sqlite.pragma('foreign_keys = ON');
      const db = drizzle(sqlite);
      migrate(db, { migrationsFolder: before });
      const user = sqlite.prepare(
        `INSERT INTO users (id, email, first_name, last_name, role, is_active, created_at, updated_at)
         VALUES (?, ?, 'A', 'B', 'staff', 1, 1, 1)`,
      );
      for (const id of ['u1', 'u2', 'u3']) user.run(id, `${id}@test.example`);
      const conversation = sqlite.prepare(
        `INSERT INTO conversations (id, user_a_id, user_b_id, a_read_up_to, b_read_up_to, created_at, updated_at, server_seq)
         VALUES (?, ?, ?, ?, ?, 5, 5, ?)`,
      );
      conversation.run('u1:u2', 'u1', 'u2', 100, 200, 7);
      conversation.run('u1:u3', 'u1', null, 300, 0, 8);

      migrate(db, { migrationsFolder: MIGRATIONS_DIR });
      expect(
        sqlite
          .prepare(
            'SELECT id, kind, name, house, created_by AS createdBy, server_seq AS seq FROM conversations ORDER BY id',
          )
          .all(),
      ).toEqual([
        { id: 'u1:u2', kind: 'direct', name: null, house: null, createdBy: null, seq: 7 },
        { id: 'u1:u3', kind: 'direct', name: null, house: null, createdBy: null, seq: 8 },
      ]);
      expect(
        sqlite
          .prepare(
            `SELECT conversation_id AS c, user_id AS u, joined_at AS joinedAt, left_at AS leftAt, read_up_to AS mark,
               muted, access_seq AS access FROM conversation_members ORDER BY 1, 2`,
          )
          .all(),
      ).toEqual([
        { c: 'u1:u2', u: 'u1', joinedAt: 5, leftAt: null, mark: 100, muted: 0, access: 0 },
        { c: 'u1:u2', u: 'u2', joinedAt: 5, leftAt: null, mark: 200, muted: 0, access: 0 },
        { c: 'u1:u3', u: 'u1', joinedAt: 5, leftAt: null, mark: 300, muted: 0, access: 0 },
      ]);
      sqlite.close();
    } finally {
      fs.rmSync(before, { recursive: true, force: true });
    }
  });
});
