import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationLocal, MessageLocal } from './collections';
import { createSyncedDatabase, type UserDatabase } from './database';
import { dropLeftConversations } from './left-conversations';
import { forgetLostChanges, readLostChanges } from './lost-changes-store';

let db: UserDatabase;
const START = 1_700_000_000_000;

const group = (id: string): ConversationLocal => ({
  id,
  kind: 'group',
  name: 'Kitchen',
  house: null,
  memberIds: ['me', 'ann', 'bob'],
  createdBy: 'ann',
  otherUserId: null,
  readUpTo: 0,
  otherReadUpTo: 0,
  readMarks: { ann: 0, bob: 0 },
  muted: false,
  lastMessageAt: null,
  createdAt: START,
  updatedAt: START,
  localPending: false,
});
const message = (conversationId: string, senderId: string, at: number, localPending = false): MessageLocal => ({
  id: randomUUID(),
  conversationId,
  senderId,
  content: `Secret ${at} in ${conversationId}`,
  createdAt: START + at,
  writtenAt: START + at,
  localPending,
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

describe('a conversation the user left', () => {
  it('leaves the device with its messages, unsent ones too, and no stored copy keeps their words', async () => {
    await db.conversations.bulkInsert([group('g1'), group('g2')]);
    const gone = [message('g1', 'ann', 1), message('g1', 'me', 2), message('g1', 'me', 3, true)];
    const kept = message('g2', 'bob', 4);
    await db.messages.bulkInsert([...gone, kept]);
    const subscription = dropLeftConversations(db);
    try {
      const emptied = firstValueFrom(
        db.messages.find({ selector: { conversationId: 'g1' } }).$.pipe(filter((docs) => docs.length === 0)),
      );
      // The tombstone arrives as the replication writes it: the document deleted.
      await (await db.conversations.findOne('g1').exec())!.remove();
      await emptied;

      expect(await db.conversations.findOne('g1').exec()).toBeNull();
      expect((await db.messages.find().exec()).map((doc) => doc.id)).toEqual([kept.id]);
      // RxDB keeps deleted documents until a cleanup: what it keeps of these is blank.
      const stored = await db.messages.storageInstance.findDocumentsById(
        gone.map((m) => m.id),
        true,
      );
      expect(stored).toHaveLength(3);
      expect(stored.every((doc) => doc._deleted && doc.content === '')).toBe(true);
      expect(JSON.stringify(stored)).not.toContain('Secret');
      // The unsent one's words stay with their writer, in the notice of messages not sent (decision 150).
      expect(readLostChanges(db.name)).toEqual([
        expect.objectContaining({ kind: 'message', id: gone[2].id, conversationId: 'g1', text: gone[2].content }),
      ]);
    } finally {
      subscription.unsubscribe();
      forgetLostChanges();
    }
  });

  it('blanks an unsent message that the server refused and sent back deleted with its words', async () => {
    await db.conversations.insert(group('g1'));
    const refused = message('g1', 'me', 5, true);
    await db.messages.insert(refused);
    const subscription = dropLeftConversations(db);
    try {
      // The refusal arrives as the replication writes it: the document, deleted, its content as it was.
      await (await db.messages.findOne(refused.id).exec())!.remove();
      await expect
        .poll(async () => (await db.messages.storageInstance.findDocumentsById([refused.id], true))[0]?.content)
        .toBe('');
      const [stored] = await db.messages.storageInstance.findDocumentsById([refused.id], true);
      expect(stored).toMatchObject({ _deleted: true, content: '' });
      expect(await db.messages.find().exec()).toEqual([]);
    } finally {
      subscription.unsubscribe();
    }
  });
});
