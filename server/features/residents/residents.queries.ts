import { and, asc, desc, eq, gt, sql } from 'drizzle-orm';
import { dialectOf, statement, type Db, transaction } from '../../db/client';
import { residents, residentVersions, residentViews, users } from '../../db/tables';
import { hasOpeningBetween } from '../../lib/openings.queries';
import { nextSeq } from '../../lib/seq.queries';

export type ResidentRow = typeof residents.$inferSelect;
export type NewResidentRow = Omit<typeof residents.$inferInsert, 'serverSeq'>;
export type ResidentVersionRow = typeof residentVersions.$inferSelect;
/** A version to record; its number is taken inside the write's transaction. */
export type NewResidentVersionRow = Omit<typeof residentVersions.$inferInsert, 'id' | 'version' | 'residentId'>;
export type ResidentViewRow = typeof residentViews.$inferSelect;

/** The user columns a profile or a version shows; null once the account is deleted. */
const userColumns = { id: users.id, firstName: users.firstName, lastName: users.lastName };
export interface UserNameRow {
  id: string;
  firstName: string;
  lastName: string;
}

export async function findResident(db: Db, id: string): Promise<ResidentRow | undefined> {
  return await db.select().from(residents).where(eq(residents.id, id)).get();
}

export function findResidentWithCreator(db: Db, id: string) {
  return db
    .select({ resident: residents, creator: userColumns })
    .from(residents)
    .leftJoin(users, eq(users.id, residents.createdBy))
    .where(eq(residents.id, id))
    .get();
}

/** Active residents by name, with who added them (GET /api/residents). */
export function listActiveResidents(db: Db) {
  return db
    .select({ resident: residents, creator: userColumns })
    .from(residents)
    .leftJoin(users, eq(users.id, residents.createdBy))
    .where(eq(residents.archived, false))
    .orderBy(asc(residents.name), asc(residents.id))
    .all();
}

/** Moves residents up the change feed unchanged: who may see them changed (decision 147). */
export async function touchResidents(db: Db, ids: readonly string[]): Promise<void> {
  await transaction(db, async (db) => {
    for (const id of ids)
      await db
        .update(residents)
        .set({ serverSeq: await nextSeq(db) })
        .where(eq(residents.id, id))
        .run();
  });
}

/** A new profile and its first version, in one transaction. */
export async function insertResident(db: Db, row: NewResidentRow, version: NewResidentVersionRow): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .insert(residents)
      .values({ ...row, serverSeq: await nextSeq(db) })
      .run();
    await db
      .insert(residentVersions)
      .values({ ...version, residentId: row.id, version: 1 })
      .run();
  });
}

/** Changes a profile and records the version that keeps what it was, in one transaction. */
export async function updateResident(
  db: Db,
  id: string,
  changes: Partial<Omit<ResidentRow, 'id' | 'serverSeq' | 'createdBy' | 'createdAt'>>,
  version: NewResidentVersionRow,
): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .update(residents)
      .set({ ...changes, serverSeq: await nextSeq(db) })
      .where(eq(residents.id, id))
      .run();
    await db
      .insert(residentVersions)
      .values({ ...version, residentId: id, version: (await lastVersionNumber(db, id)) + 1 })
      .run();
  });
}

/** Whether a version of the resident was stored for a photo sent with this key (decision 123). */
export async function hasPhotoKey(db: Db, residentId: string, photoKey: string): Promise<boolean> {
  return (
    (await db
      .select({ id: residentVersions.id })
      .from(residentVersions)
      .where(and(eq(residentVersions.residentId, residentId), eq(residentVersions.photoKey, photoKey)))
      .get()) !== undefined
  );
}

/** The highest version number of a resident (0 when none). */
export async function lastVersionNumber(db: Db, residentId: string): Promise<number> {
  return (
    (
      await db
        .select({ n: sql<number>`coalesce(max(${residentVersions.version}), 0)` })
        .from(residentVersions)
        .where(eq(residentVersions.residentId, residentId))
        .get()
    )?.n ?? 0
  );
}

