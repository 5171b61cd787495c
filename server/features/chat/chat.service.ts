import { randomUUID } from 'node:crypto';
import {
  CHAT_MESSAGES,
  conversationIdOf,
  houseChatIdOf,
  participantsOf,
  type AddMembersBody,
  type ChatContact,
  type ChatUser,
  type ConversationView,
  type Count,
  type CreateConversationBody,
  type ListMessagesQuery,
  type MessageView,
  type ReadConversationBody,
  type SendMessageBody,
  type UpdateConversationBody,
} from '../../../schema/chat';
import { listHouses } from '../../../schema/constants';
import { houseMention as houseMentionOf, mentionedHouse } from '../../../schema/mention-rules';
import { canJoinHouseChat, canManageGroup } from '../../../schema/permissions';
import { DELETED_AUTHOR, type Attachment } from '../../../schema/posts';
import type { Role } from '../../../schema/roles';
import { CHECKPOINT_ID_END } from '../../../schema/sync-protocol';
import type { ConversationDoc, MessageDoc } from '../../../schema/sync';
import { inTransaction } from '../../db/client';
import type { AppDeps, SessionUser } from '../../lib/context';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { boundWrittenAt } from '../../lib/written-at';
import { housesByUser } from '../houses/houses.service';
import { notifyMessageMentions } from '../mentions/mentions.service';
import { parseList } from '../posts/posts.service';
import { resolveMessageFiles } from '../uploads/uploads.service';
import { chatPush, PUSH_OPTIONS, pushToUsers } from '../push/push.service';
import { accountCreatedAt } from '../users/users.service';
import {
  countUnreadOf,
  findChatUser,
  findConversation,
  findMemberRow,
  findMessage,
  findMessageWithSender,
  insertConversation,
  insertHouseChats,
  insertMessage,
  isMember,
  joinMembers,
  leaveMembers,
  listActiveUsersExcept,
  listChatUsers,
  listConversationFeeds,
  listConversationsByIds,
  listConversationsOf,
  listMemberIds,
  listMemberRows,
  listMessageFeeds,
  listMessagesByIds,
  listMessagesOf,
  listOpenHouseRowsOf,
  newConversationRow,
  releaseParticipant,
  renameConversation,
  touchConversation,
  updateMuted,
  updateReadMark,
  type ConversationListRow,
  type ConversationRow,
  type FeedRow,
  type MessageRow,
  type MessageWithSender,
} from './chat.queries';

/** Who is in a conversation now, with each one's read mark and mute (decision 143). */
interface Membership {
  memberIds: string[];
  /** Read marks of the current members (0 for a member without a row yet). */
  marks: Map<string, number>;
  /** The same marks as an object, copied for each member's document (a house chat's 200 members are 200 copies). */
  markObject: Record<string, number>;
  muted: Set<string>;
}

async function membershipOf(deps: AppDeps, conversationId: string): Promise<Membership> {
  const memberIds = await listMemberIds(deps.db, conversationId);
  // By user: a house chat's 200 members look their rows up 200 times.
  const rows = new Map((await listMemberRows(deps.db, conversationId)).map((r) => [r.userId, r]));
  const marks = new Map(memberIds.map((id) => [id, rows.get(id)?.readUpTo ?? 0]));
  return {
    memberIds,
    marks,
    markObject: Object.fromEntries(marks),
    muted: new Set(memberIds.filter((id) => rows.get(id)?.muted)),
  };
}

/** A one-to-one chat's other side; null in a group or house chat, and once that account is deleted. */
function otherSideOf(row: ConversationRow, userId: string): string | null {
  if (row.kind !== 'direct') return null;
  return row.userAId === userId ? row.userBId : row.userAId;
}

/** The conversation if this user is in it now; everyone else gets 404. */
async function requireConversation(deps: AppDeps, actor: SessionUser, id: string): Promise<ConversationRow> {
  return await ifMember(deps, actor, await findConversation(deps.db, id));
}

