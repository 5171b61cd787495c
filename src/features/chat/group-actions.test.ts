import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConversationLocal } from '../../db/collections';
import { createSyncedDatabase, type UserDatabase } from '../../db/database';
import { CHOOSE_COLLEAGUES, memberActionsOf, newGroupRequest, setConversationMuted } from './group-actions';

describe('New Group', () => {
  it('asks for a name first, then for someone to add, and sends the trimmed name', () => {
    expect(newGroupRequest('   ', ['ann'])).toEqual({ error: 'A group needs a name' });
    expect(newGroupRequest('x'.repeat(101), ['ann'])).toEqual({
      error: 'A group name must be at most 100 characters',
    });
    expect(newGroupRequest('Night team', [])).toEqual({ error: CHOOSE_COLLEAGUES });
    expect(newGroupRequest('  Night team ', ['ann', 'bob'])).toEqual({
      body: { name: 'Night team', memberIds: ['ann', 'bob'] },
    });
  });
});

describe('mute', () => {
  let db: UserDatabase;
  beforeEach(async () => {
    db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, { indexedDB, IDBKeyRange }, [
      'conversations',
    ]);
  });
  afterEach(async () => {
    await db.remove();
  });

  it('is written to the local conversation, waiting to be sent, so it works offline', async () => {
    const group: ConversationLocal = {
      id: 'g1',
      kind: 'group',
      name: 'Night team',
      house: null,
      memberIds: ['me', 'ann', 'bob'],
      createdBy: 'ann',
      otherUserId: null,
      readUpTo: 0,
      otherReadUpTo: 0,
      readMarks: { ann: 0, bob: 0 },
      muted: false,
      lastMessageAt: null,
      createdAt: 1,
      updatedAt: 1,
      localPending: false,
    };
    await db.conversations.insert(group);
    await setConversationMuted(db, 'g1', true);
    expect((await db.conversations.findOne('g1').exec())?.toJSON()).toMatchObject({ muted: true, localPending: true });
    await setConversationMuted(db, 'g1', false);
    expect((await db.conversations.findOne('g1').exec())?.muted).toBe(false);
  });
});

describe('the members view', () => {
  const me = (id: string, role: 'staff' | 'admin') => ({ id, role }) as Parameters<typeof memberActionsOf>[0]; // only the id and role are read
  const chat = (kind: 'group' | 'house', memberIds: string[], createdBy: string | null = null) =>
    ({ kind, memberIds, createdBy }) as Parameters<typeof memberActionsOf>[1]; // only these fields are read

  it('lets a group’s creator and admins manage it, everyone leave, and admins outside a house chat join it', () => {
    expect(memberActionsOf(me('ann', 'staff'), chat('group', ['ann', 'bob'], 'ann'))).toEqual({
      manage: true,
      leave: true,
      join: false,
    });
    expect(memberActionsOf(me('bob', 'staff'), chat('group', ['ann', 'bob'], 'ann'))).toEqual({
      manage: false,
      leave: true,
      join: false,
    });
    expect(memberActionsOf(me('cat', 'admin'), chat('group', ['ann', 'cat'], 'ann')).manage).toBe(true);
    // A house chat's members follow the house list: nobody manages it; staff may try to leave and hear the server's no.
    expect(memberActionsOf(me('ann', 'staff'), chat('house', ['ann']))).toEqual({
      manage: false,
      leave: true,
      join: false,
    });
    expect(memberActionsOf(me('cat', 'admin'), chat('house', ['ann']))).toEqual({
      manage: false,
      leave: false,
      join: true,
    });
    expect(memberActionsOf(me('dan', 'staff'), chat('house', ['ann'])).join).toBe(false);
  });
});
