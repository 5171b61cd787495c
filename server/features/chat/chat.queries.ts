import { and, asc, desc, eq, inArray, isNull, lt, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import { conversationIdOf, houseChatIdOf } from '../../../schema/chat';
import { jsonValues, preparedFor, statement, type Db, type Statement, transaction } from '../../db/client';
import { conversationMembers, conversations, messages, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type ConversationRow = typeof conversations.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;
export type MemberRow = typeof conversationMembers.$inferSelect;
export type NewConversationRow = Omit<ConversationRow, 'serverSeq'>;
/** A message to store; without `mentions`, `images` or `attachments` it has none. */
export type NewMessageRow = Omit<MessageRow, 'serverSeq' | 'mentions' | 'images' | 'attachments'> &
  Partial<Pick<MessageRow, 'mentions' | 'images' | 'attachments'>>;

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

/** An account that counts as staff now: active and approved. */
const LIVE_USER = `u.is_active AND NOT u.pending_approval`;
const ADMIN_ROLE = `u.role IN ('admin', 'system_admin')`;

/**
 * The conversations users are in now (decision 143), as SQL text: their direct and group chats (a row not left), the
 * house chats of their houses while their account is live, and the house chats an admin joined while they are a live
 * admin. Derived at every read, so it follows the house list and never drifts. `users` picks whose (`= @userId`, or
 * `IN (SELECT user_id FROM who)`); with `withUser` each row also names the user, as `user_id`.
 */
const memberConversationsSql = (users: string, withUser: boolean) => `
  SELECT ${withUser ? 'cm.user_id AS user_id, ' : ''}cm.conversation_id AS id
  FROM conversation_members cm JOIN conversations c ON c.id = cm.conversation_id
  WHERE cm.user_id ${users} AND cm.left_at IS NULL AND (c.kind <> 'house'
    OR EXISTS (SELECT 1 FROM users u WHERE u.id = cm.user_id AND ${LIVE_USER} AND ${ADMIN_ROLE}))
  UNION
  SELECT ${withUser ? 'uh.user_id, ' : ''}c.id FROM conversations c JOIN user_houses uh ON uh.house = c.house
  JOIN users u ON u.id = uh.user_id
  WHERE c.kind = 'house' AND uh.user_id ${users} AND ${LIVE_USER}`;

/** The ids of the conversations one user is in now, on the parameter `@userId`. */
const MEMBER_CONVERSATIONS = memberConversationsSql('= @userId', false);

/** The same set as drizzle SQL, the user id bound as a parameter where the text names it. */
const memberConversationsOf = (userId: string): SQL =>
  sql.join(
    MEMBER_CONVERSATIONS.split('@userId').map((part, i) => (i === 0 ? sql.raw(part) : sql`${userId}${sql.raw(part)}`)),
  );

/** The current members of one conversation, as SQL text on `@id` (the same rules as MEMBER_CONVERSATIONS). */
const MEMBERS_OF = `
  SELECT cm.user_id AS "userId" FROM conversation_members cm JOIN conversations c ON c.id = cm.conversation_id
  WHERE cm.conversation_id = @id AND cm.left_at IS NULL AND (c.kind <> 'house'
    OR EXISTS (SELECT 1 FROM users u WHERE u.id = cm.user_id AND ${LIVE_USER} AND ${ADMIN_ROLE}))
  UNION
  SELECT uh.user_id FROM conversations c JOIN user_houses uh ON uh.house = c.house JOIN users u ON u.id = uh.user_id
  WHERE c.id = @id AND c.kind = 'house' AND ${LIVE_USER}`;

const listMemberIdsQuery = preparedFor((db) =>
  statement<{ id: string }, { userId: string }>(db, `${MEMBERS_OF} ORDER BY 1`),
);

/** The current members of a conversation, by id. */
export async function listMemberIds(db: Db, conversationId: string): Promise<string[]> {
  return (await listMemberIdsQuery(db).all({ id: conversationId })).map((r) => r.userId);
}

const isMemberQuery = preparedFor((db) =>
  statement<{ id: string; userId: string }, { n: number }>(
    db,
    `SELECT count(*) AS n FROM (${MEMBER_CONVERSATIONS}) AS mine WHERE id = @id`,
  ),
);

/** Whether a user is in a conversation now. */
export async function isMember(db: Db, conversationId: string, userId: string): Promise<boolean> {
  return (await isMemberQuery(db).get({ id: conversationId, userId }))!.n > 0;
}

const listMemberRowsQuery = preparedFor((db) =>
  db
    .select()
    .from(conversationMembers)
    .where(eq(conversationMembers.conversationId, sql.placeholder('id')))
    .prepare(),
);

/** Every row of a conversation's members, current or not: read marks and mutes (prepared: every send reads it). */
export async function listMemberRows(db: Db, conversationId: string): Promise<MemberRow[]> {
  return await listMemberRowsQuery(db).all({ id: conversationId });
}

const findMemberRowQuery = preparedFor((db) =>
  db
    .select()
    .from(conversationMembers)
    .where(
      and(
        eq(conversationMembers.conversationId, sql.placeholder('id')),
        eq(conversationMembers.userId, sql.placeholder('userId')),
      ),
    )
    .prepare(),
);

export async function findMemberRow(db: Db, conversationId: string, userId: string): Promise<MemberRow | undefined> {
  return await findMemberRowQuery(db).get({ id: conversationId, userId });
}

/** The user's read mark in the conversation the outer query is on (0 without a row). */
const readMarkOf = (userId: string) =>
  sql`coalesce((SELECT cm.read_up_to FROM conversation_members cm WHERE cm.conversation_id = ${conversations.id}
    AND cm.user_id = ${userId}), 0)`;
/** Messages of the conversation from others that `userId` has not read (read along the index). */
const unreadOf = (userId: string) =>
  sql<number>`(SELECT count(*) FROM messages m WHERE m.conversation_id = ${conversations.id}
    AND m.created_at > ${readMarkOf(userId)} AND (m.sender_id IS NULL OR m.sender_id <> ${userId}))`;
/** One-to-one chats: the other side's id (null in groups and house chats). */
const otherIdOf = (userId: string) =>
  sql`CASE WHEN ${conversations.userAId} = ${userId} THEN ${conversations.userBId} ELSE ${conversations.userAId} END`;

const findConversationQuery = preparedFor((db) =>
  db
    .select()
    .from(conversations)
    .where(eq(conversations.id, sql.placeholder('id')))
    .prepare(),
);

export async function findConversation(db: Db, id: string): Promise<ConversationRow | undefined> {
  return await findConversationQuery(db).get({ id });
}

/** The new, empty conversation of two users at `at`: named by the pair, the lower id first (decision 30). */
export function newConversationRow(userId: string, otherUserId: string, at: number): NewConversationRow {
  const [userAId, userBId] = userId < otherUserId ? [userId, otherUserId] : [otherUserId, userId];
  return {
    id: conversationIdOf(userId, otherUserId),
    kind: 'direct',
    name: null,
    house: null,
    createdBy: null,
    userAId,
    userBId,
    lastMessageAt: null,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Stores a conversation and its first members (a direct chat's two unless given) at one sequence. The members' rows
 * start with the conversation's sequence as their access, so a pull brings them everything from there.
 */
export async function insertConversation(
  db: Db,
  row: NewConversationRow,
  memberIds?: readonly string[],
): Promise<void> {
  const members = memberIds ?? [row.userAId, row.userBId].filter((id): id is string => id !== null);
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    await db
      .insert(conversations)
      .values({ ...row, serverSeq })
      .run();
    if (members.length > 0)
      await db
        .insert(conversationMembers)
        .values(members.map((userId) => ({ conversationId: row.id, userId, joinedAt: row.createdAt })))
        .run();
  });
}

/** A member row's key: an upsert's conflict target. */
const memberKey = [conversationMembers.conversationId, conversationMembers.userId];

/** Creates the missing house chats of these houses (at start; decision 143). */
export async function insertHouseChats(db: Db, houses: readonly string[], at: number): Promise<void> {
  await transaction(db, async (db) => {
    for (const house of houses) {
      const id = houseChatIdOf(house);
      if (await findConversation(db, id)) continue;
      await db
        .insert(conversations)
        .values({
          id,
          kind: 'house',
          name: house,
          house,
          createdBy: null,
          userAId: null,
          userBId: null,
          lastMessageAt: null,
          createdAt: at,
          updatedAt: at,
          serverSeq: await nextSeq(db),
        })
        .onConflictDoNothing()
        .run();
    }
  });
}

/**
 * Puts users in (or back in) a conversation: each member row is open again, read up to `readUpTo`, with a new access
 * sequence so their next pull brings the conversation's messages; the conversation moves up the change feed.
 */
export async function joinMembers(
  db: Db,
  conversationId: string,
  userIds: readonly string[],
  at: number,
  readUpTo: number,
) {
  await transaction(db, async (db) => {
    for (const userId of userIds) {
      const accessSeq = await nextSeq(db);
      await db
        .insert(conversationMembers)
        .values({ conversationId, userId, joinedAt: at, leftAt: null, readUpTo, accessSeq })
        .onConflictDoUpdate({
          target: memberKey,
          set: {
            joinedAt: at,
            leftAt: null,
            readUpTo: sql`CASE WHEN ${conversationMembers.readUpTo} >= ${readUpTo} THEN ${conversationMembers.readUpTo} ELSE ${readUpTo} END`,
            accessSeq,
          },
        })
        .run();
    }
    await touchConversation(db, conversationId, at);
  });
}

/**
 * Takes users out of a conversation: each row is closed with a new access sequence, at which their next pull brings
 * tombstones of the conversation and its messages; the conversation moves up the change feed for those who stay.
 */
export async function leaveMembers(
  db: Db,
  conversationId: string,
  userIds: readonly string[],
  at: number,
): Promise<void> {
  await transaction(db, async (db) => {
    // The last message they could see: messages after it are none of theirs, not even as tombstones.
    const leftAt = Math.max(at, (await findConversation(db, conversationId))?.lastMessageAt ?? 0);
    for (const userId of userIds) {
      const accessSeq = await nextSeq(db);
      await db
        .insert(conversationMembers)
        .values({ conversationId, userId, joinedAt: at, leftAt, accessSeq })
        .onConflictDoUpdate({
          target: memberKey,
          set: { leftAt, accessSeq },
        })
        .run();
    }
    await touchConversation(db, conversationId, at);
  });
}

/** Moves a conversation up the change feed (its document changed for its members). */
export async function touchConversation(db: Db, id: string, at: number): Promise<void> {
  await db
    .update(conversations)
    .set({ updatedAt: at, serverSeq: await nextSeq(db) })
    .where(eq(conversations.id, id))
    .run();
}

export async function renameConversation(db: Db, id: string, name: string, at: number): Promise<void> {
  await transaction(db, async (db) => {
    await db.update(conversations).set({ name }).where(eq(conversations.id, id)).run();
    await touchConversation(db, id, at);
  });
}

/** Sets one member's mute (a row is made for a house member who has none); the conversation moves up the feed. */
export async function updateMuted(
  db: Db,
  conversationId: string,
  userId: string,
  muted: boolean,
  at: number,
): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .insert(conversationMembers)
      .values({ conversationId, userId, joinedAt: at, muted })
      .onConflictDoUpdate({ target: memberKey, set: { muted } })
      .run();
    await touchConversation(db, conversationId, at);
  });
}

