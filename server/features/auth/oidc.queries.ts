import { and, count, eq, gt, lte } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { ssoAttempts } from '../../db/tables';

export type SsoAttemptRow = typeof ssoAttempts.$inferSelect;

export async function insertSsoAttempt(db: Db, row: SsoAttemptRow): Promise<void> {
  await db.insert(ssoAttempts).values(row).run();
}

/**
 * Takes a live attempt by its state's hash and deletes it in one statement: of two callbacks with the same state,
 * exactly one gets the row. Answers undefined for a state that is unknown, used or expired.
 */
export async function takeSsoAttempt(db: Db, stateHash: string, at: number): Promise<SsoAttemptRow | undefined> {
  return await db
    .delete(ssoAttempts)
    .where(and(eq(ssoAttempts.stateHash, stateHash), gt(ssoAttempts.expiresAt, at)))
    .returning()
    .get();
}

export async function deleteSsoAttemptsExpiredBy(db: Db, at: number): Promise<void> {
  await db.delete(ssoAttempts).where(lte(ssoAttempts.expiresAt, at)).run();
}

/** Live attempts started from an address. */
export async function countLiveSsoAttempts(db: Db, ip: string, at: number): Promise<number> {
  return (
    (
      await db
        .select({ n: count() })
        .from(ssoAttempts)
        .where(and(eq(ssoAttempts.ip, ip), gt(ssoAttempts.expiresAt, at)))
        .get()
    )?.n ?? 0
  );
}