/** A conversation already read, if this user is in it now; everyone else gets 404. */
async function ifMember(deps: AppDeps, actor: SessionUser, row: ConversationRow | undefined): Promise<ConversationRow> {
  return row && (await isMember(deps.db, row.id, actor.id)) ? row : notFound(CHAT_MESSAGES.conversationNotFound);
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

async function toConversationView(
  deps: AppDeps,
  row: ConversationListRow,
  viewerId: string,
): Promise<ConversationView> {
  const { conversation } = row;
  const members = await membershipOf(deps, conversation.id);
  return {
    id: conversation.id,
    kind: conversation.kind,
    name: conversation.name,
    ...(conversation.kind === 'house' && conversation.house !== null ? { house: conversation.house } : {}),
    memberIds: members.memberIds,
    createdBy: conversation.createdBy,
    muted: members.muted.has(viewerId),
    ...(conversation.kind === 'direct' ? { otherUser: toChatUser(row.other) } : {}),
    unreadCount: row.unread,
    lastMessage: row.lastContent === null ? null : { content: row.lastContent },
    lastMessageAt: conversation.lastMessageAt === null ? null : new Date(conversation.lastMessageAt).toISOString(),
  };
}

async function loadConversationView(deps: AppDeps, actor: SessionUser, id: string): Promise<ConversationView> {
  const [row] = await listConversationsOf(deps.db, actor.id, id);
  return row ? toConversationView(deps, row, actor.id) : notFound(CHAT_MESSAGES.conversationNotFound);
}

/** Tells the members' streams (and anyone else named, such as a member who just left) of a change. */
function notifyMembers(deps: AppDeps, userIds: Iterable<string>, withMessages = false): void {
  const ids = [...new Set(userIds)];
  if (ids.length === 0) return;
  deps.hub.notify('conversations', ids);
  if (withMessages) deps.hub.notify('messages', ids);
}

/** At start: every house of the house list has its chat (decision 143); ids are made from the house's name. */
export async function ensureHouseChats(deps: AppDeps): Promise<void> {
  await insertHouseChats(deps.db, listHouses(deps.config.orgName), deps.now());
}

/** GET /api/conversations: the user's conversations, the most recent message first. */
export async function listConversations(deps: AppDeps, actor: SessionUser): Promise<ConversationView[]> {
  const rows = await listConversationsOf(deps.db, actor.id);
  return await Promise.all(rows.map((row) => toConversationView(deps, row, actor.id)));
}

/** GET /api/users: the new-chat list, every other active colleague (never oneself; docs/behaviour.md, "Chat"). */
export async function listChatContacts(deps: AppDeps, actor: SessionUser): Promise<ChatContact[]> {
  return (await listActiveUsersExcept(deps.db, actor.id)).map(({ id, firstName, lastName, role, profileImageUrl }) => ({
    id,
    firstName,
    lastName,
    role,
    profileImageUrl: profileImageUrl ?? null,
  }));
}

/** Refuses anyone who is not an active, approved colleague (404, as for an unknown id). */
async function requireColleagues(deps: AppDeps, userIds: readonly string[]): Promise<void> {
  const found = await listChatUsers(deps.db, userIds);
  for (const id of userIds) {
    const user = found.find((u) => u.id === id);
    if (!user || !user.isActive || user.pendingApproval) notFound(CHAT_MESSAGES.userNotFound);
  }
}

/** Creates the pair's conversation (the id is made from the pair); the other must be an active colleague. */
async function createDirectConversation(
  deps: AppDeps,
  actor: SessionUser,
  otherUserId: string,
): Promise<ConversationRow> {
  if (otherUserId === actor.id) badRequest(CHAT_MESSAGES.notWithYourself);
  await requireColleagues(deps, [otherUserId]);
  const row = newConversationRow(actor.id, otherUserId, deps.now());
  await insertConversation(deps.db, row);
  notifyMembers(deps, [actor.id, otherUserId]);
  return (await findConversation(deps.db, row.id))!;
}

/**
 * The pair's conversation; the existing one when the two already have one (`created: false`), never with oneself
 * or with an inactive or unknown user.
 */
export async function openConversation(
  deps: AppDeps,
  actor: SessionUser,
  participantId: string,
): Promise<{ conversation: ConversationView; created: boolean }> {
  if (participantId === actor.id) badRequest(CHAT_MESSAGES.notWithYourself);
  const id = conversationIdOf(actor.id, participantId);
  if ((await findConversation(deps.db, id)) && (await isMember(deps.db, id, actor.id))) {
    return { conversation: await loadConversationView(deps, actor, id), created: false };
  }
  const row = await createDirectConversation(deps, actor, participantId);
  return { conversation: await loadConversationView(deps, actor, row.id), created: true };
}

/**
 * POST /api/conversations (decision 143): one other colleague opens the pair's one-to-one chat as before; several
 * start a group, which needs a name, with its creator as a member.
 */
export async function createConversation(
  deps: AppDeps,
  actor: SessionUser,
  body: CreateConversationBody,
): Promise<{ conversation: ConversationView; created: boolean }> {
  const others = [...new Set(body.memberIds ?? [body.participantId!])].filter((id) => id !== actor.id);
  if (others.length === 0) return badRequest(CHAT_MESSAGES.notWithYourself);
  if (others.length === 1) return await openConversation(deps, actor, others[0]);
  if (body.name === undefined) return badRequest(CHAT_MESSAGES.groupNameRequired);
  await requireColleagues(deps, others);
  const at = deps.now();
  const id = randomUUID();
  const members = [actor.id, ...others];
  await insertConversation(
    deps.db,
    {
      id,
      kind: 'group',
      name: body.name,
      house: null,
      createdBy: actor.id,
      userAId: null,
      userBId: null,
      lastMessageAt: null,
      createdAt: at,
      updatedAt: at,
    },
    members,
  );
  notifyMembers(deps, members);
  return { conversation: await loadConversationView(deps, actor, id), created: true };
}

/** A group whose members this actor may change: house and one-to-one chats are fixed (409), others 403. */
async function requireManagedGroup(deps: AppDeps, actor: SessionUser, id: string): Promise<ConversationRow> {
  const row = await requireConversation(deps, actor, id);
  if (row.kind === 'house') conflict(CHAT_MESSAGES.houseMembersFixed);
  if (row.kind === 'direct') conflict(CHAT_MESSAGES.directMembersFixed);
  if (!canManageGroup(actor, row)) forbidden(CHAT_MESSAGES.notMembersManager);
  return row;
}

/**
 * POST /api/conversations/{id}/members: its creator or an admin adds active colleagues to a group; each is in at once,
 * pulls its messages, and has nothing unread from before they joined.
 */
export async function addMembers(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: AddMembersBody,
): Promise<ConversationView> {
  const row = await requireManagedGroup(deps, actor, id);
  const before = await listMemberIds(deps.db, id);
  const added = [...new Set(body.userIds)].filter((userId) => !before.includes(userId));
  await requireColleagues(deps, added);
  if (added.length > 0) {
    await joinMembers(deps.db, id, added, deps.now(), row.lastMessageAt ?? 0);
    notifyMembers(deps, [...before, ...added], true);
  }
  return loadConversationView(deps, actor, id);
}

/**
 * DELETE /api/conversations/{id}/members/{userId}: its creator or an admin removes a member of a group; anyone removes
 * themselves (leaveConversation). The removed member's next pull brings tombstones of it and its messages.
 */
export async function removeMember(deps: AppDeps, actor: SessionUser, id: string, userId: string): Promise<void> {
  if (userId === actor.id) return leaveConversation(deps, actor, id);
  await requireManagedGroup(deps, actor, id);
  const before = await listMemberIds(deps.db, id);
  if (!before.includes(userId)) notFound(CHAT_MESSAGES.userNotFound);
  await leaveMembers(deps.db, id, [userId], deps.now());
  notifyMembers(deps, before, true);
}

/**
 * POST /api/conversations/{id}/leave: a member leaves a group, or an admin a house chat they joined; staff of a house
 * stay in its chat while they work there (409), and a one-to-one chat keeps its two members (409).
 */
export async function leaveConversation(deps: AppDeps, actor: SessionUser, id: string): Promise<void> {
  const row = await requireConversation(deps, actor, id);
  if (row.kind === 'direct') conflict(CHAT_MESSAGES.directMembersFixed);
  if (row.kind === 'house' && (await housesByUser(deps, [actor.id])).get(actor.id)?.includes(row.house ?? '')) {
    conflict(CHAT_MESSAGES.houseMembersFixed);
  }
  const before = await listMemberIds(deps.db, id);
  await leaveMembers(deps.db, id, [actor.id], deps.now());
  notifyMembers(deps, before, true);
}

/**
 * POST /api/conversations/{id}/join: an admin joins a house's chat (decision 143); a member already in answers it as
 * it is. Other chats are joined by being added (409); a staff member outside the house gets 404, as for any chat.
 */
export async function joinConversation(deps: AppDeps, actor: SessionUser, id: string): Promise<ConversationView> {
  const row = await findConversation(deps.db, id);
  const member = row !== undefined && (await isMember(deps.db, id, actor.id));
  if (!row || (!member && (row.kind !== 'house' || !canJoinHouseChat(actor)))) {
    return notFound(CHAT_MESSAGES.conversationNotFound);
  }
  if (row.kind !== 'house') conflict(CHAT_MESSAGES.joinHouseOnly);
  if (!member) {
    const before = await listMemberIds(deps.db, id);
    await joinMembers(deps.db, id, [actor.id], deps.now(), row.lastMessageAt ?? 0);
    notifyMembers(deps, [...before, actor.id], true);
  }
  return loadConversationView(deps, actor, id);
}

/** PATCH /api/conversations/{id}: a group's name (its creator or admins) and one's own mute, any kind of chat. */
export async function updateConversation(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: UpdateConversationBody,
): Promise<ConversationView> {
  const row = await requireConversation(deps, actor, id);
  if (body.name !== undefined) {
    if (row.kind !== 'group') conflict(CHAT_MESSAGES.onlyGroupRenamed);
    if (!canManageGroup(actor, row)) forbidden(CHAT_MESSAGES.notRenamer);
  }
  await inTransaction(deps, async (deps) => {
    if (body.name !== undefined && body.name !== row.name) await renameConversation(deps.db, id, body.name, deps.now());
    if (body.muted !== undefined) await setMuted(deps, actor, row, body.muted);
  });
  notifyMembers(deps, await listMemberIds(deps.db, id));
  return loadConversationView(deps, actor, id);
}

/** Sets the actor's mute of a conversation they are in, when it changes. */
async function setMuted(deps: AppDeps, actor: SessionUser, row: ConversationRow, muted: boolean): Promise<void> {
  const current = (await findMemberRow(deps.db, row.id, actor.id))?.muted ?? false;
  if (current !== muted) await updateMuted(deps.db, row.id, actor.id, muted, deps.now());
}

/** The mute pushed through sync: the conversation is one the actor is in (the handler checked). */
export async function muteConversation(deps: AppDeps, actor: SessionUser, id: string, muted: boolean): Promise<void> {
  const row = await requireConversation(deps, actor, id);
  await setMuted(deps, actor, row, muted);
  notifyMembers(deps, await listMemberIds(deps.db, id));
}

function toMessageView(row: MessageWithSender, conversation: ConversationRow, members: Membership, viewerId: string) {
  const { message } = row;
  const mine = message.senderId === viewerId;
  const base = {
    id: message.id,
    conversationId: message.conversationId,
    content: message.content,
    senderId: message.senderId,
    sender: { firstName: message.senderId ? (row.senderFirstName ?? '') : DELETED_AUTHOR.firstName },
    createdAt: new Date(message.createdAt).toISOString(),
    writtenAt: new Date(message.writtenAt).toISOString(),
    mentions: parseList<string>(message.mentions),
    images: parseList<string>(message.images),
    attachments: parseList<Attachment>(message.attachments),
  };
  const seenBy = members.memberIds.filter(
    (id) => id !== message.senderId && (members.marks.get(id) ?? 0) >= message.createdAt,
  );
  if (conversation.kind === 'direct') {
    const other = otherSideOf(conversation, viewerId);
    const mark = mine ? (other ? (members.marks.get(other) ?? 0) : 0) : (members.marks.get(viewerId) ?? 0);
    return { ...base, isRead: message.createdAt <= mark } satisfies MessageView;
  }
  const isRead = mine ? seenBy.length > 0 : message.createdAt <= (members.marks.get(viewerId) ?? 0);
  return { ...base, isRead, seenBy } satisfies MessageView;
}

/**
 * GET /api/conversations/{id}/messages: a page of messages, oldest first (MessageView, docs/api-chat-alerts.md), and the cursor of
 * the page before it when there is one; members only. `before` must name a message of this
 * conversation: any other id, another conversation's included, is the same 400.
 */
export async function listMessages(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  query: ListMessagesQuery,
): Promise<{ messages: MessageView[]; nextCursor: string | null }> {
  const conversation = await requireConversation(deps, actor, conversationId);
  let before: MessageRow | undefined;
  if (query.before !== undefined) {
    before = await findMessage(deps.db, query.before);
    if (before?.conversationId !== conversation.id) badRequest(CHAT_MESSAGES.invalidBefore);
  }
  // One more than asked says whether an older page exists without a second query.
  const rows = await listMessagesOf(deps.db, conversation.id, query.limit + 1, before);
  const page = rows.slice(0, query.limit).reverse();
  const members = await membershipOf(deps, conversation.id);
  return {
    messages: page.map((row) => toMessageView(row, conversation, members, actor.id)),
    nextCursor: rows.length > query.limit && page[0] ? page[0].message.id : null,
  };
}

/**
 * The conversation a message goes to. A message written offline may reach the server before its
 * conversation (collections replicate independently): a pair id that names the sender and an active
 * colleague creates it.
 */
async function conversationForMessage(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
): Promise<ConversationRow> {
  const row = await findConversation(deps.db, conversationId);
  if (row) return await ifMember(deps, actor, row);
  const pair = participantsOf(conversationId);
  const otherId = pair?.[0] === actor.id ? pair[1] : pair?.[1] === actor.id ? pair[0] : null;
  if (!otherId) return notFound(CHAT_MESSAGES.conversationNotFound);
  const other = await findChatUser(deps.db, otherId);
  if (!other || !other.isActive || other.pendingApproval) notFound(CHAT_MESSAGES.conversationNotFound);
  return await createDirectConversation(deps, actor, otherId);
}

/**
 * The conversation a file uploaded for a chat message names (POST /api/uploads, decision 150): the user must be in
 * it now (a pair's chat not made yet is made, as its first message would); null when the form names none.
 */
export async function chatConversationOf(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: unknown,
): Promise<string | null> {
  if (conversationId === undefined) return null;
  if (typeof conversationId !== 'string' || conversationId.length === 0 || conversationId.length > 250) {
    return notFound(CHAT_MESSAGES.conversationNotFound);
  }
  return (await conversationForMessage(deps, actor, conversationId)).id;
}

/** Whether the user is in the conversation now: who may read the files sent in it (decision 150). */
export async function isConversationMember(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
): Promise<boolean> {
  return await isMember(deps.db, conversationId, actor.id);
}

/**
 * POST /api/conversations/{id}/messages and a message pushed through sync: stored at the server's time
 * (strictly after the conversation's previous message, so order and read marks are exact), told to the
 * members' streams, and pushed to the other members' devices but those who muted it. The same message sent again
 * is stored once. Its written time (what the chat shows) is the device's, bounded by that and the sender's account
 * (decision 119).
 */
export async function sendMessage(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  body: SendMessageBody,
): Promise<MessageView> {
  // One transaction from the id check to the insert: the same item sent twice at once is stored once.
  return await inTransaction(deps, async (deps) => {
    if (body.id) {
      const existing = await findMessage(deps.db, body.id);
      if (existing) {
        if (existing.senderId !== actor.id || existing.conversationId !== conversationId) {
          conflict(CHAT_MESSAGES.messageExists);
        }
        const conversation = await requireConversation(deps, actor, conversationId);
        const members = await membershipOf(deps, conversation.id);
        return toMessageView((await findMessageWithSender(deps.db, existing.id))!, conversation, members, actor.id);
      }
    }
    const conversation = await conversationForMessage(deps, actor, conversationId);
    if (conversation.kind === 'direct' && !otherSideOf(conversation, actor.id)) {
      return badRequest(CHAT_MESSAGES.participantDeleted);
    }
    const id = body.id ?? randomUUID();
    const createdAt = Math.max(deps.now(), (conversation.lastMessageAt ?? 0) + 1);
    const writtenAt = boundWrittenAt(body.writtenAt, await accountCreatedAt(deps, actor.id), createdAt);
    const members = await membershipOf(deps, conversation.id);
    const mentions = keptMessageMentions(conversation, members.memberIds, body.mentions);
    const files = await resolveMessageFiles(deps, actor, conversation.id, body);
    const message = await insertMessage(deps.db, {
      id,
      conversationId: conversation.id,
      senderId: actor.id,
      content: body.content,
      createdAt,
      writtenAt,
      mentions: JSON.stringify(mentions),
      images: JSON.stringify(files.images),
      attachments: JSON.stringify(files.attachments),
    });
    notifyMembers(deps, members.memberIds, true);
    const mentioned = await tellMentioned(deps, actor, conversation, id, mentions, members);
    const recipients = members.memberIds.filter(
      (userId) => userId !== actor.id && !members.muted.has(userId) && !mentioned.has(userId),
    );
    if (recipients.length > 0) {
      await pushToUsers(deps, recipients, chatPush(actor.firstName, conversation.id), PUSH_OPTIONS.chat, {
        key: `chat:${conversation.id}`,
        summary: { kind: 'chat', senderFirstName: actor.firstName, conversationId: conversation.id },
      });
    }
    // What was stored, without reading it back: the message as inserted, its sender the actor.
    return toMessageView({ message, senderFirstName: actor.firstName }, conversation, members, actor.id);
  });
}

/**
 * The mentions a message keeps (decision 150): ids of the conversation's current members, and `house:<its house>` in
 * a house chat; anyone else is dropped, as decision 144 drops unknown names, so a message written offline is never
 * lost for a colleague who left meanwhile.
 */
function keptMessageMentions(conversation: ConversationRow, memberIds: readonly string[], mentions: string[]) {
  const houseMention = conversation.kind === 'house' && conversation.house ? houseMentionOf(conversation.house) : null;
  return mentions.filter((mention) => mention === houseMention || memberIds.includes(mention));
}

/**
 * Gives each member a message mentions, never its sender, a bell entry, and a push in place of the message's own: a
 * member named pushes through their mute, one told through `house:` does not (decision 150). Answers who was pushed
 * to or muted it, so the message's own push leaves them out.
 */
async function tellMentioned(
  deps: AppDeps,
  actor: SessionUser,
  conversation: ConversationRow,
  messageId: string,
  mentions: string[],
  members: Membership,
): Promise<Set<string>> {
  if (mentions.length === 0) return new Set();
  const named = new Set(mentions.filter((mention) => mentionedHouse(mention) === null));
  const everyone = mentions.some((mention) => mentionedHouse(mention) !== null);
  const told = members.memberIds.filter((userId) => userId !== actor.id && (everyone || named.has(userId)));
  const pushTo = new Set(told.filter((userId) => named.has(userId) || !members.muted.has(userId)));
  const source = { conversationId: conversation.id, messageId, authorId: actor.id, authorFirstName: actor.firstName };
  await notifyMessageMentions(deps, source, told, pushTo);
  return new Set(told);
}

/**
 * PATCH /api/conversations/{id}/read, and a read mark pushed through sync: the user has read others' messages up to
 * `upTo` (a message's createdAt; by default the newest). The mark only moves forward and never past the newest
 * message.
 */
export async function markConversationRead(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  upTo?: number,
): Promise<ConversationView> {
  const conversation = await requireConversation(deps, actor, conversationId);
  const newest = conversation.lastMessageAt ?? 0;
  const current = (await findMemberRow(deps.db, conversation.id, actor.id))?.readUpTo ?? 0;
  const mark = Math.min(upTo ?? newest, newest);
  if (mark > current) {
    await updateReadMark(deps.db, conversation.id, actor.id, mark, deps.now());
    notifyMembers(deps, await listMemberIds(deps.db, conversation.id));
  }
  return loadConversationView(deps, actor, conversation.id);
}

/** POST /api/conversations/{id}/read: read up to a message of the conversation, named by its id. */
export async function readUpToMessage(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  body: ReadConversationBody,
): Promise<ConversationView> {
  const conversation = await requireConversation(deps, actor, conversationId);
  const message = await findMessage(deps.db, body.upTo);
  if (message?.conversationId !== conversation.id) return badRequest(CHAT_MESSAGES.invalidUpTo);
  return await markConversationRead(deps, actor, conversationId, message.createdAt);
}

/** GET /api/messages/unread-count: messages from others not yet read, across the user's conversations. */
export async function countUnreadMessages(deps: AppDeps, actor: SessionUser): Promise<Count> {
  return { count: await countUnreadOf(deps.db, actor.id) };
}

/** Before an account is deleted: its conversations stay for the others, its messages as "Deleted user". */
export async function releaseChatParticipant(deps: AppDeps, userId: string): Promise<void> {
  const ids = (await listConversationsOf(deps.db, userId)).map((row) => row.conversation.id);
  const touched: string[] = [];
  for (const id of ids) touched.push(...(await listMemberIds(deps.db, id)));
  await releaseParticipant(deps.db, userId, ids);
  notifyMembers(deps, touched, true);
}

/**
 * Called in the transaction that changes a user's houses or role (decision 143): the chats of houses they joined or
 * left, and house chats an admin joined that they may no longer be in, get a new place in their feed, so their next
 * pull brings them, or their tombstones; the others in those chats pull the new member list.
 */
export async function houseChatAccessChanged(
  deps: AppDeps,
  userId: string,
  before: { role: Role; houses: readonly string[] },
  after: { role: Role; houses: readonly string[] },
): Promise<void> {
  const at = deps.now();
  const joined = after.houses.filter((h) => !before.houses.includes(h)).map(houseChatIdOf);
  const left = before.houses.filter((h) => !after.houses.includes(h)).map(houseChatIdOf);
  if (!canJoinHouseChat({ role: after.role })) {
    for (const row of await listOpenHouseRowsOf(deps.db, userId)) {
      if (!after.houses.includes(row.house) && !left.includes(row.conversationId)) left.push(row.conversationId);
    }
  }
  if (joined.length + left.length === 0) return;
  await insertHouseChats(deps.db, after.houses, at);
  const told = new Set<string>([userId]);
  for (const id of joined) {
    await joinMembers(deps.db, id, [userId], at, (await findConversation(deps.db, id))?.lastMessageAt ?? 0);
    for (const member of await listMemberIds(deps.db, id)) told.add(member);
  }
  for (const id of left) {
    if (!(await findConversation(deps.db, id))) continue;
    await leaveMembers(deps.db, id, [userId], at);
    for (const member of await listMemberIds(deps.db, id)) told.add(member);
  }
  notifyMembers(deps, told, true);
}

/**
 * Called when an account is activated or deactivated: its house chats' member lists change (derived from the account
 * being live), so they move up the change feed of those who stay.
 */
export async function houseChatMembersChanged(deps: AppDeps, userId: string, houses: readonly string[]): Promise<void> {
  const at = deps.now();
  const ids = [
    ...houses.map(houseChatIdOf),
    ...(await listOpenHouseRowsOf(deps.db, userId)).map((r) => r.conversationId),
  ];
  const told = new Set<string>();
  await inTransaction(deps, async (deps) => {
    for (const id of new Set(ids)) {
      if (!(await findConversation(deps.db, id))) continue;
      await touchConversation(deps.db, id, at);
      for (const member of await listMemberIds(deps.db, id)) told.add(member);
    }
  });
  notifyMembers(deps, told);
}

// Sync -----------------------------------------------------------------------------------------------------------

/** The read marks of a conversation's members but the viewer. */
function othersMarks(members: Membership, viewerId: string): Record<string, number> {
  const marks = { ...members.markObject };
  delete marks[viewerId];
  return marks;
}

/** A conversation as one of its members pulls it, but its members and their read marks. */
function conversationFields(
  row: ConversationRow,
  members: Membership,
  viewerId: string,
): Omit<ConversationDoc, 'memberIds' | 'readMarks'> {
  const other = otherSideOf(row, viewerId);
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    house: row.house,
    createdBy: row.createdBy,
    otherUserId: other,
    readUpTo: members.marks.get(viewerId) ?? 0,
    otherReadUpTo: other ? (members.marks.get(other) ?? 0) : 0,
    muted: members.muted.has(viewerId),
    lastMessageAt: row.lastMessageAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    _deleted: false,
  };
}