/** Sets one member's read mark; the conversation moves up the change feed (everyone's "Seen by" changes). */
export async function updateReadMark(
  db: Db,
  conversationId: string,
  userId: string,
  upTo: number,
  at: number,
): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .insert(conversationMembers)
      .values({ conversationId, userId, joinedAt: at, readUpTo: upTo })
      .onConflictDoUpdate({
        target: memberKey,
        set: { readUpTo: upTo },
      })
      .run();
    await touchConversation(db, conversationId, at);
  });
}

/** A user's conversations with the other side, the last message and the unread count, newest first. */
export async function listConversationsOf(db: Db, userId: string, onlyId?: string): Promise<ConversationListRow[]> {
  const mine = sql`${conversations.id} IN (${memberConversationsOf(userId)})`;
  return await db
    .select({
      conversation: conversations,
      other: otherColumns,
      lastContent: sql<string | null>`(SELECT m.content FROM messages m WHERE m.conversation_id = ${conversations.id}
        ORDER BY m.created_at DESC LIMIT 1)`,
      unread: unreadOf(userId),
    })
    .from(conversations)
    .leftJoin(users, and(eq(conversations.kind, 'direct'), eq(users.id, otherIdOf(userId))))
    .where(onlyId ? and(mine, eq(conversations.id, onlyId)) : mine)
    .orderBy(desc(sql`coalesce(${conversations.lastMessageAt}, ${conversations.createdAt})`), asc(conversations.id))
    .all();
}

