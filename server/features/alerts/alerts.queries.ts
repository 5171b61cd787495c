import { and, asc, desc, eq, inArray, isNull, lte, sql, type SQL } from 'drizzle-orm';
import { dialectOf, jsonValues, preparedFor, statement, type Db, transaction } from '../../db/client';
import { acknowledgements, posts, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type AcknowledgementRow = typeof acknowledgements.$inferSelect;

/** The alert side of a post: what deciding its audience and listing it needs. */
export interface AlertPostRow {
  id: string;
  authorId: string | null;
  category: string;
  content: string;
  isUrgent: boolean;
  requiresConfirmation: boolean;
  confirmBy: string | null;
  deleted: boolean;
  audienceHouses: string;
  createdAt: number;
  authorFirstName: string | null;
  authorLastName: string | null;
}

const alertPostColumns = {
  id: posts.id,
  authorId: posts.authorId,
  category: posts.category,
  content: posts.content,
  isUrgent: posts.isUrgent,
  requiresConfirmation: posts.requiresConfirmation,
  confirmBy: posts.confirmBy,
  deleted: posts.deleted,
  audienceHouses: posts.audienceHouses,
  createdAt: posts.createdAt,
  authorFirstName: users.firstName,
  authorLastName: users.lastName,
};

/** Only acknowledgements of live urgent posts count (an alert whose post was deleted or made ordinary is over). */
const liveAlert: SQL = and(eq(posts.deleted, false), eq(posts.isUrgent, true)) as SQL;

/** Read for every post written (announcePost), pushes of offline posts included: prepared once (decision 78). */
const findAlertPostQuery = preparedFor((db) =>
  db
    .select(alertPostColumns)
    .from(posts)
    .leftJoin(users, eq(users.id, posts.authorId))
    .where(eq(posts.id, sql.placeholder('postId')))
    .prepare(),
);

export async function findAlertPost(db: Db, postId: string): Promise<AlertPostRow | undefined> {
  return await findAlertPostQuery(db).get({ postId });
}

/** A bound JSON array: PostgreSQL reads a parameter as json only when told. */
const json = (db: Db, param: string) => (dialectOf(db) === 'postgres' ? `CAST(${param} AS json)` : param);

/** Read for each urgent post's audience of up to thousands: the ids alone, prepared once (decision 78). */
const listAudienceIdsQuery = preparedFor((db) =>
  statement<{ houses: string; except: string | null }>(
    db,
    `SELECT id FROM users WHERE is_active AND NOT pending_approval AND id IS DISTINCT FROM @except
       AND (json_array_length(${json(db, '@houses')}) = 0
         OR id IN (SELECT user_id FROM user_houses WHERE house IN (SELECT value FROM ${jsonValues(db, '@houses')})))`,
  ),
);

/**
 * Who an alert goes to: active staff (pending registrations are not staff yet) in any of the houses, or
 * everyone when no house is chosen; never the author.
 */
export async function listAudienceIds(db: Db, houses: string[], exceptUserId: string | null): Promise<string[]> {
  return listAudienceIdsQuery(db).pluck<string>({ houses: JSON.stringify(houses), except: exceptUserId });
}

export async function listAcknowledgementsOfPost(db: Db, postId: string): Promise<AcknowledgementRow[]> {
  return await db.select().from(acknowledgements).where(eq(acknowledgements.postId, postId)).all();
}

/** What a post asks of each member of its audience (decision 136). */
export interface AudienceAsk {
  /** It is urgent: the row is an alert to acknowledge. */
  alert: boolean;
  /** It requires confirmation: acknowledging the row confirms reading it. */
  confirm: boolean;
}

/**
 * An urgent post's rows for its whole audience in one statement: the user ids go as one JSON array, in id order so
 * that the rows' keys are written in order.
 */
const insertAudienceRows = preparedFor((db) =>
  statement<{
    postId: string;
    userIds: string;
    at: number;
    serverSeq: number;
    alert: number;
    confirm: number;
  }>(
    db,
    `INSERT INTO acknowledgements (id, post_id, user_id, created_at, deleted, server_seq, alert, confirm)
     SELECT @postId || ':' || value, @postId, value, @at, FALSE, @serverSeq, @alert, @confirm
     FROM ${jsonValues(db, '@userIds')} ORDER BY value`,
  ),
);

/**
 * One change of a post's audience at one sequence: new members get their row, members who come back get theirs
 * again as a fresh request, rows that become an alert are raised as fresh alerts, rows that keep their member
 * take what the post now asks, and members no longer addressed lose the rows they have not acknowledged.
 */
export async function applyAudienceChange(
  db: Db,
  postId: string,
  change: { add: string[]; revive: string[]; raise: string[]; reflag: string[]; withdraw: string[] },
  ask: AudienceAsk,
  at: number,
): Promise<void> {
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    if (change.add.length > 0) {
      await insertAudienceRows(db).run({
        postId,
        userIds: JSON.stringify(change.add),
        at,
        serverSeq,
        alert: Number(ask.alert),
        confirm: Number(ask.confirm),
      });
    }
    const fresh = { createdAt: at, remindedAt: null, viewedAt: null, ...ask, serverSeq };
    if (change.revive.length > 0) {
      await db
        .update(acknowledgements)
        .set({ ...fresh, deleted: false, confirmReminders: 0, confirmRemindedAt: null })
        .where(inArray(acknowledgements.id, change.revive))
        .run();
    }
    if (change.raise.length > 0) {
      await db.update(acknowledgements).set(fresh).where(inArray(acknowledgements.id, change.raise)).run();
    }
    if (change.reflag.length > 0) {
      // Not part of the synced document: no new sequence. A confirmation asked again starts its reminders afresh.
      await db
        .update(acknowledgements)
        .set({
          ...ask,
          confirmReminders: sql`CASE WHEN ${acknowledgements.confirm} THEN ${acknowledgements.confirmReminders} ELSE 0 END`,
        })
        .where(inArray(acknowledgements.id, change.reflag))
        .run();
    }
    if (change.withdraw.length > 0) {
      await db
        .update(acknowledgements)
        .set({ deleted: true, serverSeq })
        .where(and(inArray(acknowledgements.id, change.withdraw), isNull(acknowledgements.acknowledgedAt)))
        .run();
    }
  });
}