/** A conversation as replication sends it to one of its members (docs/sync.md; decision 143). */
function toConversationDoc(row: ConversationRow, members: Membership, viewerId: string): ConversationDoc {
  return {
    ...conversationFields(row, members, viewerId),
    memberIds: members.memberIds,
    readMarks: othersMarks(members, viewerId),
  };
}

/** A conversation's members and read marks as JSON text, encoded once for all its members' documents. */
interface EncodedMembers {
  memberIds: string;
  /** The marks' entries (`"id":mark`) joined by commas, without braces. */
  marks: string;
  /** Where each member's entry starts in `marks`, and its length. */
  entries: Map<string, [number, number]>;
}

const encodedMembers = new WeakMap<Membership, EncodedMembers>();

function encodedMembersOf(members: Membership): EncodedMembers {
  let encoded = encodedMembers.get(members);
  if (encoded) return encoded;
  const entries = new Map<string, [number, number]>();
  let marks = '';
  for (const id of members.memberIds) {
    const entry = `${JSON.stringify(id)}:${members.marks.get(id) ?? 0}`;
    if (marks) marks += ',';
    entries.set(id, [marks.length, entry.length]);
    marks += entry;
  }
  encodedMembers.set(members, (encoded = { memberIds: JSON.stringify(members.memberIds), marks, entries }));
  return encoded;
}