/** The first version of a resident written after a time (its `previous` is the profile as it was then). */
export async function findVersionAfter(
  db: Db,
  residentId: string,
  at: number,
): Promise<ResidentVersionRow | undefined> {
  return await db
    .select()
    .from(residentVersions)
    .where(and(eq(residentVersions.residentId, residentId), gt(residentVersions.changedAt, at)))
    .orderBy(asc(residentVersions.version))
    .limit(1)
    .get();
}

/** A resident's versions, newest first, with who made each. */
export function listResidentVersions(db: Db, residentId: string, limit: number) {
  return db
    .select({ version: residentVersions, user: userColumns })
    .from(residentVersions)
    .leftJoin(users, eq(users.id, residentVersions.changedBy))
    .where(eq(residentVersions.residentId, residentId))
    .orderBy(desc(residentVersions.version))
    .limit(limit)
    .all();
}

/** Residents (live and archived) changed after a checkpoint, in change-feed order. */
export async function listResidentsSince(db: Db, seq: number, id: string, limit: number): Promise<ResidentRow[]> {
  return await db
    .select()
    .from(residents)
    .where(sql`(${residents.serverSeq}, ${residents.id}) > (${seq}, ${id})`)
    .orderBy(asc(residents.serverSeq), asc(residents.id))
    .limit(limit)
    .all();
}

export async function findResidentView(db: Db, id: string): Promise<ResidentViewRow | undefined> {
  return await db.select().from(residentViews).where(eq(residentViews.id, id)).get();
}

export async function insertResidentView(db: Db, row: Omit<ResidentViewRow, 'serverSeq'>): Promise<void> {
  await db
    .insert(residentViews)
    .values({ ...row, serverSeq: await nextSeq(db) })
    .run();
}

/** Whether the audit log holds a `resident.view` by this user of this resident seen strictly between `from` and `to`. */
export async function hasResidentViewBetween(
  db: Db,
  userId: string,
  residentId: string,
  from: number,
  to: number,
): Promise<boolean> {
  return await hasOpeningBetween(db, { action: 'resident.view', userId, targetId: residentId, from, to });
}

/** A user's recorded views after a checkpoint, recorded since `since` (older ones are no longer pulled). */
export async function listResidentViewsSince(
  db: Db,
  userId: string,
  seq: number,
  id: string,
  since: number,
  limit: number,
): Promise<ResidentViewRow[]> {
  return await db
    .select()
    .from(residentViews)
    .where(
      and(
        eq(residentViews.userId, userId),
        sql`(${residentViews.serverSeq}, ${residentViews.id}) > (${seq}, ${id})`,
        sql`${residentViews.recordedAt} >= ${since}`,
      ),
    )
    .orderBy(asc(residentViews.serverSeq), asc(residentViews.id))
    .limit(limit)
    .all();
}

/**
 * Whether an active resident shows this photo now or in their history (a replaced photo stays in it): an archived
 * resident's photos, and photos no profile refers to, are served to no one (decision 126).
 */
export async function isPhotoOfActiveResident(db: Db, url: string): Promise<boolean> {
  // Whether a version's JSON holds the quoted URL: SQLite says instr, PostgreSQL strpos.
  const holds = dialectOf(db) === 'postgres' ? 'strpos' : 'instr';
  const row = await statement<{ url: string; quoted: string }>(
    db,
    `SELECT 1 FROM residents r WHERE r.archived = FALSE AND (r.photo_url = @url OR EXISTS (
         SELECT 1 FROM resident_versions v WHERE v.resident_id = r.id
           AND (${holds}(v.changes, @quoted) > 0 OR ${holds}(v.previous, @quoted) > 0)))
       LIMIT 1`,
  ).get({ url, quoted: JSON.stringify(url) });
  return row !== undefined;
}