export async function findAcknowledgement(db: Db, id: string): Promise<AcknowledgementRow | undefined> {
  return await db.select().from(acknowledgements).where(eq(acknowledgements.id, id)).get();
}

/** Records an acknowledgement, received `at` and made `writtenAt` (which also counts as seen in the bell). */
export async function updateAcknowledged(db: Db, id: string, at: number, writtenAt: number): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .update(acknowledgements)
      .set({
        acknowledgedAt: at,
        writtenAt,
        viewedAt: sql`coalesce(${acknowledgements.viewedAt}, ${at})`,
        serverSeq: await nextSeq(db),
      })
      .where(eq(acknowledgements.id, id))
      .run();
  });
}

/** Marks as seen a user's alerts among these posts (live urgent ones); answers how many changed. */
export async function updateViewed(db: Db, userId: string, postIds: string[], at: number): Promise<number> {
  if (postIds.length === 0) return 0;
  return transaction(db, async (db) => {
    const live = db
      .select({ id: posts.id })
      .from(posts)
      .where(and(inArray(posts.id, postIds), liveAlert));
    const result = await db
      .update(acknowledgements)
      .set({ viewedAt: at, serverSeq: await nextSeq(db) })
      .where(
        and(
          eq(acknowledgements.userId, userId),
          inArray(acknowledgements.postId, live),
          isNull(acknowledgements.viewedAt),
          eq(acknowledgements.deleted, false),
        ),
      )
      .run();
    return result.changes;
  });
}

