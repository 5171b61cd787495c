import { randomUUID } from 'node:crypto';
import {
  CHAT_MESSAGES,
  conversationIdOf,
  participantsOf,
  type ChatContact,
  type ChatUser,
  type ConversationView,
  type Count,
  type ListMessagesQuery,
  type MessageView,
  type SendMessageBody,
} from '../../../schema/chat';
import { DELETED_AUTHOR } from '../../../schema/posts';
import type { ConversationDoc, MessageDoc } from '../../../schema/sync';
import type { AppDeps, SessionUser } from '../../lib/context';
import { badRequest, conflict, notFound } from '../../lib/errors';
import { boundWrittenAt } from '../../lib/written-at';
import { chatPush, chatSummaryPush, PUSH_OPTIONS, pushToUsers } from '../push/push.service';
import { accountCreatedAt } from '../users/users.service';
import {
  countUnreadOf,
  findChatUser,
  findConversation,
  findMessage,
  findMessageWithSender,
  insertConversation,
  newConversationRow,
  insertMessage,
  listActiveUsersExcept,
  listConversationsOf,
  listConversationsSince,
  listMessagesOf,
  listMessagesSince,
  releaseParticipant,
  updateReadMark,
  type ConversationListRow,
  type ConversationRow,
  type MessageRow,
  type MessageWithSender,
} from './chat.queries';

/** Which side of a conversation a user is on; null when they are not in it. */
function sideOf(row: ConversationRow, userId: string): 'a' | 'b' | null {
  if (row.userAId === userId) return 'a';
  if (row.userBId === userId) return 'b';
  return null;
}

/** The two participants still on the conversation: the only users told of its changes. */
function participantIds(row: ConversationRow): string[] {
  return [row.userAId, row.userBId].filter((id): id is string => id !== null);
}

function readMarks(row: ConversationRow, userId: string) {
  const side = sideOf(row, userId);
  return side === 'a'
    ? { mine: row.aReadUpTo, other: row.bReadUpTo, otherId: row.userBId }
    : { mine: row.bReadUpTo, other: row.aReadUpTo, otherId: row.userAId };
}

/** The conversation if this user is one of its two participants; everyone else gets 404. */
function requireConversation(deps: AppDeps, actor: SessionUser, id: string): ConversationRow {
  const row = findConversation(deps.db, id);
  return row && sideOf(row, actor.id) ? row : notFound(CHAT_MESSAGES.conversationNotFound);
}

function toChatUser(other: ConversationListRow['other']): ChatUser {
  if (!other?.id) return { id: null, ...DELETED_AUTHOR, role: null, profileImageUrl: null };
  return {
    id: other.id,
    firstName: other.firstName ?? '',
    lastName: other.lastName ?? '',
    role: other.role,
    profileImageUrl: other.profileImageUrl ?? null,
  };
}

function toConversationView(row: ConversationListRow): ConversationView {
  const { conversation } = row;
  return {
    id: conversation.id,
    otherUser: toChatUser(row.other),
    unreadCount: row.unread,
    lastMessage: row.lastContent === null ? null : { content: row.lastContent },
    lastMessageAt: conversation.lastMessageAt === null ? null : new Date(conversation.lastMessageAt).toISOString(),
  };
}

function loadConversationView(deps: AppDeps, actor: SessionUser, id: string): ConversationView {
  const [row] = listConversationsOf(deps.db, actor.id, id);
  return row ? toConversationView(row) : notFound(CHAT_MESSAGES.conversationNotFound);
}

/** GET /api/conversations: the user's conversations, the most recent message first. */
export function listConversations(deps: AppDeps, actor: SessionUser): ConversationView[] {
  return listConversationsOf(deps.db, actor.id).map(toConversationView);
}

/** GET /api/users: the new-chat list, every other active colleague (never oneself; docs/behaviour.md, "Chat"). */
export function listChatContacts(deps: AppDeps, actor: SessionUser): ChatContact[] {
  return listActiveUsersExcept(deps.db, actor.id).map(({ id, firstName, lastName, role, profileImageUrl }) => ({
    id,
    firstName,
    lastName,
    role,
    profileImageUrl: profileImageUrl ?? null,
  }));
}

/** Creates the pair's conversation (the id is made from the pair); the other must be an active colleague. */
function createConversation(deps: AppDeps, actor: SessionUser, otherUserId: string): ConversationRow {
  if (otherUserId === actor.id) badRequest(CHAT_MESSAGES.notWithYourself);
  const other = findChatUser(deps.db, otherUserId);
  if (!other || !other.isActive || other.pendingApproval) notFound(CHAT_MESSAGES.userNotFound);
  const row = newConversationRow(actor.id, otherUserId, deps.now());
  insertConversation(deps.db, row);
  deps.hub.notify('conversations', [actor.id, otherUserId]);
  return findConversation(deps.db, row.id)!;
}