/** Messages from others a user has not read, across their conversations. */
export async function countUnreadOf(db: Db, userId: string): Promise<number> {
  const row = await db
    .select({ n: sql<number>`coalesce(sum(${unreadOf(userId)}), 0)` })
    .from(conversations)
    .where(sql`${conversations.id} IN (${memberConversationsOf(userId)})`)
    .get();
  return row?.n ?? 0;
}

const findMessageQuery = preparedFor((db) =>
  db
    .select()
    .from(messages)
    .where(eq(messages.id, sql.placeholder('id')))
    .prepare(),
);

export async function findMessage(db: Db, id: string): Promise<MessageRow | undefined> {
  return await findMessageQuery(db).get({ id });
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

export async function findMessageWithSender(db: Db, id: string): Promise<MessageWithSender | undefined> {
  return await findMessageWithSenderQuery(db).get({ id });
}

/**
 * The newest `limit` messages of a conversation, newest first, older than `before` (a message's time and id)
 * when given: read backwards along the (conversation, time) index.
 */
export async function listMessagesOf(
  db: Db,
  conversationId: string,
  limit: number,
  before?: Pick<MessageRow, 'createdAt' | 'id'>,
): Promise<MessageWithSender[]> {
  const older = before
    ? and(
        lte(messages.createdAt, before.createdAt),
        or(lt(messages.createdAt, before.createdAt), lt(messages.id, before.id)),
      )
    : undefined;
  return await db
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
      mentions: sql.placeholder('mentions'),
      images: sql.placeholder('images'),
      attachments: sql.placeholder('attachments'),
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

/**
 * Stores a message and moves its conversation's last-message time, at one sequence. Call it inside the transaction
 * that read the conversation and chose `createdAt` after its last message: writers run one at a time, so nothing has
 * moved it since.
 */
export async function insertMessage(db: Db, row: NewMessageRow): Promise<MessageRow> {
  const values = {
    ...row,
    mentions: row.mentions ?? '[]',
    images: row.images ?? '[]',
    attachments: row.attachments ?? '[]',
    serverSeq: await nextSeq(db),
  };
  // Prepared on the transaction's handle: the app's would wait for this transaction for ever (SQLite).
  const queries = insertMessageQueries(db);
  await queries.message.run(values);
  await queries.conversation.run(values);
  return values;
}

/**
 * Before an account is deleted: its conversations (`conversationIds`, those it is in) and the messages it sent move up
 * the change feed, so the others pull them again with the account gone (the foreign keys set it to null and drop its
 * member rows).
 */
export async function releaseParticipant(db: Db, userId: string, conversationIds: readonly string[]): Promise<void> {
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    await db
      .update(conversations)
      .set({ serverSeq })
      .where(or(eq(conversations.createdBy, userId), inArray(conversations.id, [...conversationIds])))
      .run();
    await db.update(messages).set({ serverSeq }).where(eq(messages.senderId, userId)).run();
  });
}