/** The bell's badge: the user's live alerts not yet seen. */
export async function countUnviewed(db: Db, userId: string): Promise<number> {
  const row = await db
    .select({ n: sql<number>`count(*)` })
    .from(acknowledgements)
    .innerJoin(posts, eq(posts.id, acknowledgements.postId))
    .where(
      and(
        eq(acknowledgements.userId, userId),
        eq(acknowledgements.deleted, false),
        isNull(acknowledgements.viewedAt),
        liveAlert,
      ),
    )
    .get();
  return row?.n ?? 0;
}

/** The user's live alerts not yet acknowledged, newest post first, with their authors. */
export async function listUnacknowledged(db: Db, userId: string): Promise<AlertPostRow[]> {
  return await db
    .select(alertPostColumns)
    .from(acknowledgements)
    .innerJoin(posts, eq(posts.id, acknowledgements.postId))
    .leftJoin(users, eq(users.id, posts.authorId))
    .where(
      and(
        eq(acknowledgements.userId, userId),
        eq(acknowledgements.deleted, false),
        isNull(acknowledgements.acknowledgedAt),
        liveAlert,
      ),
    )
    .orderBy(desc(posts.createdAt), desc(posts.id))
    .all();
}

export interface ReportRow {
  userId: string;
  firstName: string;
  lastName: string;
  isActive: boolean;
  createdAt: number;
  acknowledgedAt: number | null;
  writtenAt: number | null;
  remindedAt: number | null;
  confirmReminders: number;
  /** The member's houses joined by U+001F, in no order; null for none. */
  houseList: string | null;
}

/**
 * A post's audience with each member's acknowledgement or confirmation and reminders, by name (both reports), with
 * the houses in the same read: one query for a report of thousands, not a second one of (member, house) pairs. Read
 * as arrays and named here: the cheapest way to thousands of rows, cheaper than the driver's objects or drizzle's.
 */
const reportRowsQuery = preparedFor((db) =>
  statement<{ postId: string }>(
    db,
    `SELECT u.id, u.first_name, u.last_name, u.is_active, a.created_at, a.acknowledged_at, a.written_at,
              a.reminded_at, a.confirm_reminders,
              (SELECT ${dialectOf(db) === 'postgres' ? 'string_agg(h.house, chr(31))' : 'group_concat(h.house, char(31))'}
                 FROM user_houses h WHERE h.user_id = u.id)
       FROM acknowledgements a JOIN users u ON u.id = a.user_id
       WHERE a.post_id = @postId AND NOT a.deleted
       ORDER BY u.first_name, u.last_name, u.id`,
  ),
);

/** Prepared: a report of a post to every member of staff reads thousands of rows while an admin waits. */
export async function listReportRows(db: Db, postId: string): Promise<ReportRow[]> {
  return ((await reportRowsQuery(db).rows({ postId })) as ReportRowValues[]).map((r) => ({
    userId: r[0],
    firstName: r[1],
    lastName: r[2],
    isActive: r[3] === 1,
    createdAt: r[4],
    acknowledgedAt: r[5],
    writtenAt: r[6],
    remindedAt: r[7],
    confirmReminders: r[8],
    houseList: r[9],
  }));
}

/** The query's columns, in their order. */
type ReportRowValues = [
  string,
  string,
  string,
  number,
  number,
  number | null,
  number | null,
  number | null,
  number,
  string | null,
];

export interface DueReminderRow {
  id: string;
  postId: string;
  userId: string;
  authorFirstName: string | null;
}