/**
 * A member's conversation document as JSON text, the same as `JSON.stringify(toConversationDoc(…))` reads: a house
 * chat's change event carries one to each of its 200 members, and its members and marks are most of each.
 */
function conversationDocJson(row: ConversationRow, members: Membership, viewerId: string): string {
  const { memberIds, marks, entries } = encodedMembersOf(members);
  let others = marks;
  const own = entries.get(viewerId);
  if (own) {
    const [start, length] = own;
    // The entry goes with the comma after it, or before it when it is the last.
    others =
      start + length < marks.length
        ? marks.slice(0, start) + marks.slice(start + length + 1)
        : marks.slice(0, Math.max(0, start - 1));
  }
  const fields = JSON.stringify(conversationFields(row, members, viewerId));
  return `${fields.slice(0, -1)},"memberIds":${memberIds},"readMarks":{${others}}}`;
}

/** What a former member pulls of a conversation: nothing of it but that it is gone. */
function conversationTombstone(row: ConversationRow): ConversationDoc {
  return {
    id: row.id,
    kind: row.kind,
    name: null,
    house: null,
    memberIds: [],
    createdBy: null,
    otherUserId: null,
    readUpTo: 0,
    otherReadUpTo: 0,
    readMarks: {},
    muted: false,
    lastMessageAt: null,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    _deleted: true,
  };
}