/** A row of a user's change feed: the id, its place in that user's feed, and whether they are in it now. */
export interface FeedRow {
  id: string;
  seq: number;
  visible: number;
}

/** Parameters of the feeds below: the users as one JSON array, their checkpoint and the page's length for each. */
type FeedParams = {
  userIds: string;
  seq: number;
  id: string;
  limit: number;
};

/**
 * The users (`who`), the conversations each is in now (`mine`) and each one's member rows (`access`), as the feeds
 * below start: one read for many users, as a house chat's change event reads for its members.
 */
const feedUsers = (db: Db) => `
  who(user_id) AS (SELECT value FROM ${jsonValues(db, '@userIds')}),
  mine(user_id, id) AS (${memberConversationsSql('IN (SELECT user_id FROM who)', true)}),
  access AS (
    SELECT user_id, conversation_id, access_seq, left_at FROM conversation_members
    WHERE user_id IN (SELECT user_id FROM who))`;

/** Each user's page of a feed (user_id, id, seq, visible) after the checkpoint, in the feed's order (seq, id). */
const FEED_PAGES = `
  SELECT user_id, id, seq, visible FROM (
    SELECT user_id, id, seq, visible, row_number() OVER (PARTITION BY user_id ORDER BY seq, id) AS n
    FROM feed WHERE (seq, id) > (@seq, @id)) AS numbered
  WHERE n <= @limit ORDER BY user_id, seq, id`;

