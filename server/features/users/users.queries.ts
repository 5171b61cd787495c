import { and, asc, count, eq, gt, lte, ne, sql } from 'drizzle-orm';
import { preparedFor, type Db, transaction } from '../../db/client';
import { deletedUsers, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type UserRow = typeof users.$inferSelect;
/** The columns a signed-in request carries as its user (GET /api/auth/user). */
export type CurrentUserRow = Pick<
  UserRow,
  'id' | 'email' | 'firstName' | 'lastName' | 'role' | 'isActive' | 'profileImageUrl'
>;
export type NewUserRow = typeof users.$inferInsert;

const findUserByIdQuery = preparedFor((db) =>
  db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(),
);

/** Prepared: every request's session and every change event sent to a user reads it (decision 131). */
export async function findUserById(db: Db, id: string): Promise<UserRow | undefined> {
  return await findUserByIdQuery(db).get({ id });
}

const findAccountCreatedAtQuery = preparedFor((db) =>
  db
    .select({ createdAt: users.createdAt })
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(),
);

/** When the account was made; prepared once, since a chat message's send asks it (decision 78). */
export async function findAccountCreatedAt(db: Db, id: string): Promise<number | undefined> {
  return (await findAccountCreatedAtQuery(db).get({ id }))?.createdAt;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return await db.select().from(users).where(eq(users.email, email.toLowerCase())).get();
}

export async function listUsers(db: Db): Promise<UserRow[]> {
  return await db.select().from(users).orderBy(asc(users.firstName), asc(users.lastName)).all();
}

/** Fields the synced staff directory shows: a change to one of them moves the user up the change feed. */
const DIRECTORY_FIELDS = [
  ...['firstName', 'lastName', 'role', 'profileImageUrl', 'isActive', 'pendingApproval'],
  // The directory's Agency / Bank badge (decision 147).
  'accountType',
] as const;

/** Active accounts whose access ends after `from` and at or before `to`, soonest first (decision 147). */
export async function listAccessEndingBetween(db: Db, from: number, to: number): Promise<UserRow[]> {
  return await db
    .select()
    .from(users)
    .where(and(eq(users.isActive, true), gt(users.accessEndsAt, from), lte(users.accessEndsAt, to)))
    .orderBy(asc(users.accessEndsAt), asc(users.firstName), asc(users.lastName))
    .all();
}

/** Active System Administrators: who hears of the server's own work (decision 147). */
export async function listActiveSystemAdmins(db: Db): Promise<UserRow[]> {
  return await db
    .select()
    .from(users)
    .where(and(eq(users.role, 'system_admin'), eq(users.isActive, true)))
    .all();
}

/** Active accounts whose access end (bank and agency staff) is at or before `at` (decision 145). */
export async function listAccessEnded(db: Db, at: number): Promise<UserRow[]> {
  return await db
    .select()
    .from(users)
    .where(and(eq(users.isActive, true), lte(users.accessEndsAt, at)))
    .all();
}

export async function insertUser(db: Db, row: NewUserRow): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .insert(users)
      .values({ ...row, serverSeq: await nextSeq(db) })
      .run();
  });
}

/**
 * Updates a user. Only changes the directory shows take a new sync sequence, so a sign-in (lastLoginAt) is
 * not broadcast to every client.
 */
export async function updateUser(db: Db, id: string, changes: Partial<NewUserRow>): Promise<void> {
  await transaction(db, async (db) => {
    const visible = DIRECTORY_FIELDS.some((field) => field in changes);
    await db
      .update(users)
      .set(visible ? { ...changes, serverSeq: await nextSeq(db) } : changes)
      .where(eq(users.id, id))
      .run();
  });
}

/** Deletes the account and leaves a directory tombstone, in one transaction. */
export async function deleteUserRow(db: Db, id: string): Promise<void> {
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    await db
      .insert(deletedUsers)
      .values({ id, serverSeq })
      .onConflictDoUpdate({ target: deletedUsers.id, set: { serverSeq } })
      .run();
    await db.delete(users).where(eq(users.id, id)).run();
  });
}

/** Directory entries changed after a checkpoint, in feed order; pending registrations are not staff yet. */
export async function listDirectorySince(db: Db, seq: number, id: string, limit: number): Promise<UserRow[]> {
  return await db
    .select()
    .from(users)
    .where(and(sql`(${users.serverSeq}, ${users.id}) > (${seq}, ${id})`, eq(users.pendingApproval, false)))
    .orderBy(asc(users.serverSeq), asc(users.id))
    .limit(limit)
    .all();
}

/** Deleted accounts after a checkpoint, in feed order. */
export async function listDeletedUsersSince(db: Db, seq: number, id: string, limit: number) {
  return await db
    .select()
    .from(deletedUsers)
    .where(sql`(${deletedUsers.serverSeq}, ${deletedUsers.id}) > (${seq}, ${id})`)
    .orderBy(asc(deletedUsers.serverSeq), asc(deletedUsers.id))
    .limit(limit)
    .all();
}

/** Active system administrators other than the given user. */
export async function countOtherActiveSystemAdmins(db: Db, exceptId: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, 'system_admin'), eq(users.isActive, true), ne(users.id, exceptId)))
    .get();
  return row?.n ?? 0;
}

export async function countActiveSystemAdmins(db: Db): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, 'system_admin'), eq(users.isActive, true)))
    .get();
  return row?.n ?? 0;
}