/** The conversation as this user would pull it; null when they are not in it. */
export async function findConversationDoc(
  deps: AppDeps,
  id: string,
  actor: SessionUser,
): Promise<ConversationDoc | null> {
  const row = await findConversation(deps.db, id);
  return row && (await isMember(deps.db, id, actor.id))
    ? toConversationDoc(row, await membershipOf(deps, id), actor.id)
    : null;
}

/** A user's conversations after a checkpoint: those they are in, and tombstones of those they left (decision 143). */
export async function listConversationDocsSince(
  deps: AppDeps,
  actor: SessionUser,
  seq: number,
  id: string,
  limit: number,
) {
  return (
    (await conversationDocsOf(deps, await listConversationFeeds(deps.db, [actor.id], seq, id, limit))).get(actor.id) ??
    []
  );
}

/**
 * Several users' conversations after a sequence, at most `limit` each, for one change event to them all (a house
 * chat's message tells its 200 members): each user's feed as their pull reads it, read together.
 */
export async function listConversationDocsOfUsersSince(
  deps: AppDeps,
  userIds: ReadonlySet<string>,
  seq: number,
  limit: number,
) {
  return conversationDocsOf(
    deps,
    await listConversationFeeds(deps.db, [...userIds], seq, CHECKPOINT_ID_END, limit),
    true,
  );
}

