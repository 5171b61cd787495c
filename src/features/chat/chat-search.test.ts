import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageLocal } from '../../db/collections';
import { createSyncedDatabase, type UserDatabase } from '../../db/database';
import { matchesMessage, searchMessages } from './chat-search';

let db: UserDatabase;
const message = (conversationId: string, content: string, at: number, localPending = false): MessageLocal => ({
  id: randomUUID(),
  conversationId,
  senderId: 'ann',
  content,
  createdAt: at,
  writtenAt: at,
  localPending,
});

beforeEach(async () => {
  db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, { indexedDB, IDBKeyRange }, [
    'messages',
  ]);
});
afterEach(async () => {
  await db.remove();
});

describe('search in chat', () => {
  it('matches every word typed, in any case', () => {
    expect(matchesMessage('Night shift swap on Friday?', 'FRIDAY swap')).toBe(true);
    expect(matchesMessage('Night shift swap on Friday?', 'friday rota')).toBe(false);
    expect(matchesMessage('anything', '   ')).toBe(true);
  });

  it('finds the local messages of every conversation, newest first, taking typed symbols as text', async () => {
    await db.messages.bulkInsert([
      message('house:Giles House', 'Rota for Friday is up', 1),
      message('g1', 'Swap my friday shift?', 2),
      message('me:ann', 'See you Monday', 3),
      message('g1', 'Friday (late) still free', 4, true),
    ]);
    expect((await searchMessages(db, 'friday')).map((m) => [m.conversationId, m.content])).toEqual([
      ['g1', 'Friday (late) still free'],
      ['g1', 'Swap my friday shift?'],
      ['house:Giles House', 'Rota for Friday is up'],
    ]);
    expect((await searchMessages(db, '(late)')).map((m) => m.content)).toEqual(['Friday (late) still free']);
    expect(await searchMessages(db, 'friday monday')).toEqual([]);
    expect(await searchMessages(db, '  ')).toEqual([]);
    expect(await searchMessages(db, 'friday', 1)).toHaveLength(1);
  });
});