/**
 * POST /api/conversations: the pair's conversation; the existing one when the two already have one
 * (`created: false`), never with oneself or with an inactive or unknown user.
 */
export function openConversation(
  deps: AppDeps,
  actor: SessionUser,
  participantId: string,
): { conversation: ConversationView; created: boolean } {
  if (participantId === actor.id) badRequest(CHAT_MESSAGES.notWithYourself);
  const existing = findConversation(deps.db, conversationIdOf(actor.id, participantId));
  if (existing && sideOf(existing, actor.id)) {
    return { conversation: loadConversationView(deps, actor, existing.id), created: false };
  }
  const row = createConversation(deps, actor, participantId);
  return { conversation: loadConversationView(deps, actor, row.id), created: true };
}

function toMessageView(row: MessageWithSender, conversation: ConversationRow, viewerId: string): MessageView {
  const { message } = row;
  const marks = readMarks(conversation, viewerId);
  const mine = message.senderId === viewerId;
  return {
    id: message.id,
    conversationId: message.conversationId,
    content: message.content,
    senderId: message.senderId,
    sender: { firstName: message.senderId ? (row.senderFirstName ?? '') : DELETED_AUTHOR.firstName },
    createdAt: new Date(message.createdAt).toISOString(),
    writtenAt: new Date(message.writtenAt).toISOString(),
    isRead: message.createdAt <= (mine ? marks.other : marks.mine),
  };
}

/**
 * GET /api/conversations/{id}/messages: a page of messages, oldest first (MessageView, docs/api-chat-alerts.md), and the cursor of
 * the page before it when there is one; participants only. `before` must name a message of this
 * conversation: any other id, another conversation's included, is the same 400.
 */
export function listMessages(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  query: ListMessagesQuery,
): { messages: MessageView[]; nextCursor: string | null } {
  const conversation = requireConversation(deps, actor, conversationId);
  let before: MessageRow | undefined;
  if (query.before !== undefined) {
    before = findMessage(deps.db, query.before);
    if (before?.conversationId !== conversation.id) badRequest(CHAT_MESSAGES.invalidBefore);
  }
  // One more than asked says whether an older page exists without a second query.
  const rows = listMessagesOf(deps.db, conversation.id, query.limit + 1, before);
  const page = rows.slice(0, query.limit).reverse();
  return {
    messages: page.map((row) => toMessageView(row, conversation, actor.id)),
    nextCursor: rows.length > query.limit && page[0] ? page[0].message.id : null,
  };
}

/**
 * The conversation a message goes to. A message written offline may reach the server before its
 * conversation (collections replicate independently): a pair id that names the sender and an active
 * colleague creates it.
 */
function conversationForMessage(deps: AppDeps, actor: SessionUser, conversationId: string): ConversationRow {
  const row = findConversation(deps.db, conversationId);
  if (row) return sideOf(row, actor.id) ? row : notFound(CHAT_MESSAGES.conversationNotFound);
  const pair = participantsOf(conversationId);
  const otherId = pair?.[0] === actor.id ? pair[1] : pair?.[1] === actor.id ? pair[0] : null;
  if (!otherId) return notFound(CHAT_MESSAGES.conversationNotFound);
  const other = findChatUser(deps.db, otherId);
  if (!other || !other.isActive || other.pendingApproval) notFound(CHAT_MESSAGES.conversationNotFound);
  return createConversation(deps, actor, otherId);
}

/**
 * POST /api/conversations/{id}/messages and a message pushed through sync: stored at the server's time
 * (strictly after the conversation's previous message, so order and read marks are exact), told to the two
 * participants' streams, and pushed to the recipient's devices. The same message sent again is stored once.
 * Its written time (what the chat shows) is the device's, bounded by that and the sender's account (decision 119).
 */
