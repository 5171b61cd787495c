import { and, asc, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Role } from '../../../schema/role-rules';
import { preparedFor, statement, type Db, transaction } from '../../db/client';
import { mentionEntries, userHouses, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type MentionEntryRow = typeof mentionEntries.$inferSelect;

/** A colleague a mention may tell: active, approved, with their role and houses. */
export interface MentionableUser {
  id: string;
  role: Role;
  houses: string[];
}

/** Of these ids, the active approved colleagues', with their role and houses (one read each). */
export async function listMentionableUsers(db: Db, ids: string[], houses: string[]): Promise<MentionableUser[]> {
  if (ids.length === 0 && houses.length === 0) return [];
  const inHouses = db.select({ id: userHouses.userId }).from(userHouses).where(inArray(userHouses.house, houses));
  const rows = await db
    .select({ id: users.id, role: users.role })
    .from(users)
    .where(
      and(
        eq(users.isActive, true),
        eq(users.pendingApproval, false),
        or(inArray(users.id, ids), inArray(users.id, inHouses)),
      ),
    )
    .all();
  const housesOf = new Map<string, string[]>();
  if (rows.length > 0) {
    const pairs = await db
      .select({ userId: userHouses.userId, house: userHouses.house })
      .from(userHouses)
      .where(
        inArray(
          userHouses.userId,
          rows.map((row) => row.id),
        ),
      )
      .all();
    for (const pair of pairs) housesOf.set(pair.userId, [...(housesOf.get(pair.userId) ?? []), pair.house]);
  }
  return rows.map((row) => ({ id: row.id, role: row.role, houses: housesOf.get(row.id) ?? [] }));
}

/** The ids of the active approved colleagues among these (unknown, deactivated and pending ones are left out). */
export async function listActiveUserIds(db: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return (
    await db
      .select({ id: users.id })
      .from(users)
      .where(and(inArray(users.id, ids), eq(users.isActive, true), eq(users.pendingApproval, false)))
      .all()
  ).map((row) => row.id);
}

/**
 * Adds the entries that do not exist yet, at one sequence; answers the users whose entry is new. An entry once made
 * (viewed, or withdrawn with its comment) is never made again, so a person is told once (decision 144).
 */
export async function insertMentionEntries(
  db: Db,
  entry: MentionEntrySource & { mentionedBy: string | null; at: number },
  userIds: string[],
): Promise<string[]> {
  if (userIds.length === 0) return [];
  return transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    const insert = statement(
      db,
      `INSERT INTO mention_entries (id, user_id, post_id, comment_id, conversation_id, message_id, mentioned_by,
         created_at, deleted, server_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, FALSE, ?) ON CONFLICT (id) DO NOTHING`,
    );
    const inMessage = 'messageId' in entry;
    const source = inMessage ? entry.messageId : (entry.commentId ?? entry.postId);
    const added: string[] = [];
    for (const userId of userIds) {
      const changes = await insert.run([
        mentionEntryId(source, userId),
        userId,
        inMessage ? null : entry.postId,
        inMessage ? null : entry.commentId,
        inMessage ? entry.conversationId : null,
        inMessage ? entry.messageId : null,
        entry.mentionedBy,
        entry.at,
        serverSeq,
      ]);
      if (changes === 1) added.push(userId);
    }
    return added;
  });
}

/** Where a mention was made: a post or one of its comments, or a chat message (decision 150). */
export type MentionEntrySource =
  { postId: string; commentId: string | null } | { conversationId: string; messageId: string };

/** The id of a user's entry for a mention in a post or comment. */
export function mentionEntryId(sourceId: string, userId: string): string {
  return `mention:${sourceId}:${userId}`;
}

/** Tombstones the live entries of a post (all its comments' too) or of one comment; answers whose changed. */
export async function markMentionEntriesDeleted(
  db: Db,
  of: { postId: string } | { commentId: string },
): Promise<string[]> {
  return await transaction(db, async (db) => {
    const where = and(
      'postId' in of ? eq(mentionEntries.postId, of.postId) : eq(mentionEntries.commentId, of.commentId),
      eq(mentionEntries.deleted, false),
    );
    const userIds = await db.select({ userId: mentionEntries.userId }).from(mentionEntries).where(where).all();
    if (userIds.length === 0) return [];
    await db
      .update(mentionEntries)
      .set({ deleted: true, serverSeq: await nextSeq(db) })
      .where(where)
      .run();
    return [...new Set(userIds.map((row) => row.userId))];
  });
}

export async function findMentionEntry(db: Db, id: string): Promise<MentionEntryRow | undefined> {
  return await db.select().from(mentionEntries).where(eq(mentionEntries.id, id)).get();
}

/** Marks a user's own live entry as seen once; answers whether it changed. */
export async function updateMentionViewed(db: Db, id: string, userId: string, at: number): Promise<boolean> {
  return transaction(
    db,
    async (db) =>
      (
        await db
          .update(mentionEntries)
          .set({ viewedAt: at, serverSeq: await nextSeq(db) })
          .where(
            and(
              eq(mentionEntries.id, id),
              eq(mentionEntries.userId, userId),
              isNull(mentionEntries.viewedAt),
              eq(mentionEntries.deleted, false),
            ),
          )
          .run()
      ).changes === 1,
  );
}

/** The bell's badge part: the user's live entries not yet seen. */
export async function countUnviewedMentions(db: Db, userId: string): Promise<number> {
  const row = await db
    .select({ n: sql<number>`count(*)` })
    .from(mentionEntries)
    .where(and(eq(mentionEntries.userId, userId), eq(mentionEntries.deleted, false), isNull(mentionEntries.viewedAt)))
    .get();
  return row?.n ?? 0;
}

const listMentionEntriesSinceQuery = preparedFor((db) =>
  db
    .select()
    .from(mentionEntries)
    .where(
      and(
        eq(mentionEntries.userId, sql.placeholder('userId')),
        sql`(${mentionEntries.serverSeq}, ${mentionEntries.id}) > (${sql.placeholder('seq')}, ${sql.placeholder('id')})`,
      ),
    )
    .orderBy(asc(mentionEntries.serverSeq), asc(mentionEntries.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/** A user's entries changed after a checkpoint, in feed order. */
export function listMentionEntriesSince(db: Db, userId: string, seq: number, id: string, limit: number) {
  return listMentionEntriesSinceQuery(db).all({ userId, seq, id, limit });
}

/** Every user's entries changed after a sequence, in feed order (a change event for several users). */
export async function listAllMentionEntriesSince(db: Db, seq: number): Promise<MentionEntryRow[]> {
  return await db
    .select()
    .from(mentionEntries)
    .where(sql`${mentionEntries.serverSeq} > ${seq}`)
    .orderBy(asc(mentionEntries.serverSeq), asc(mentionEntries.id))
    .all();
}
