import { and, count, eq, gt, isNotNull, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { authChallenges, passkeys, recoveryCodes, totpFactors } from '../../db/tables';

export type TotpRow = typeof totpFactors.$inferSelect;
export type PasskeyRow = typeof passkeys.$inferSelect;
export type ChallengeRow = typeof authChallenges.$inferSelect;

export function findTotp(db: Db, userId: string): TotpRow | undefined {
  return db.select().from(totpFactors).where(eq(totpFactors.userId, userId)).get();
}

/** Writes a new, unconfirmed secret, replacing an unconfirmed one; answers false when an active one exists. */
export function upsertPendingTotp(db: Db, userId: string, secret: string, at: number): boolean {
  const done = db
    .insert(totpFactors)
    .values({ userId, secret, confirmedAt: null, lastUsedStep: null, createdAt: at })
    .onConflictDoUpdate({
      target: totpFactors.userId,
      set: { secret, createdAt: at, lastUsedStep: null },
      setWhere: isNull(totpFactors.confirmedAt),
    })
    .run();
  return done.changes === 1;
}

/**
 * Spends a time step in one statement: of two requests with the same code exactly one gets `true`, and a code of a
 * step at or before the last one used is refused. `confirm` also makes a pending secret active.
 */
export function spendTotpStep(db: Db, userId: string, step: number, at: number, confirm: boolean): boolean {
  const done = db
    .update(totpFactors)
    .set(confirm ? { lastUsedStep: step, confirmedAt: at } : { lastUsedStep: step })
    .where(
      and(
        eq(totpFactors.userId, userId),
        confirm ? isNull(totpFactors.confirmedAt) : isNotNull(totpFactors.confirmedAt),
        or(isNull(totpFactors.lastUsedStep), lt(totpFactors.lastUsedStep, step)),
      ),
    )
    .run();
  return done.changes === 1;
}

export function deleteTotp(db: Db, userId: string): void {
  db.delete(totpFactors).where(eq(totpFactors.userId, userId)).run();
}

/** Replaces all of a user's recovery codes with these hashes. */
export function replaceRecoveryCodes(db: Db, userId: string, hashes: string[], at: number): void {
  db.transaction(() => {
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    if (hashes.length > 0) {
      db.insert(recoveryCodes)
        .values(hashes.map((codeHash) => ({ userId, codeHash, usedAt: null, createdAt: at })))
        .run();
    }
  });
}

/** Spends one unused recovery code in a single statement; answers whether it was there to spend. */
export function spendRecoveryCode(db: Db, userId: string, codeHash: string, at: number): boolean {
  const done = db
    .update(recoveryCodes)
    .set({ usedAt: at })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt)))
    .run();
  return done.changes === 1;
}

export function countUnusedRecoveryCodes(db: Db, userId: string): number {
  return (
    db
      .select({ n: count() })
      .from(recoveryCodes)
      .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
      .get()?.n ?? 0
  );
}

export function listPasskeys(db: Db, userId: string): PasskeyRow[] {
  return db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(passkeys.createdAt).all();
}

export function findPasskey(db: Db, id: string): PasskeyRow | undefined {
  return db.select().from(passkeys).where(eq(passkeys.id, id)).get();
}

export function insertPasskey(db: Db, row: PasskeyRow): void {
  db.insert(passkeys).values(row).run();
}

export function updatePasskeyUse(db: Db, id: string, counter: number, at: number): void {
  db.update(passkeys).set({ counter, lastUsedAt: at }).where(eq(passkeys.id, id)).run();
}

/** Answers whether the user had that passkey. */
export function deletePasskey(db: Db, userId: string, id: string): boolean {
  return (
    db
      .delete(passkeys)
      .where(and(eq(passkeys.userId, userId), eq(passkeys.id, id)))
      .run().changes === 1
  );
}

/** Removes every second factor of a user: the app, recovery codes and passkeys. */
export function deleteSecondFactors(db: Db, userId: string): void {
  db.transaction(() => {
    db.delete(totpFactors).where(eq(totpFactors.userId, userId)).run();
    db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    db.delete(passkeys).where(eq(passkeys.userId, userId)).run();
    db.delete(authChallenges).where(eq(authChallenges.userId, userId)).run();
  });
}

export function insertChallenge(db: Db, row: ChallengeRow): void {
  db.insert(authChallenges).values(row).run();
}

/** A live challenge of that purpose, or undefined when unknown or expired. */
export function findChallenge(db: Db, tokenHash: string, purpose: ChallengeRow['purpose'], at: number) {
  return db
    .select()
    .from(authChallenges)
    .where(
      and(
        eq(authChallenges.tokenHash, tokenHash),
        eq(authChallenges.purpose, purpose),
        gt(authChallenges.expiresAt, at),
      ),
    )
    .get();
}

export function setChallengeValue(db: Db, tokenHash: string, challenge: string): void {
  db.update(authChallenges).set({ challenge }).where(eq(authChallenges.tokenHash, tokenHash)).run();
}

/** Answers whether the challenge was still there: of two requests spending it, exactly one gets `true`. */
export function deleteChallenge(db: Db, tokenHash: string): boolean {
  return db.delete(authChallenges).where(eq(authChallenges.tokenHash, tokenHash)).run().changes === 1;
}

export function deleteChallengesBefore(db: Db, at: number): void {
  db.delete(authChallenges).where(lt(authChallenges.expiresAt, at)).run();
}

/** The second factors a user can sign in with, in the order the sign-in screen offers them. */
export function secondFactorMethods(db: Db, userId: string): ('totp' | 'recovery_code' | 'passkey')[] {
  const totp = findTotp(db, userId);
  const hasTotp = totp?.confirmedAt != null;
  const hasPasskey = db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId)).get()!.n > 0;
  const hasCodes = countUnusedRecoveryCodes(db, userId) > 0;
  return [
    ...(hasTotp ? (['totp'] as const) : []),
    ...(hasPasskey ? (['passkey'] as const) : []),
    ...((hasTotp || hasPasskey) && hasCodes ? (['recovery_code'] as const) : []),
  ];
}
