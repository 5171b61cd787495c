import { and, asc, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import { jsonValues, statement, type Db, transaction } from '../../db/client';
import {
  handoverAccess,
  handoverAddenda,
  handoverReads,
  handovers,
  handoverViews,
  userHouses,
  users,
} from '../../db/tables';
import { hasOpeningBetween } from '../../lib/openings.queries';
import { nextSeq } from '../../lib/seq.queries';

export type HandoverRow = typeof handovers.$inferSelect;
export type NewHandoverRow = Omit<HandoverRow, 'serverSeq' | 'correctedAt' | 'hidden' | 'hiddenAt' | 'hiddenBy'>;
export type AddendumRow = typeof handoverAddenda.$inferSelect;
export type ReadRow = typeof handoverReads.$inferSelect;
export type HandoverViewRow = typeof handoverViews.$inferSelect;

/** A person as notes name them; the columns are null once the account is deleted. */
export interface PersonRow {
  id: string;
  firstName: string;
  lastName: string;
}

export async function findHandover(db: Db, id: string): Promise<HandoverRow | undefined> {
  return await db.select().from(handovers).where(eq(handovers.id, id)).get();
}

export async function insertHandover(db: Db, row: NewHandoverRow): Promise<void> {
  await db
    .insert(handovers)
    .values({ ...row, serverSeq: await nextSeq(db) })
    .run();
}

/** Changes a note and moves it up the change feed, so every device that may see it pulls it again. */
export async function updateHandover(
  db: Db,
  id: string,
  changes: Partial<
    Pick<
      HandoverRow,
      'shift' | 'content' | 'residentIds' | 'correctedAt' | 'hidden' | 'hiddenAt' | 'hiddenBy' | 'updatedAt'
    >
  >,
): Promise<void> {
  await db
    .update(handovers)
    .set({ ...changes, serverSeq: await nextSeq(db) })
    .where(eq(handovers.id, id))
    .run();
}

/** Moves a note up the change feed (an addendum or a read changed what its document carries). */
export async function bumpHandover(db: Db, id: string, at: number): Promise<void> {
  await db
    .update(handovers)
    .set({
      // The later of one past the stored time and `at`, in words both engines read (no two-argument max).
      updatedAt: sql`CASE WHEN ${handovers.updatedAt} + 1 >= ${at} THEN ${handovers.updatedAt} + 1 ELSE ${at} END`,
      serverSeq: await nextSeq(db),
    })
    .where(eq(handovers.id, id))
    .run();
}

/** A house's notes, newest first, before the cursor `(createdAt, id)`; hidden ones only when asked. */
export async function listHouseHandovers(
  db: Db,
  house: string,
  before: { createdAt: number; id: string } | null,
  withHidden: boolean,
  limit: number,
): Promise<HandoverRow[]> {
  const conditions = [eq(handovers.house, house)];
  if (!withHidden) conditions.push(eq(handovers.hidden, false));
  if (before)
    conditions.push(
      or(
        lt(handovers.createdAt, before.createdAt),
        and(eq(handovers.createdAt, before.createdAt), lt(handovers.id, before.id)),
      )!, // or() of two conditions is never undefined
    );
  return await db
    .select()
    .from(handovers)
    .where(and(...conditions))
    .orderBy(desc(handovers.createdAt), desc(handovers.id))
    .limit(limit)
    .all();
}

export async function findAddendum(db: Db, id: string): Promise<AddendumRow | undefined> {
  return await db.select().from(handoverAddenda).where(eq(handoverAddenda.id, id)).get();
}

export async function insertAddendum(db: Db, row: AddendumRow): Promise<void> {
  await db.insert(handoverAddenda).values(row).run();
}

/** The addenda of these notes, oldest first. */
export async function listAddenda(db: Db, handoverIds: string[]): Promise<AddendumRow[]> {
  if (handoverIds.length === 0) return [];
  return await db
    .select()
    .from(handoverAddenda)
    .where(inArray(handoverAddenda.handoverId, handoverIds))
    .orderBy(asc(handoverAddenda.createdAt), asc(handoverAddenda.id))
    .all();
}

/** Records a read once; answers whether it was new. */
export async function insertRead(db: Db, row: ReadRow): Promise<boolean> {
  return (await db.insert(handoverReads).values(row).onConflictDoNothing().run()).changes > 0;
}

/** The reads of these notes, in the order they were read. */
export async function listReads(db: Db, handoverIds: string[]): Promise<ReadRow[]> {
  if (handoverIds.length === 0) return [];
  return await db
    .select()
    .from(handoverReads)
    .where(inArray(handoverReads.handoverId, handoverIds))
    .orderBy(asc(handoverReads.readAt), asc(handoverReads.userId))
    .all();
}

/** The names of these users (deleted accounts are left out). */
export async function listPeople(db: Db, ids: string[]): Promise<PersonRow[]> {
  if (ids.length === 0) return [];
  return await db
    .select({ id: users.id, firstName: users.firstName, lastName: users.lastName })
    .from(users)
    .where(inArray(users.id, ids))
    .all();
}

/** The active accounts that work in a house, by name: the people a note's "on shift" counts from (decision 138). */
export async function listHouseMembers(db: Db, house: string): Promise<PersonRow[]> {
  return await db
    .select({ id: users.id, firstName: users.firstName, lastName: users.lastName })
    .from(userHouses)
    .innerJoin(users, eq(users.id, userHouses.userId))
    .where(and(eq(userHouses.house, house), eq(users.isActive, true)))
    .orderBy(asc(users.lastName), asc(users.firstName), asc(users.id))
    .all();
}

/** Who sees a house's notes: its active members and every active admin who is an employee (decisions 138, 151). */
export async function listHouseReaderIds(db: Db, house: string): Promise<string[]> {
  return (
    await db
      .select({ id: users.id })
      .from(users)
      .where(
        and(
          eq(users.isActive, true),
          or(
            and(inArray(users.role, ['admin', 'system_admin']), eq(users.accountType, 'employee')),
            inArray(users.id, db.select({ id: userHouses.userId }).from(userHouses).where(eq(userHouses.house, house))),
          ),
        ),
      )
      .all()
  ).map((row) => row.id);
}

/** The houses a user's access rows say they see or stopped seeing. */
export async function listAccess(db: Db, userId: string): Promise<{ house: string; visible: boolean }[]> {
  return await db
    .select({ house: handoverAccess.house, visible: handoverAccess.visible })
    .from(handoverAccess)
    .where(eq(handoverAccess.userId, userId))
    .all();
}

/**
 * Notes that a user began or stopped seeing a house's notes, each with a new sequence taken in the transaction that
 * writes it (docs/sync.md).
 */
export async function upsertAccess(
  db: Db,
  userId: string,
  changes: { house: string; visible: boolean }[],
): Promise<void> {
  const target = [handoverAccess.userId, handoverAccess.house];
  await transaction(db, async (db) => {
    for (const { house, visible } of changes) {
      const serverSeq = await nextSeq(db);
      await db
        .insert(handoverAccess)
        .values({ userId, house, visible, serverSeq })
        .onConflictDoUpdate({ target, set: { visible, serverSeq } })
        .run();
    }
  });
}

/** A note as pull reads it for one user: its place in that user's feed and whether the user sees its house now. */
export interface PulledHandoverRow {
  row: HandoverRow;
  seq: number;
  visible: boolean;
}

/**
 * A user's notes after a checkpoint, in change order (decision 138): the notes of the houses they see now, at the later
 * of the note's sequence and when they began seeing the house, and the notes of houses they stopped seeing, at the
 * later of the note's sequence and when they stopped (as tombstones, by the caller).
 */
export async function listHandoversForUser(
  db: Db,
  userId: string,
  visibleHouses: string[],
  seq: number,
  id: string,
  limit: number,
): Promise<PulledHandoverRow[]> {
  const houses = `(SELECT value FROM ${jsonValues(db, '@houses')})`;
  // The later of the note's sequence and the access row's (no two-argument max in PostgreSQL).
  const later = 'CASE WHEN h.server_seq >= coalesce(a.server_seq, 0) THEN h.server_seq ELSE a.server_seq END';
  const rows = await statement<
    { userId: string; houses: string; seq: number; id: string; limit: number },
    { id: string; seq: number; visible: number }
  >(
    db,
    `SELECT h.id AS id, ${later} AS seq, CASE WHEN h.house IN ${houses} THEN 1 ELSE 0 END AS visible
       FROM handovers h LEFT JOIN handover_access a ON a.user_id = @userId AND a.house = h.house
       WHERE (h.house IN ${houses} OR a.house IS NOT NULL)
         AND (${later}, h.id) > (@seq, @id)
       ORDER BY 2, 1
       LIMIT @limit`,
  ).all({ userId, houses: JSON.stringify(visibleHouses), seq, id, limit });
  if (rows.length === 0) return [];
  const byId = new Map(
    (
      await db
        .select()
        .from(handovers)
        .where(
          inArray(
            handovers.id,
            rows.map((r) => r.id),
          ),
        )
        .all()
    ).map((row) => [row.id, row]),
  );
  return rows.map((r) => ({ row: byId.get(r.id)!, seq: r.seq, visible: r.visible === 1 })); // read in one statement
}

/** Notes of these houses that reached the server in [from, to), for the report, with their reads. */
export async function listHandoversBetween(db: Db, houses: string[], from: number, to: number): Promise<HandoverRow[]> {
  return await db
    .select()
    .from(handovers)
    .where(
      and(
        inArray(handovers.house, houses),
        eq(handovers.hidden, false),
        sql`${handovers.createdAt} >= ${from}`,
        sql`${handovers.createdAt} < ${to}`,
      ),
    )
    .orderBy(asc(handovers.house), asc(handovers.createdAt))
    .all();
}

// Openings on a device (decision 142) -----------------------------------------------------------------------------

export async function findHandoverView(db: Db, id: string): Promise<HandoverViewRow | undefined> {
  return await db.select().from(handoverViews).where(eq(handoverViews.id, id)).get();
}

export async function insertHandoverView(db: Db, row: Omit<HandoverViewRow, 'serverSeq'>): Promise<void> {
  await db
    .insert(handoverViews)
    .values({ ...row, serverSeq: await nextSeq(db) })
    .run();
}

/** A user's recorded openings after a checkpoint, recorded since `since` (older ones are no longer pulled). */
export async function listHandoverViewsSince(
  db: Db,
  userId: string,
  seq: number,
  id: string,
  since: number,
  limit: number,
): Promise<HandoverViewRow[]> {
  return await db
    .select()
    .from(handoverViews)
    .where(
      and(
        eq(handoverViews.userId, userId),
        sql`(${handoverViews.serverSeq}, ${handoverViews.id}) > (${seq}, ${id})`,
        sql`${handoverViews.recordedAt} >= ${since}`,
      ),
    )
    .orderBy(asc(handoverViews.serverSeq), asc(handoverViews.id))
    .limit(limit)
    .all();
}

/** Whether the audit log holds a `handover.viewed` of this note by this user seen strictly between `from` and `to`. */
export async function hasHandoverViewBetween(
  db: Db,
  userId: string,
  handoverId: string,
  from: number,
  to: number,
): Promise<boolean> {
  return await hasOpeningBetween(db, { action: 'handover.viewed', userId, targetId: handoverId, from, to });
}
