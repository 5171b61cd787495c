import { and, count, eq, gt, isNull, lt, min } from 'drizzle-orm';
import { preparedFor, statement, type Db } from '../../db/client';
import { accountRequests, endedSessions, loginFailures, sessions, settings, userTokens } from '../../db/tables';
import type { CurrentUserRow } from '../users/users.queries';

export type SessionRow = typeof sessions.$inferSelect;
export type TokenRow = typeof userTokens.$inferSelect;

export async function insertSession(db: Db, row: SessionRow): Promise<void> {
  await db.insert(sessions).values(row).run();
}

/** What a request needs of its session and user: no password hash, no builder mapping. */
export interface SessionLookup {
  session: { createdAt: number; lastActiveAt: number };
  user: CurrentUserRow;
  /** An admin or System Administrator with no second factor (decision 148). */
  adminWithoutSecondFactor: boolean;
}

type SessionLookupRow = [
  createdAt: number,
  lastActiveAt: number,
  id: string,
  email: string,
  firstName: string,
  lastName: string,
  role: CurrentUserRow['role'],
  isActive: number,
  profileImageUrl: string | null,
  adminWithoutSecondFactor: number,
];

/**
 * Prepared once per database and read in raw mode: every signed-in request looks its session up, and the
 * query builder's mapping of a joined row cost more than the query (bench/posts-api.ts).
 */
const sessionLookup = preparedFor((db) =>
  statement<[string], SessionLookupRow>(
    db,
    `SELECT s.created_at, s.last_active_at, u.id, u.email, u.first_name, u.last_name, u.role, u.is_active,
              u.profile_image_url,
              u.role <> 'staff'
                AND NOT EXISTS (SELECT 1 FROM totp_factors t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL)
                AND NOT EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.id)
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?`,
  ),
);

/** The session and its user, in one query. */
export async function findSessionWithUser(db: Db, tokenHash: string): Promise<SessionLookup | undefined> {
  const [r] = (await sessionLookup(db).rows([tokenHash])) as SessionLookupRow[];
  if (!r) return undefined;
  return {
    session: { createdAt: r[0], lastActiveAt: r[1] },
    user: {
      id: r[2],
      email: r[3],
      firstName: r[4],
      lastName: r[5],
      role: r[6],
      isActive: r[7] === 1,
      profileImageUrl: r[8],
    },
    adminWithoutSecondFactor: r[9] === 1,
  };
}

export async function touchSession(db: Db, tokenHash: string, at: number): Promise<void> {
  await db.update(sessions).set({ lastActiveAt: at }).where(eq(sessions.tokenHash, tokenHash)).run();
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash)).run();
}

export async function deleteSessionsOfUser(db: Db, userId: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.userId, userId)).run();
}

/** Removes sessions idle since before `idleBefore` or created before `createdBefore`. */
export async function deleteDeadSessions(db: Db, idleBefore: number, createdBefore: number): Promise<void> {
  await db.delete(sessions).where(lt(sessions.lastActiveAt, idleBefore)).run();
  await db.delete(sessions).where(lt(sessions.createdAt, createdBefore)).run();
}

export type SessionEndReason = (typeof endedSessions.$inferSelect)['reason'];

/** Remembers why each session of a user is about to end, so its cookie is answered with that reason (decision 151). */
export async function insertEndedSessionsOfUser(
  db: Db,
  userId: string,
  reason: SessionEndReason,
  at: number,
): Promise<void> {
  const hashes = await db
    .select({ tokenHash: sessions.tokenHash })
    .from(sessions)
    .where(eq(sessions.userId, userId))
    .all();
  if (hashes.length === 0) return;
  await db
    .insert(endedSessions)
    .values(hashes.map(({ tokenHash }) => ({ tokenHash, reason, endedAt: at })))
    .onConflictDoUpdate({ target: endedSessions.tokenHash, set: { reason, endedAt: at } })
    .run();
}

export async function findEndedSessionReason(db: Db, tokenHash: string): Promise<SessionEndReason | undefined> {
  return (
    await db
      .select({ reason: endedSessions.reason })
      .from(endedSessions)
      .where(eq(endedSessions.tokenHash, tokenHash))
      .get()
  )?.reason;
}

