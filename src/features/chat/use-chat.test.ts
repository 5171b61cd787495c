import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationLocal, MessageLocal } from '../../db/collections';
import { createSyncedDatabase, type UserDatabase } from '../../db/database';
import { summariseConversations, type ConversationSummary } from './chat-summary';
import { conversationSummaries$ } from './use-chat';

let db: UserDatabase;
const START = 1_700_000_000_000;

const conversation = (id: string, otherUserId: string | null, readUpTo = 0): ConversationLocal => ({
  id,
  kind: 'direct',
  name: null,
  house: null,
  memberIds: otherUserId ? ['me', otherUserId] : ['me'],
  createdBy: null,
  otherUserId,
  readUpTo,
  otherReadUpTo: 0,
  readMarks: otherUserId ? { [otherUserId]: 0 } : {},
  muted: false,
  lastMessageAt: null,
  createdAt: START,
  updatedAt: START,
  localPending: false,
});
let made = 0;
const message = (conversationId: string, senderId: string, at: number): MessageLocal => ({
  id: `m${(made += 1)}`,
  conversationId,
  senderId,
  content: `${conversationId} at ${at}`,
  createdAt: START + at,
  writtenAt: START + at,
  localPending: false,
});

beforeEach(async () => {
  db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, { indexedDB, IDBKeyRange }, [
    'conversations',
    'messages',
  ]);
});
afterEach(async () => {
  await db.remove();
});

/** What the list must show: the summary of every conversation over every message on the device. */
async function everything(): Promise<ConversationSummary[]> {
  const conversations = (await db.conversations.find().exec()).map((doc) => doc.toMutableJSON());
  const messages = (await db.messages.find().exec()).map((doc) => doc.toMutableJSON());
  return summariseConversations(conversations, messages, 'me');
}

describe('the conversation list', () => {
  it('reads only the newest and unread messages of each conversation, and shows what reading them all would', async () => {
    // A long conversation read up to its 280th message, one never read, one read to the end, one empty.
    const long = Array.from({ length: 300 }, (_, i) => message('me:ann', i % 2 ? 'ann' : 'me', i + 1));
    await db.conversations.bulkInsert([
      conversation('me:ann', 'ann', START + 280),
      conversation('me:ben', 'ben'),
      conversation('me:cat', 'cat', START + 1000),
      conversation('me:dan', 'dan'),
    ]);
    await db.messages.bulkInsert([
      ...long,
      message('me:ben', 'ben', 500),
      message('me:ben', 'me', 501),
      message('me:cat', 'cat', 999),
      message('me:cat', 'me', 1000),
    ]);
    const list$ = conversationSummaries$(db, 'me');
    const rows = await firstValueFrom(list$);
    expect(rows).toEqual(await everything());
    expect(rows.map((row) => [row.id, row.unreadCount, row.lastMessage?.content])).toEqual([
      ['me:cat', 0, 'me:cat at 1000'],
      ['me:ben', 1, 'me:ben at 501'],
      ['me:ann', 10, 'me:ann at 300'],
      ['me:dan', 0, undefined],
    ]);

    // Live: a message from Dan moves his conversation to the top, unread.
    const next = firstValueFrom(list$.pipe(filter((list) => list[0]?.id === 'me:dan')));
    await db.messages.insert(message('me:dan', 'dan', 2000));
    expect((await next)[0]).toMatchObject({ unreadCount: 1, lastMessage: { content: 'me:dan at 2000' } });

    // Reading Ann's conversation to the end clears its count.
    const read = firstValueFrom(
      list$.pipe(filter((list) => list.find((row) => row.id === 'me:ann')?.unreadCount === 0)),
    );
    await (await db.conversations.findOne('me:ann').exec())!.incrementalPatch({ readUpTo: START + 300 });
    expect(await read).toEqual(await everything());
  });

  it('lists house chats and groups beside one-to-one chats, a muted one still counted', async () => {
    const house: ConversationLocal = {
      ...conversation('house:Main Road', null),
      kind: 'house',
      name: 'Main Road',
      house: 'Main Road',
      memberIds: ['me', 'ann', 'ben'],
    };
    const team: ConversationLocal = {
      ...conversation('g1', null, START + 10),
      kind: 'group',
      name: 'Night team',
      memberIds: ['me', 'ann', 'ben'],
      muted: true,
    };
    await db.conversations.bulkInsert([house, team, conversation('me:ann', 'ann')]);
    await db.messages.bulkInsert([
      message('house:Main Road', 'ann', 20),
      message('house:Main Road', 'ben', 21),
      message('g1', 'ben', 5),
      message('g1', 'ann', 30),
      message('g1', 'me', 31),
      message('me:ann', 'ann', 40),
    ]);
    const rows = await firstValueFrom(conversationSummaries$(db, 'me'));
    expect(rows).toEqual(await everything());
    expect(rows.map((row) => [row.id, row.kind, row.name, row.unreadCount])).toEqual([
      ['me:ann', 'direct', null, 1],
      ['g1', 'group', 'Night team', 1],
      ['house:Main Road', 'house', 'Main Road', 2],
    ]);
  });
});
