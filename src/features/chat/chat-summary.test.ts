import { describe, expect, it } from 'vitest';
import type { ConversationLocal, MessageLocal } from '../../db/collections';
import {
  matchesContact,
  messagePreview,
  newestFromOther,
  newestFromOthers,
  seenBy,
  summariseConversations,
} from './chat-summary';

const conversation = (id: string, otherUserId: string, readUpTo = 0, createdAt = 1): ConversationLocal => ({
  id,
  kind: 'direct',
  name: null,
  house: null,
  memberIds: ['me', otherUserId],
  createdBy: null,
  otherUserId,
  readUpTo,
  otherReadUpTo: 0,
  readMarks: { [otherUserId]: 0 },
  muted: false,
  lastMessageAt: null,
  createdAt,
  updatedAt: createdAt,
  localPending: false,
});
const message = (
  conversationId: string,
  senderId: string,
  createdAt: number,
  content = `m${createdAt}`,
): MessageLocal => ({
  id: `${conversationId}-${createdAt}`,
  conversationId,
  senderId,
  content,
  createdAt,
  writtenAt: createdAt,
  localPending: false,
});

describe('conversation list', () => {
  it('counts only the other person’s messages after the read mark and orders by the latest message', () => {
    const rows = summariseConversations(
      [conversation('me:ann', 'ann', 20), conversation('me:bob', 'bob', 0, 50)],
      [
        message('me:ann', 'ann', 10),
        message('me:ann', 'ann', 30),
        message('me:ann', 'me', 40, 'See you then'),
        message('me:ann', 'ann', 35),
      ],
      'me',
    );
    expect(rows.map((r) => r.id)).toEqual(['me:bob', 'me:ann']);
    expect(rows[1]).toMatchObject({ unreadCount: 2, lastMessage: { content: 'See you then' }, lastMessageAt: 40 });
    expect(rows[0]).toMatchObject({ unreadCount: 0, lastMessage: null, lastMessageAt: null });
  });

  it('lists house chats by their house and groups by their name, counting everyone’s messages but one’s own', () => {
    const house: ConversationLocal = {
      ...conversation('house:Main Road', 'x'),
      kind: 'house',
      name: 'Main Road',
      house: 'Main Road',
      otherUserId: null,
    };
    const team: ConversationLocal = {
      ...conversation('g1', 'x', 11),
      kind: 'group',
      name: 'Team',
      otherUserId: null,
      muted: true,
    };
    const pending: MessageLocal = { ...message('house:Main Road', 'me', 14), localPending: true };
    const rows = summariseConversations(
      [house, team, conversation('me:ann', 'ann')],
      [
        message('house:Main Road', 'ann', 10),
        message('house:Main Road', 'bob', 13),
        pending,
        message('g1', 'ann', 11),
        message('g1', 'bob', 15),
        message('me:ann', 'ann', 12),
      ],
      'me',
    );
    expect(rows.map((r) => [r.id, r.kind, r.name, r.unreadCount, r.muted])).toEqual([
      ['g1', 'group', 'Team', 1, true],
      ['house:Main Road', 'house', 'Main Road', 2, false],
      ['me:ann', 'direct', null, 1, false],
    ]);
  });

  it('counts a group message as seen by the other members whose mark is at or after it', () => {
    const team = { memberIds: ['me', 'ann', 'bob', 'cat'], readMarks: { ann: 20, bob: 19, cat: 25 } };
    expect(seenBy(team, { senderId: 'me', createdAt: 20 })).toEqual(['ann', 'cat']);
    // The sender is never among those who saw it, and a member without a mark saw nothing.
    expect(seenBy(team, { senderId: 'cat', createdAt: 10 })).toEqual(['ann', 'bob']);
    expect(seenBy({ memberIds: ['me', 'dan'], readMarks: {} }, { senderId: 'me', createdAt: 1 })).toEqual([]);
  });

  it('moves the read mark to the newest message from the other person only', () => {
    const list = [message('c', 'ann', 10), message('c', 'me', 20), message('c', 'ann', 15)];
    expect(newestFromOther(list, 'ann')).toBe(15);
    expect(newestFromOther(list, null)).toBeNull();
  });

  it('moves a group’s read mark to the newest message from anyone else that has arrived', () => {
    const list = [message('g', 'ann', 10), message('g', 'bob', 15), { ...message('g', 'cat', 30), localPending: true }];
    expect(newestFromOthers([...list, message('g', 'me', 20)], 'me')).toBe(15);
    expect(newestFromOthers([message('g', 'me', 20)], 'me')).toBeNull();
  });
});

describe("New Chat's search", () => {
  const ann = { firstName: 'Ann', lastName: 'Baker', role: 'staff' as const };
  it('finds a colleague by any part of their name or role, in any case', () => {
    expect(matchesContact(ann, '')).toBe(true);
    expect(matchesContact(ann, 'bak')).toBe(true);
    expect(matchesContact(ann, '  ANN  baker ')).toBe(true);
    expect(matchesContact(ann, 'ann smith')).toBe(false);
  });
});

describe('a message in the conversation list', () => {
  it('shows its words, or the photos and files it carries when it has none', () => {
    expect(messagePreview({ content: 'Hi', images: ['/api/uploads/a'], attachments: [] })).toBe('Hi');
    expect(messagePreview({ content: '', images: ['/api/uploads/a'], attachments: [] })).toBe('Photo');
    const file = { id: 'f', url: '/api/uploads/f', originalName: 'rota.pdf', fileType: 'application/pdf', fileSize: 1 };
    expect(messagePreview({ content: '', images: ['a', 'b'], attachments: [file, file] })).toBe('2 photos, 2 files');
    expect(messagePreview({ content: '', images: undefined, attachments: [file] })).toBe('File');
  });
});
