import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageLocal } from '../../db/collections';
import { createSyncedDatabase, type UserDatabase } from '../../db/database';
import { listChangeOf, pagedMessages, type MessagePage } from './message-page';

let db: UserDatabase;
const CONVERSATION = 'user-a:user-b';
const START = 1_700_000_000_000;

const message = (i: number, overrides: Partial<MessageLocal> = {}): MessageLocal => ({
  id: `m${String(i).padStart(4, '0')}`,
  conversationId: CONVERSATION,
  senderId: i % 2 ? 'user-a' : 'user-b',
  content: `Message ${i}`,
  createdAt: START + i * 1000,
  writtenAt: START + i * 1000,
  localPending: false,
  ...overrides,
});

beforeEach(async () => {
  db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, { indexedDB, IDBKeyRange }, [
    'messages',
  ]);
});
afterEach(async () => {
  await db.remove();
});

/** The next page the store emits that satisfies `done`. */
const pageWhere = (paged: ReturnType<typeof pagedMessages>, done: (page: MessagePage) => boolean) =>
  firstValueFrom(paged.page$.pipe(filter(done)));
const contents = (page: MessagePage) => page.messages.map((m) => m.content);

describe('the open conversation’s pages', () => {
  it('opens on the newest page, oldest first, and each loadOlder adds the page before until the start', async () => {
    await db.messages.bulkInsert(Array.from({ length: 120 }, (_, i) => message(i)));
    // Another conversation's messages never show.
    await db.messages.insert(message(999, { id: 'other', conversationId: 'user-a:user-c', createdAt: START + 1 }));
    const paged = pagedMessages(db, CONVERSATION, 50);

    const first = await pageWhere(paged, () => true);
    expect(contents(first)).toEqual(Array.from({ length: 50 }, (_, i) => `Message ${70 + i}`));
    expect(first.hasOlder).toBe(true);

    paged.loadOlder(first);
    paged.loadOlder(first); // a second call while the page loads is ignored
    const second = await pageWhere(paged, (page) => page.since !== first.since);
    expect(contents(second)).toEqual(Array.from({ length: 100 }, (_, i) => `Message ${20 + i}`));
    expect(second.hasOlder).toBe(true);

    paged.loadOlder(second);
    const third = await pageWhere(paged, (page) => page.since !== second.since);
    expect(contents(third)).toHaveLength(120);
    expect(contents(third)[0]).toBe('Message 0');
    expect(third.hasOlder).toBe(false);
    expect(third.since).toBe(0);
  });

  it('adds a new message at the end without dropping the oldest one shown', async () => {
    await db.messages.bulkInsert(Array.from({ length: 60 }, (_, i) => message(i)));
    const paged = pagedMessages(db, CONVERSATION, 50);
    const first = await pageWhere(paged, () => true);
    expect(first.messages[0].content).toBe('Message 10');
    const arrived = pageWhere(paged, (page) => page.messages.length === 51);
    await db.messages.insert(message(60));
    const next = await arrived;
    expect(next.messages[0].content).toBe('Message 10');
    expect(next.messages[50].content).toBe('Message 60');
    expect(listChangeOf({ oldestId: first.messages[0].id, newestId: first.messages[49].id }, next.messages)).toBe(
      'newer',
    );
  });

  it('shows everything from the start when a conversation has no more than a page', async () => {
    await db.messages.bulkInsert(Array.from({ length: 50 }, (_, i) => message(i)));
    const paged = pagedMessages(db, CONVERSATION, 50);
    const page = await pageWhere(paged, () => true);
    expect(page).toMatchObject({ hasOlder: false, since: 0 });
    expect(page.messages).toHaveLength(50);
  });
});

describe('listChangeOf', () => {
  const shown = { oldestId: 'm0010', newestId: 'm0020' };
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => message(from + i));

  it('tells the first render, older messages added above, a newer one below, and nothing new', () => {
    expect(listChangeOf(null, [])).toBe('first');
    expect(listChangeOf(null, range(10, 20))).toBe('first');
    expect(listChangeOf(shown, range(0, 20))).toBe('older');
    expect(listChangeOf(shown, range(10, 21))).toBe('newer');
    expect(listChangeOf(shown, range(10, 20))).toBe('none');
  });
});
