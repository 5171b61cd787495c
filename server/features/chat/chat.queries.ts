import { and, asc, desc, eq, inArray, lt, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import { conversationIdOf } from '../../../schema/chat';
import { preparedFor, type Db } from '../../db/client';
import { conversations, messages, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type NewConversationRow = Omit<ConversationRow, 'serverSeq'>;
export type NewMessageRow = Omit<MessageRow, 'serverSeq'>;

/** The colleague on the other side, as the chat shows them; all null once that account is deleted. */
const otherColumns = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  role: users.role,
  profileImageUrl: users.profileImageUrl,
};

export interface ConversationListRow {
  conversation: ConversationRow;
  other: {
    id: string | null;
    firstName: string | null;
    lastName: string | null;
    role: 'staff' | 'admin' | 'system_admin' | null;
    profileImageUrl: string | null;
  } | null;
  lastContent: string | null;
  unread: number;
}

const involves = (userId: string): SQL =>
  or(eq(conversations.userAId, userId), eq(conversations.userBId, userId)) as SQL;
const otherIdOf = (userId: string) =>
  sql`CASE WHEN ${conversations.userAId} = ${userId} THEN ${conversations.userBId} ELSE ${conversations.userAId} END`;
const readMarkOf = (userId: string) =>
  sql`CASE WHEN ${conversations.userAId} = ${userId} THEN ${conversations.aReadUpTo} ELSE ${conversations.bReadUpTo} END`;
/** Messages of the conversation from the other side that `userId` has not read (read along the index). */
const unreadOf = (userId: string) =>
  sql<number>`(SELECT count(*) FROM messages m WHERE m.conversation_id = ${conversations.id}
    AND m.created_at > ${readMarkOf(userId)} AND (m.sender_id IS NULL OR m.sender_id <> ${userId}))`;

const findConversationQuery = preparedFor((db) =>
  db
    .select()
    .from(conversations)
    .where(eq(conversations.id, sql.placeholder('id')))
    .prepare(),
);

export function findConversation(db: Db, id: string): ConversationRow | undefined {
  return findConversationQuery(db).get({ id });
}

/** The new, empty conversation of two users at `at`: named by the pair, the lower id first (decision 30). */
export function newConversationRow(userId: string, otherUserId: string, at: number): NewConversationRow {
  const [userAId, userBId] = userId < otherUserId ? [userId, otherUserId] : [otherUserId, userId];
  return {
    id: conversationIdOf(userId, otherUserId),
    userAId,
    userBId,
    aReadUpTo: 0,
    bReadUpTo: 0,
    lastMessageAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

export function insertConversation(db: Db, row: NewConversationRow): void {
  db.transaction(() => {
    db.insert(conversations)
      .values({ ...row, serverSeq: nextSeq(db) })
      .run();
  });
}

/** A user's conversations with the other side, the last message and the unread count, newest first. */
export function listConversationsOf(db: Db, userId: string, onlyId?: string): ConversationListRow[] {
  const where = onlyId ? and(involves(userId), eq(conversations.id, onlyId)) : involves(userId);
  return db
    .select({
      conversation: conversations,
      other: otherColumns,
      lastContent: sql<string | null>`(SELECT m.content FROM messages m WHERE m.conversation_id = ${conversations.id}
        ORDER BY m.created_at DESC LIMIT 1)`,
      unread: unreadOf(userId),
    })
    .from(conversations)
    .leftJoin(users, eq(users.id, otherIdOf(userId)))
    .where(where)
    .orderBy(desc(sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`), asc(conversations.id))
    .all();
}

/** Messages from others a user has not read, across their conversations. */
export function countUnreadOf(db: Db, userId: string): number {
  const row = db
    .select({ n: sql<number>`coalesce(sum(${unreadOf(userId)}), 0)` })
    .from(conversations)
    .where(involves(userId))
    .get();
  return row?.n ?? 0;
}

/** Sets one side's read mark; the conversation moves up the change feed. */
export function updateReadMark(db: Db, id: string, side: 'a' | 'b', upTo: number, at: number): void {
  db.transaction(() => {
    const mark = side === 'a' ? { aReadUpTo: upTo } : { bReadUpTo: upTo };
    db.update(conversations)
      .set({ ...mark, updatedAt: at, serverSeq: nextSeq(db) })
      .where(eq(conversations.id, id))
      .run();
  });
}

const findMessageQuery = preparedFor((db) =>
  db
    .select()
    .from(messages)
    .where(eq(messages.id, sql.placeholder('id')))
    .prepare(),
);

export function findMessage(db: Db, id: string): MessageRow | undefined {
  return findMessageQuery(db).get({ id });
}

export interface MessageWithSender {
  message: MessageRow;
  senderFirstName: string | null;
}

const findMessageWithSenderQuery = preparedFor((db) =>
  db
    .select({ message: messages, senderFirstName: users.firstName })
    .from(messages)
    .leftJoin(users, eq(users.id, messages.senderId))
    .where(eq(messages.id, sql.placeholder('id')))
    .prepare(),
);

export function findMessageWithSender(db: Db, id: string): MessageWithSender | undefined {
  return findMessageWithSenderQuery(db).get({ id });
}

/**
 * The newest `limit` messages of a conversation, newest first, older than `before` (a message's time and id)
 * when given: read backwards along the (conversation, time) index.
 */
export function listMessagesOf(
  db: Db,
  conversationId: string,
  limit: number,
  before?: Pick<MessageRow, 'createdAt' | 'id'>,
): MessageWithSender[] {
  const older = before
    ? and(
        lte(messages.createdAt, before.createdAt),
        or(lt(messages.createdAt, before.createdAt), lt(messages.id, before.id)),
      )
    : undefined;
  return db
    .select({ message: messages, senderFirstName: users.firstName })
    .from(messages)
    .leftJoin(users, eq(users.id, messages.senderId))
    .where(and(eq(messages.conversationId, conversationId), older))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(limit)
    .all();
}

/** Stores a message and moves its conversation's last-message time, at one sequence. */
const insertMessageQueries = preparedFor((db) => ({
  message: db
    .insert(messages)
    .values({
      id: sql.placeholder('id'),
      conversationId: sql.placeholder('conversationId'),
      senderId: sql.placeholder('senderId'),
      content: sql.placeholder('content'),
      createdAt: sql.placeholder('createdAt'),
      writtenAt: sql.placeholder('writtenAt'),
      serverSeq: sql.placeholder('serverSeq'),
    })
    .prepare(),
  conversation: db
    .update(conversations)
    // An update's typing takes a placeholder only inside sql``.
    .set({
      lastMessageAt: sql`${sql.placeholder('createdAt')}`,
      updatedAt: sql`${sql.placeholder('createdAt')}`,
      serverSeq: sql`${sql.placeholder('serverSeq')}`,
    })
    .where(eq(conversations.id, sql.placeholder('conversationId')))
    .prepare(),
}));

export function insertMessage(db: Db, row: NewMessageRow): void {
  const queries = insertMessageQueries(db);
  db.transaction(() => {
    const values = { ...row, serverSeq: nextSeq(db) };
    queries.message.run(values);
    queries.conversation.run(values);
  });
}

/**
 * Before an account is deleted: its conversations and the messages it sent move up the change feed, so the
 * other side pulls them again with the account gone (the foreign keys set it to null).
 */
export function releaseParticipant(db: Db, userId: string): void {
  db.transaction(() => {
    const serverSeq = nextSeq(db);
    db.update(conversations).set({ serverSeq }).where(involves(userId)).run();
    db.update(messages).set({ serverSeq }).where(eq(messages.senderId, userId)).run();
  });
}

/** The user's conversations, with the user as the placeholder `userId` (prepared queries). */
const involvesPlaceholder = or(
  eq(conversations.userAId, sql.placeholder('userId')),
  eq(conversations.userBId, sql.placeholder('userId')),
) as SQL;

const listConversationsSinceQuery = preparedFor((db) =>
  db
    .select()
    .from(conversations)
    .where(
      and(
        involvesPlaceholder,
        sql`(${conversations.serverSeq}, ${conversations.id}) > (${sql.placeholder('seq')}, ${sql.placeholder('id')})`,
      ),
    )
    .orderBy(asc(conversations.serverSeq), asc(conversations.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/** A user's conversations changed after a checkpoint, in feed order; prepared, as every chat change event reads it. */
export function listConversationsSince(db: Db, userId: string, seq: number, id: string, limit: number) {
  return listConversationsSinceQuery(db).all({ userId, seq, id, limit });
}

const listMessagesSinceQuery = preparedFor((db) =>
  db
    .select()
    .from(messages)
    .where(
      and(
        inArray(
          messages.conversationId,
          db.select({ id: conversations.id }).from(conversations).where(involvesPlaceholder),
        ),
        sql`(${messages.serverSeq}, ${messages.id}) > (${sql.placeholder('seq')}, ${sql.placeholder('id')})`,
      ),
    )
    .orderBy(asc(messages.serverSeq), asc(messages.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/** Messages of a user's conversations changed after a checkpoint, in feed order; prepared, as listConversationsSince. */
export function listMessagesSince(db: Db, userId: string, seq: number, id: string, limit: number): MessageRow[] {
  return listMessagesSinceQuery(db).all({ userId, seq, id, limit });
}

export interface ChatUserRow {
  id: string;
  firstName: string;
  lastName: string;
  role: 'staff' | 'admin' | 'system_admin';
  profileImageUrl: string | null;
  isActive: boolean;
  pendingApproval: boolean;
}

const chatUserColumns = { ...otherColumns, isActive: users.isActive, pendingApproval: users.pendingApproval };

export function findChatUser(db: Db, id: string): ChatUserRow | undefined {
  return db.select(chatUserColumns).from(users).where(eq(users.id, id)).get();
}

/** Every active colleague but oneself, by name (pending registrations are not staff yet). */
export function listActiveUsersExcept(db: Db, userId: string): ChatUserRow[] {
  return db
    .select(chatUserColumns)
    .from(users)
    .where(and(ne(users.id, userId), eq(users.isActive, true), eq(users.pendingApproval, false)))
    .orderBy(asc(users.firstName), asc(users.lastName), asc(users.id))
    .all();
}
