import { and, count, eq, gt, isNotNull, isNull, lt, or } from 'drizzle-orm';
import { Db, transaction } from '../../db/client';
import { authChallenges, passkeys, recoveryCodes, totpFactors } from '../../db/tables';

export type TotpRow = typeof totpFactors.$inferSelect;
export type PasskeyRow = typeof passkeys.$inferSelect;
export type ChallengeRow = typeof authChallenges.$inferSelect;

export async function findTotp(db: Db, userId: string): Promise<TotpRow | undefined> {
  return await db.select().from(totpFactors).where(eq(totpFactors.userId, userId)).get();
}

/** Writes a new, unconfirmed secret, replacing an unconfirmed one; answers false when an active one exists. */
export async function upsertPendingTotp(db: Db, userId: string, secret: string, at: number): Promise<boolean> {
  const done = await db
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
export async function spendTotpStep(
  db: Db,
  userId: string,
  step: number,
  at: number,
  confirm: boolean,
): Promise<boolean> {
  const done = await db
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

export async function deleteTotp(db: Db, userId: string): Promise<void> {
  await db.delete(totpFactors).where(eq(totpFactors.userId, userId)).run();
}

/** Replaces all of a user's recovery codes with these hashes. */
export async function replaceRecoveryCodes(db: Db, userId: string, hashes: string[], at: number): Promise<void> {
  await transaction(db, async (db) => {
    await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    if (hashes.length > 0) {
      await db
        .insert(recoveryCodes)
        .values(hashes.map((codeHash) => ({ userId, codeHash, usedAt: null, createdAt: at })))
        .run();
    }
  });
}

/** Spends one unused recovery code in a single statement; answers whether it was there to spend. */
export async function spendRecoveryCode(db: Db, userId: string, codeHash: string, at: number): Promise<boolean> {
  const done = await db
    .update(recoveryCodes)
    .set({ usedAt: at })
    .where(and(eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt)))
    .run();
  return done.changes === 1;
}

export async function countUnusedRecoveryCodes(db: Db, userId: string): Promise<number> {
  return (
    (
      await db
        .select({ n: count() })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)))
        .get()
    )?.n ?? 0
  );
}

export async function listPasskeys(db: Db, userId: string): Promise<PasskeyRow[]> {
  return await db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(passkeys.createdAt).all();
}

export async function findPasskey(db: Db, id: string): Promise<PasskeyRow | undefined> {
  return await db.select().from(passkeys).where(eq(passkeys.id, id)).get();
}

export async function insertPasskey(db: Db, row: PasskeyRow): Promise<void> {
  await db.insert(passkeys).values(row).run();
}

export async function updatePasskeyUse(db: Db, id: string, counter: number, at: number): Promise<void> {
  await db.update(passkeys).set({ counter, lastUsedAt: at }).where(eq(passkeys.id, id)).run();
}

/** Answers whether the user had that passkey. */
export async function deletePasskey(db: Db, userId: string, id: string): Promise<boolean> {
  return (
    (
      await db
        .delete(passkeys)
        .where(and(eq(passkeys.userId, userId), eq(passkeys.id, id)))
        .run()
    ).changes === 1
  );
}

/** Removes every second factor of a user: the app, recovery codes and passkeys. */
export async function deleteSecondFactors(db: Db, userId: string): Promise<void> {
  await transaction(db, async (db) => {
    await db.delete(totpFactors).where(eq(totpFactors.userId, userId)).run();
    await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId)).run();
    await db.delete(passkeys).where(eq(passkeys.userId, userId)).run();
    await db.delete(authChallenges).where(eq(authChallenges.userId, userId)).run();
  });
}

export async function insertChallenge(db: Db, row: ChallengeRow): Promise<void> {
  await db.insert(authChallenges).values(row).run();
}

/** A live challenge of that purpose, or undefined when unknown or expired. */
export async function findChallenge(db: Db, tokenHash: string, purpose: ChallengeRow['purpose'], at: number) {
  return await db
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

export async function setChallengeValue(db: Db, tokenHash: string, challenge: string): Promise<void> {
  await db.update(authChallenges).set({ challenge }).where(eq(authChallenges.tokenHash, tokenHash)).run();
}

/** Answers whether the challenge was still there: of two requests spending it, exactly one gets `true`. */
export async function deleteChallenge(db: Db, tokenHash: string): Promise<boolean> {
  return (await db.delete(authChallenges).where(eq(authChallenges.tokenHash, tokenHash)).run()).changes === 1;
}

export async function deleteChallengesBefore(db: Db, at: number): Promise<void> {
  await db.delete(authChallenges).where(lt(authChallenges.expiresAt, at)).run();
}

/** The second factors a user can sign in with, in the order the sign-in screen offers them. */
export async function secondFactorMethods(db: Db, userId: string): Promise<('totp' | 'recovery_code' | 'passkey')[]> {
  const totp = await findTotp(db, userId);
  const hasTotp = totp?.confirmedAt != null;
  const hasPasskey = (await db.select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId)).get())!.n > 0;
  const hasCodes = (await countUnusedRecoveryCodes(db, userId)) > 0;
  return [
    ...(hasTotp ? (['totp'] as const) : []),
    ...(hasPasskey ? (['passkey'] as const) : []),
    ...((hasTotp || hasPasskey) && hasCodes ? (['recovery_code'] as const) : []),
  ];
}
