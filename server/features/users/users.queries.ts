import { and, asc, count, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { users } from '../../db/tables';

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;

export function findUserById(db: Db, id: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.id, id)).get();
}

export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.email, email.toLowerCase())).get();
}

export function listUsers(db: Db): UserRow[] {
  return db.select().from(users).orderBy(asc(users.firstName), asc(users.lastName)).all();
}

export function insertUser(db: Db, row: NewUserRow): void {
  db.insert(users).values(row).run();
}

export function updateUser(db: Db, id: string, changes: Partial<NewUserRow>): void {
  db.update(users).set(changes).where(eq(users.id, id)).run();
}

export function deleteUserRow(db: Db, id: string): void {
  db.delete(users).where(eq(users.id, id)).run();
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