/** Open alerts older than `alertedBefore` whose member is active and has not been reminded, oldest first. */
export async function listDueReminders(db: Db, alertedBefore: number, limit: number): Promise<DueReminderRow[]> {
  // As each engine's index predicate says it: SQLite matches a partial index's terms as written.
  const notDeleted = sql.raw(dialectOf(db) === 'postgres' ? 'FALSE' : '0');
  return await db
    .select({
      id: acknowledgements.id,
      postId: acknowledgements.postId,
      userId: acknowledgements.userId,
      authorFirstName: sql<string | null>`(SELECT first_name FROM users a WHERE a.id = ${posts.authorId})`,
    })
    .from(acknowledgements)
    .innerJoin(posts, eq(posts.id, acknowledgements.postId))
    .innerJoin(users, eq(users.id, acknowledgements.userId))
    .where(
      and(
        // Written out so the partial index acknowledgements_due_idx applies.
        sql`${acknowledgements.acknowledgedAt} IS NULL AND ${acknowledgements.remindedAt} IS NULL AND ${acknowledgements.deleted} = ${notDeleted}`,
        lte(acknowledgements.createdAt, alertedBefore),
        liveAlert,
        eq(users.isActive, true),
      ),
    )
    .orderBy(asc(acknowledgements.createdAt))
    .limit(limit)
    .all();
}

/**
 * Marks reminders as sent where none was yet and the alert is still open, answering the ids this call marked: of two
 * checks at once, each reminder is claimed by one (not part of the synced document: no new sequence).
 */
export async function claimReminders(db: Db, ids: string[], at: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const claimed = await db
    .update(acknowledgements)
    .set({ remindedAt: at })
    .where(
      and(
        inArray(acknowledgements.id, ids),
        isNull(acknowledgements.remindedAt),
        isNull(acknowledgements.acknowledgedAt),
      ),
    )
    .returning({ id: acknowledgements.id })
    .all();
  return claimed.map((row) => row.id);
}

const listAcknowledgementsSinceQuery = preparedFor((db) =>
  db
    .select()
    .from(acknowledgements)
    .where(
      and(
        eq(acknowledgements.userId, sql.placeholder('userId')),
        sql`(${acknowledgements.serverSeq}, ${acknowledgements.id}) > (${sql.placeholder('seq')}, ${sql.placeholder('id')})`,
      ),
    )
    .orderBy(asc(acknowledgements.serverSeq), asc(acknowledgements.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/** What an alert-list document is made of (toAcknowledgementDoc), with its sequence. */
export type AcknowledgementDocRow = Pick<
  AcknowledgementRow,
  'id' | 'postId' | 'userId' | 'createdAt' | 'acknowledgedAt' | 'writtenAt' | 'viewedAt' | 'deleted' | 'serverSeq'
>;

/** The query's columns, in their order. */
type DocRowValues = [string, string, string, number, number | null, number | null, number | null, number, number];

// Only the document's columns, as arrays named here: an urgent post's event reads its whole audience's rows at once.
const listAllAcknowledgementsSinceQuery = preparedFor((db) =>
  statement<{ seq: number }>(
    db,
    `SELECT id, post_id, user_id, created_at, acknowledged_at, written_at, viewed_at, deleted, server_seq
       FROM acknowledgements WHERE server_seq > @seq ORDER BY server_seq, id`,
  ),
);

/** Every user's alert-list rows changed after a sequence, in feed order: one read for an urgent post's audience. */
export async function listAllAcknowledgementsSince(db: Db, seq: number): Promise<AcknowledgementDocRow[]> {
  return ((await listAllAcknowledgementsSinceQuery(db).rows({ seq })) as DocRowValues[]).map((r) => ({
    id: r[0],
    postId: r[1],
    userId: r[2],
    createdAt: r[3],
    acknowledgedAt: r[4],
    writtenAt: r[5],
    viewedAt: r[6],
    deleted: r[7] === 1,
    serverSeq: r[8],
  }));
}

/**
 * A user's alert list changed after a checkpoint, in feed order. Prepared: an urgent post's change event reads it for
 * every member of its audience (decision 131).
 */
export function listAcknowledgementsSince(db: Db, userId: string, seq: number, id: string, limit: number) {
  return listAcknowledgementsSinceQuery(db).all({ userId, seq, id, limit });
}