/** The later of two sequences, neither null: SQLite's two-argument max, which PostgreSQL does not have. */
const later = (a: string, b: string) => `CASE WHEN ${a} >= ${b} THEN ${a} ELSE ${b} END`;

type FeedQuery = (db: Db) => Statement<FeedParams, FeedRow & { user_id: string }>;

/** Reads a feed for users: each one's page after a checkpoint, at most `limit` long; a user with none is left out. */
function feedsOf(query: FeedQuery) {
  return async (
    db: Db,
    userIds: readonly string[],
    seq: number,
    id: string,
    limit: number,
  ): Promise<Map<string, FeedRow[]>> => {
    const pages = new Map<string, FeedRow[]>();
    for (const row of await query(db).all({ userIds: JSON.stringify(userIds), seq, id, limit })) {
      let page = pages.get(row.user_id);
      if (!page) pages.set(row.user_id, (page = []));
      page.push({ id: row.id, seq: row.seq, visible: row.visible });
    }
    return pages;
  };
}

/**
 * Users' conversations after a checkpoint, in their feed's order (decision 143): those they are in, at the later of
 * the conversation's sequence and their joining; those they left, at their leaving only (tombstones, by the caller).
 */
const listConversationFeedsQuery = preparedFor((db) =>
  statement<FeedParams, FeedRow & { user_id: string }>(
    db,
    `WITH ${feedUsers(db)},
     feed AS (
       SELECT mine.user_id, c.id AS id, ${later('c.server_seq', 'coalesce(a.access_seq, 0)')} AS seq, 1 AS visible
       FROM mine JOIN conversations c ON c.id = mine.id
       LEFT JOIN access a ON a.conversation_id = c.id AND a.user_id = mine.user_id
       UNION ALL
       SELECT a.user_id, a.conversation_id, a.access_seq, 0 FROM access a
       WHERE NOT EXISTS (SELECT 1 FROM mine WHERE mine.user_id = a.user_id AND mine.id = a.conversation_id))
     ${FEED_PAGES}`,
  ),
);

