import { and, asc, count, eq, gt, lte, ne, sql } from 'drizzle-orm';
import { preparedFor, type Db } from '../../db/client';
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
export function findUserById(db: Db, id: string): UserRow | undefined {
  return findUserByIdQuery(db).get({ id });
}

const findAccountCreatedAtQuery = preparedFor((db) =>
  db
    .select({ createdAt: users.createdAt })
    .from(users)
    .where(eq(users.id, sql.placeholder('id')))
    .prepare(),
);

/** When the account was made; prepared once, since a chat message's send asks it (decision 78). */
export function findAccountCreatedAt(db: Db, id: string): number | undefined {
  return findAccountCreatedAtQuery(db).get({ id })?.createdAt;
}

export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.email, email.toLowerCase())).get();
}

export function listUsers(db: Db): UserRow[] {
  return db.select().from(users).orderBy(asc(users.firstName), asc(users.lastName)).all();
}

/** Fields the synced staff directory shows: a change to one of them moves the user up the change feed. */
const DIRECTORY_FIELDS = [
  ...['firstName', 'lastName', 'role', 'profileImageUrl', 'isActive', 'pendingApproval'],
  // The directory's Agency / Bank badge (decision 147).
  'accountType',
] as const;

/** Active accounts whose access ends after `from` and at or before `to`, soonest first (decision 147). */
export function listAccessEndingBetween(db: Db, from: number, to: number): UserRow[] {
  return db
    .select()
    .from(users)
    .where(and(eq(users.isActive, true), gt(users.accessEndsAt, from), lte(users.accessEndsAt, to)))
    .orderBy(asc(users.accessEndsAt), asc(users.firstName), asc(users.lastName))
    .all();
}

/** Active System Administrators: who hears of the server's own work (decision 147). */
export function listActiveSystemAdmins(db: Db): UserRow[] {
  return db
    .select()
    .from(users)
    .where(and(eq(users.role, 'system_admin'), eq(users.isActive, true)))
    .all();
}

/** Active accounts whose access end (bank and agency staff) is at or before `at` (decision 145). */
export function listAccessEnded(db: Db, at: number): UserRow[] {
  return db
    .select()
    .from(users)
    .where(and(eq(users.isActive, true), lte(users.accessEndsAt, at)))
    .all();
}

export function insertUser(db: Db, row: NewUserRow): void {
  db.transaction(() => {
    db.insert(users)
      .values({ ...row, serverSeq: nextSeq(db) })
      .run();
  });
}

/**
 * Updates a user. Only changes the directory shows take a new sync sequence, so a sign-in (lastLoginAt) is
 * not broadcast to every client.
 */
export function updateUser(db: Db, id: string, changes: Partial<NewUserRow>): void {
  db.transaction(() => {
    const visible = DIRECTORY_FIELDS.some((field) => field in changes);
    db.update(users)
      .set(visible ? { ...changes, serverSeq: nextSeq(db) } : changes)
      .where(eq(users.id, id))
      .run();
  });
}

/** Deletes the account and leaves a directory tombstone, in one transaction. */
export function deleteUserRow(db: Db, id: string): void {
  db.transaction(() => {
    const serverSeq = nextSeq(db);
    db.insert(deletedUsers)
      .values({ id, serverSeq })
      .onConflictDoUpdate({ target: deletedUsers.id, set: { serverSeq } })
      .run();
    db.delete(users).where(eq(users.id, id)).run();
  });
}

/** Directory entries changed after a checkpoint, in feed order; pending registrations are not staff yet. */
export function listDirectorySince(db: Db, seq: number, id: string, limit: number): UserRow[] {
  return db
    .select()
    .from(users)
    .where(and(sql`(${users.serverSeq}, ${users.id}) > (${seq}, ${id})`, eq(users.pendingApproval, false)))
    .orderBy(asc(users.serverSeq), asc(users.id))
    .limit(limit)
    .all();
}

/** Deleted accounts after a checkpoint, in feed order. */
export function listDeletedUsersSince(db: Db, seq: number, id: string, limit: number) {
  return db
    .select()
    .from(deletedUsers)
    .where(sql`(${deletedUsers.serverSeq}, ${deletedUsers.id}) > (${seq}, ${id})`)
    .orderBy(asc(deletedUsers.serverSeq), asc(deletedUsers.id))
    .limit(limit)
    .all();
}

/** Active system administrators other than the given user. */
export function countOtherActiveSystemAdmins(db: Db, exceptId: string): number {
  const row = db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, 'system_admin'), eq(users.isActive, true), ne(users.id, exceptId)))
    .get();
  return row?.n ?? 0;
}

export function countActiveSystemAdmins(db: Db): number {
  const row = db
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.role, 'system_admin'), eq(users.isActive, true)))
    .get();
  return row?.n ?? 0;
}