export async function deleteEndedSessionsBefore(db: Db, before: number): Promise<void> {
  await db.delete(endedSessions).where(lt(endedSessions.endedAt, before)).run();
}

export async function insertUserToken(db: Db, row: TokenRow): Promise<void> {
  await db.insert(userTokens).values(row).run();
}

export async function findUserToken(db: Db, tokenHash: string): Promise<TokenRow | undefined> {
  return await db.select().from(userTokens).where(eq(userTokens.tokenHash, tokenHash)).get();
}

/**
 * Spends one live token in a single statement: of two requests racing with the same link, exactly one gets
 * `true`. Answers false for a token that is unknown, used or expired.
 */
export async function spendUserToken(db: Db, tokenHash: string, at: number): Promise<boolean> {
  const spent = await db
    .update(userTokens)
    .set({ usedAt: at })
    .where(and(eq(userTokens.tokenHash, tokenHash), isNull(userTokens.usedAt), gt(userTokens.expiresAt, at)))
    .run();
  return spent.changes === 1;
}

/** Marks every unused token of a user used, so a reset ends all older links. */
export async function useAllTokensOfUser(db: Db, userId: string, at: number): Promise<void> {
  await db
    .update(userTokens)
    .set({ usedAt: at })
    .where(and(eq(userTokens.userId, userId), isNull(userTokens.usedAt)))
    .run();
}

/** Records a sign-in attempt as failed; answers its row id, so an attempt that succeeds can take it back. */
export async function insertLoginFailure(db: Db, email: string, ip: string, at: number): Promise<number> {
  return (await db.insert(loginFailures).values({ email, ip, at }).returning({ id: loginFailures.id }).get()).id;
}

export async function deleteLoginFailure(db: Db, id: number): Promise<void> {
  await db.delete(loginFailures).where(eq(loginFailures.id, id)).run();
}

/** Failures since `since` and the time of the oldest, for an e-mail or an address. */
export async function countLoginFailures(db: Db, by: 'email' | 'ip', value: string, since: number) {
  const column = by === 'email' ? loginFailures.email : loginFailures.ip;
  return (
    (await db
      .select({ n: count(), oldest: min(loginFailures.at) })
      .from(loginFailures)
      .where(and(eq(column, value), gt(loginFailures.at, since)))
      .get()) ?? { n: 0, oldest: null }
  );
}

export async function deleteLoginFailuresOf(db: Db, email: string): Promise<void> {
  await db.delete(loginFailures).where(eq(loginFailures.email, email)).run();
}

export async function deleteLoginFailuresBefore(db: Db, before: number): Promise<void> {
  await db.delete(loginFailures).where(lt(loginFailures.at, before)).run();
}

/** Records a password-reset or registration request before it is looked at (decision 124). */
export async function insertAccountRequest(db: Db, email: string, ip: string, at: number): Promise<void> {
  await db.insert(accountRequests).values({ email, ip, at }).run();
}

/** Reset and registration requests since `since` and the time of the oldest, for an e-mail or an address. */
export async function countAccountRequests(db: Db, by: 'email' | 'ip', value: string, since: number) {
  const column = by === 'email' ? accountRequests.email : accountRequests.ip;
  return (
    (await db
      .select({ n: count(), oldest: min(accountRequests.at) })
      .from(accountRequests)
      .where(and(eq(column, value), gt(accountRequests.at, since)))
      .get()) ?? { n: 0, oldest: null }
  );
}

export async function deleteAccountRequestsBefore(db: Db, before: number): Promise<void> {
  await db.delete(accountRequests).where(lt(accountRequests.at, before)).run();
}

export async function readSetting(db: Db, key: string): Promise<string | undefined> {
  return (await db.select().from(settings).where(eq(settings.key, key)).get())?.value;
}

export async function writeSetting(db: Db, key: string, value: string): Promise<void> {
  await db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } }).run();
}

export async function deleteSetting(db: Db, key: string): Promise<void> {
  await db.delete(settings).where(eq(settings.key, key)).run();
}