export const listConversationFeeds = feedsOf(listConversationFeedsQuery);

/**
 * The messages of users' feeds after a checkpoint (decision 143): of the conversations they are in, changed since or
 * all of one they joined since (at the later of the two sequences); of those they left since, every message up to their
 * leaving, at it (tombstones, by the caller). Each branch reads along an index; the feed's order is (seq, id).
 */
const listMessageFeedsQuery = preparedFor((db) =>
  statement<FeedParams, FeedRow & { user_id: string }>(
    db,
    `WITH ${feedUsers(db)},
     feed AS (
       SELECT mine.user_id, m.id AS id, ${later('m.server_seq', 'coalesce(a.access_seq, 0)')} AS seq, 1 AS visible
       FROM mine JOIN messages m ON m.conversation_id = mine.id AND m.server_seq >= @seq
       LEFT JOIN access a ON a.conversation_id = m.conversation_id AND a.user_id = mine.user_id
       UNION
       SELECT a.user_id, m.id, ${later('m.server_seq', 'a.access_seq')}, 1
       FROM access a JOIN mine ON mine.user_id = a.user_id AND mine.id = a.conversation_id
       JOIN messages m ON m.conversation_id = a.conversation_id
       WHERE a.access_seq >= @seq
       UNION ALL
       SELECT a.user_id, m.id, a.access_seq, 0
       FROM access a JOIN messages m ON m.conversation_id = a.conversation_id AND m.created_at <= a.left_at
       WHERE a.access_seq >= @seq
         AND NOT EXISTS (SELECT 1 FROM mine WHERE mine.user_id = a.user_id AND mine.id = a.conversation_id))
     ${FEED_PAGES}`,
  ),
);

export const listMessageFeeds = feedsOf(listMessageFeedsQuery);

export async function listConversationsByIds(db: Db, ids: readonly string[]): Promise<ConversationRow[]> {
  if (ids.length === 0) return [];
  return await db
    .select()
    .from(conversations)
    .where(inArray(conversations.id, [...ids]))
    .all();
}

export async function listMessagesByIds(db: Db, ids: readonly string[]): Promise<MessageRow[]> {
  if (ids.length === 0) return [];
  return await db
    .select()
    .from(messages)
    .where(inArray(messages.id, [...ids]))
    .all();
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

export async function findChatUser(db: Db, id: string): Promise<ChatUserRow | undefined> {
  return await db.select(chatUserColumns).from(users).where(eq(users.id, id)).get();
}

export async function listChatUsers(db: Db, ids: readonly string[]): Promise<ChatUserRow[]> {
  if (ids.length === 0) return [];
  return await db
    .select(chatUserColumns)
    .from(users)
    .where(inArray(users.id, [...ids]))
    .all();
}

/** Every active colleague but oneself, by name (pending registrations are not staff yet). */
export async function listActiveUsersExcept(db: Db, userId: string): Promise<ChatUserRow[]> {
  return await db
    .select(chatUserColumns)
    .from(users)
    .where(and(ne(users.id, userId), eq(users.isActive, true), eq(users.pendingApproval, false)))
    .orderBy(asc(users.firstName), asc(users.lastName), asc(users.id))
    .all();
}

/** The house chats whose rows say a user is in them (open rows), for closing those they may no longer be in. */
export async function listOpenHouseRowsOf(
  db: Db,
  userId: string,
): Promise<{ conversationId: string; house: string }[]> {
  return (
    await db
      .select({ conversationId: conversationMembers.conversationId, house: conversations.house })
      .from(conversationMembers)
      .innerJoin(conversations, eq(conversations.id, conversationMembers.conversationId))
      .where(
        and(
          eq(conversationMembers.userId, userId),
          isNull(conversationMembers.leftAt),
          eq(conversations.kind, 'house'),
        ),
      )
      .all()
  ).map((r) => ({ conversationId: r.conversationId, house: r.house ?? '' }));
}