/**
 * The documents of users' conversation feeds: each conversation and its members read once, however many name it.
 * With `encode`, each also as JSON text, for a change event.
 */
async function conversationDocsOf(
  deps: AppDeps,
  feeds: Map<string, FeedRow[]>,
  encode = false,
): Promise<Map<string, { seq: number; doc: ConversationDoc; json?: string }[]>> {
  const ids = new Set([...feeds.values()].flatMap((feed) => feed.map((f) => f.id)));
  const rows = new Map((await listConversationsByIds(deps.db, [...ids])).map((row) => [row.id, row]));
  // Each visible conversation's members, read once however many feeds name it.
  const memberships = new Map<string, Membership>();
  for (const feed of feeds.values()) {
    for (const f of feed) {
      if (f.visible && !memberships.has(f.id)) memberships.set(f.id, await membershipOf(deps, f.id));
    }
  }
  const membership = (id: string) => memberships.get(id)!;
  return new Map(
    [...feeds].map(([userId, feed]) => [
      userId,
      feed.map((f) => {
        const row = rows.get(f.id)!; // read with the feed, nothing deletes a conversation
        if (!f.visible) return { seq: f.seq, doc: conversationTombstone(row) };
        const members = membership(row.id);
        const doc = toConversationDoc(row, members, userId);
        return encode ? { seq: f.seq, doc, json: conversationDocJson(row, members, userId) } : { seq: f.seq, doc };
      }),
    ]),
  );
}

