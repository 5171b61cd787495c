import { z } from 'zod';
import { CHAT_MESSAGES, conversationIdOf, SendMessageBodySchema } from '../../../schema/chat';
import type { ConversationDoc, MessageDoc } from '../../../schema/sync';
import { badRequest, conflict } from '../../lib/errors';
import { parseInput } from '../../lib/http';
import { EVENT_DOCUMENTS_MAX, type SyncHandler } from '../sync/sync.service';
import {
  BLANK_MESSAGE,
  findConversationDoc,
  findMessageDoc,
  listConversationDocsOfUsersSince,
  listConversationDocsSince,
  listMessageDocsOfUsersSince,
  listMessageDocsSince,
  markConversationRead,
  muteConversation,
  openConversation,
  sendMessage,
} from './chat.service';

const UserIdSchema = z.string({ message: 'otherUserId is required' }).min(1, 'otherUserId is required').max(100);
const ReadMarkSchema = z.number({ message: 'readUpTo must be a time in milliseconds' }).int().nonnegative();
const MutedSchema = z.boolean({ message: 'muted must be true or false' });
const ConversationIdSchema = z.string({ message: 'conversationId is required' }).min(1).max(250);

/**
 * Conversations replicate both ways, only to their current members (decision 143). A new document opens a pair's
 * one-to-one chat (its id must be made from the pair); groups are started through REST. A member writes only their
 * own read mark and mute, so the last push wins; a mark older than the server's answers the master. Someone who is
 * not in the conversation gets a tombstone, never its master.
 */
export const conversationsSync: SyncHandler<ConversationDoc> = {
  pull: async (deps, actor, seq, id, limit) => await listConversationDocsSince(deps, actor, seq, id, limit),
  // One event for a house chat's members reads each conversation's members once (a change event carries at most
  // EVENT_DOCUMENTS_MAX documents; one more tells it to announce instead).
  pullOfUsers: (deps, userIds, seq) => listConversationDocsOfUsersSince(deps, userIds, seq, EVENT_DOCUMENTS_MAX + 1),
  findMaster: (deps, id, actor) => findConversationDoc(deps, id, actor),
  lastPushWins: true,
  async apply(deps, actor, doc, master) {
    const { otherUserId, readUpTo, muted } = doc as Partial<ConversationDoc>;
    if (doc._deleted) badRequest('Conversations cannot be deleted');
    const mark = readUpTo === undefined ? 0 : parseInput(ReadMarkSchema, readUpTo);
    const mute = muted === undefined ? undefined : parseInput(MutedSchema, muted);
    if (!master) {
      const other = parseInput(UserIdSchema, otherUserId);
      if (doc.id !== conversationIdOf(actor.id, other)) {
        badRequest('A conversation id is made from its two participants (conversationIdOf)');
      }
      await openConversation(deps, actor, other);
      if (mark > 0) await markConversationRead(deps, actor, doc.id, mark);
      if (mute) await muteConversation(deps, actor, doc.id, mute);
      return;
    }
    // A device from before groups sends no otherUserId change; a group's is null on both sides.
    if (otherUserId !== undefined && otherUserId !== master.otherUserId) {
      badRequest('The participants of a conversation cannot change');
    }
    if (mark < master.readUpTo) conflict('This conversation has been read further on another device');
    if (mark > master.readUpTo) await markConversationRead(deps, actor, doc.id, mark);
    if (mute !== undefined && mute !== master.muted) await muteConversation(deps, actor, doc.id, mute);
  },
};

/**
 * Messages replicate both ways, only to the current members of their conversation; a member who left pulls
 * tombstones. A new document is sendMessage (the same rules as REST: a member, trimmed non-empty content, server
 * time and sender); messages are never changed or deleted. Someone else's conversation answers a tombstone, never
 * its master, and a refused message's tombstone holds no words (decision 150).
 */
export const messagesSync: SyncHandler<MessageDoc> = {
  pull: async (deps, actor, seq, id, limit) => await listMessageDocsSince(deps, actor, seq, id, limit),
  pullOfUsers: (deps, userIds, seq) => listMessageDocsOfUsersSince(deps, userIds, seq, EVENT_DOCUMENTS_MAX + 1),
  findMaster: (deps, id, actor) => findMessageDoc(deps, id, actor),
  // A refused message comes back blank, as the server's own tombstones are; the device tells its sender the words.
  refusedAs: (doc) => ({ ...doc, ...BLANK_MESSAGE, _deleted: true }),
  async apply(deps, actor, doc, master) {
    if (master) badRequest(CHAT_MESSAGES.messagesImmutable);
    if (doc._deleted) return; // written and removed while offline: nothing to keep
    const { conversationId, content, writtenAt, mentions, images, attachments } = doc as Partial<MessageDoc>;
    await sendMessage(
      deps,
      actor,
      parseInput(ConversationIdSchema, conversationId),
      parseInput(SendMessageBodySchema, { id: doc.id, content, writtenAt, mentions, images, attachments }),
    );
  },
};