export function sendMessage(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  body: SendMessageBody,
): MessageView {
  if (body.id) {
    const existing = findMessage(deps.db, body.id);
    if (existing) {
      if (existing.senderId !== actor.id || existing.conversationId !== conversationId) {
        conflict(CHAT_MESSAGES.messageExists);
      }
      const conversation = requireConversation(deps, actor, conversationId);
      return toMessageView(findMessageWithSender(deps.db, existing.id)!, conversation, actor.id);
    }
  }
  const conversation = conversationForMessage(deps, actor, conversationId);
  const recipientId = readMarks(conversation, actor.id).otherId;
  if (!recipientId) return badRequest(CHAT_MESSAGES.participantDeleted);
  const id = body.id ?? randomUUID();
  const createdAt = Math.max(deps.now(), (conversation.lastMessageAt ?? 0) + 1);
  const writtenAt = boundWrittenAt(body.writtenAt, accountCreatedAt(deps, actor.id), createdAt);
  insertMessage(deps.db, {
    id,
    conversationId: conversation.id,
    senderId: actor.id,
    content: body.content,
    createdAt,
    writtenAt,
  });
  const participants = participantIds(conversation);
  deps.hub.notify('messages', participants);
  deps.hub.notify('conversations', participants);
  pushToUsers(deps, [recipientId], chatPush(actor.firstName, conversation.id), PUSH_OPTIONS.chat, {
    key: `chat:${conversation.id}`,
    summary: (held) => chatSummaryPush(actor.firstName, conversation.id, held),
  });
  const stored = findConversation(deps.db, conversation.id)!;
  return toMessageView(findMessageWithSender(deps.db, id)!, stored, actor.id);
}

/**
 * PATCH /api/conversations/{id}/read, and a read mark pushed through sync: the user has read the other
 * side's messages up to `upTo` (a message's createdAt; by default the newest). The mark only moves forward
 * and never past the newest message.
 */
export function markConversationRead(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  upTo?: number,
): ConversationView {
  const conversation = requireConversation(deps, actor, conversationId);
  const side = sideOf(conversation, actor.id)!;
  const newest = conversation.lastMessageAt ?? 0;
  const current = side === 'a' ? conversation.aReadUpTo : conversation.bReadUpTo;
  const mark = Math.min(upTo ?? newest, newest);
  if (mark > current) {
    updateReadMark(deps.db, conversation.id, side, mark, deps.now());
    deps.hub.notify('conversations', participantIds(conversation));
  }
  return loadConversationView(deps, actor, conversation.id);
}

/** GET /api/messages/unread-count: messages from others not yet read, across the user's conversations. */
export function countUnreadMessages(deps: AppDeps, actor: SessionUser): Count {
  return { count: countUnreadOf(deps.db, actor.id) };
}

/** Before an account is deleted: its conversations stay for the other side, its messages as "Deleted user". */
export function releaseChatParticipant(deps: AppDeps, userId: string): void {
  const touched = listConversationsOf(deps.db, userId).flatMap((row) => participantIds(row.conversation));
  releaseParticipant(deps.db, userId);
  if (touched.length === 0) return;
  deps.hub.notify('conversations', touched);
  deps.hub.notify('messages', touched);
}

/** A conversation as replication sends it to one of its participants (docs/sync.md). */
export function toConversationDoc(row: ConversationRow, viewerId: string): ConversationDoc {
  const marks = readMarks(row, viewerId);
  return {
    id: row.id,
    otherUserId: marks.otherId,
    readUpTo: marks.mine,
    otherReadUpTo: marks.other,
    lastMessageAt: row.lastMessageAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    _deleted: false,
  };
}

/** The conversation as this user would pull it; null when they are not in it. */
export function findConversationDoc(deps: AppDeps, id: string, actor: SessionUser): ConversationDoc | null {
  const row = findConversation(deps.db, id);
  return row && sideOf(row, actor.id) ? toConversationDoc(row, actor.id) : null;
}

export function listConversationDocsSince(deps: AppDeps, actor: SessionUser, seq: number, id: string, limit: number) {
  return listConversationsSince(deps.db, actor.id, seq, id, limit).map((row) => ({
    seq: row.serverSeq,
    doc: toConversationDoc(row, actor.id),
  }));
}

export function toMessageDoc(row: MessageRow): MessageDoc {
  return {
    id: row.id,
    conversationId: row.conversationId,
    senderId: row.senderId,
    content: row.content,
    createdAt: row.createdAt,
    writtenAt: row.writtenAt,
    _deleted: false,
  };
}

/** The message as this user would pull it; null when it is not in one of their conversations. */
export function findMessageDoc(deps: AppDeps, id: string, actor: SessionUser): MessageDoc | null {
  const row = findMessage(deps.db, id);
  if (!row) return null;
  const conversation = findConversation(deps.db, row.conversationId);
  return conversation && sideOf(conversation, actor.id) ? toMessageDoc(row) : null;
}

export function listMessageDocsSince(deps: AppDeps, actor: SessionUser, seq: number, id: string, limit: number) {
  return listMessagesSince(deps.db, actor.id, seq, id, limit).map((row) => ({
    seq: row.serverSeq,
    doc: toMessageDoc(row),
  }));
}