/** What a message's tombstone keeps of it: none of its words, mentions or files (decisions 146 and 150). */
export const BLANK_MESSAGE: Pick<MessageDoc, 'content' | 'mentions' | 'images' | 'attachments'> = {
  content: '',
  mentions: [],
  images: [],
  attachments: [],
};

export function toMessageDoc(row: MessageRow): MessageDoc {
  return {
    id: row.id,
    conversationId: row.conversationId,
    senderId: row.senderId,
    content: row.content,
    createdAt: row.createdAt,
    writtenAt: row.writtenAt,
    mentions: parseList<string>(row.mentions),
    images: parseList<string>(row.images),
    attachments: parseList<Attachment>(row.attachments),
    _deleted: false,
  };
}

/** The message as this user would pull it; null when it is not in a conversation they are in. */
export async function findMessageDoc(deps: AppDeps, id: string, actor: SessionUser): Promise<MessageDoc | null> {
  const row = await findMessage(deps.db, id);
  return row && (await isMember(deps.db, row.conversationId, actor.id)) ? toMessageDoc(row) : null;
}

/** A user's messages after a checkpoint: of the conversations they are in, and tombstones of those they left. */
export async function listMessageDocsSince(deps: AppDeps, actor: SessionUser, seq: number, id: string, limit: number) {
  return (await messageDocsOf(deps, await listMessageFeeds(deps.db, [actor.id], seq, id, limit))).get(actor.id) ?? [];
}

/** Several users' messages after a sequence, at most `limit` each, for one change event to them all. */
export async function listMessageDocsOfUsersSince(
  deps: AppDeps,
  userIds: ReadonlySet<string>,
  seq: number,
  limit: number,
) {
  return messageDocsOf(deps, await listMessageFeeds(deps.db, [...userIds], seq, CHECKPOINT_ID_END, limit));
}

/** The documents of users' message feeds: each message read and made a document once, however many feeds name it. */
async function messageDocsOf(deps: AppDeps, feeds: Map<string, FeedRow[]>) {
  const ids = new Set([...feeds.values()].flatMap((feed) => feed.map((f) => f.id)));
  const docs = new Map((await listMessagesByIds(deps.db, [...ids])).map((row) => [row.id, toMessageDoc(row)]));
  return new Map(
    [...feeds].map(([userId, feed]) => [
      userId,
      feed.map((f) => {
        const doc = docs.get(f.id)!; // read with the feed, nothing deletes a message
        return { seq: f.seq, doc: f.visible ? doc : { ...doc, ...BLANK_MESSAGE, senderId: null, _deleted: true } };
      }),
    ]),
  );
}
