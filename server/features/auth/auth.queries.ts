import { and, count, eq, gt, isNull, lt, min } from 'drizzle-orm';
import { preparedFor, type Db } from '../../db/client';
import { accountRequests, endedSessions, loginFailures, sessions, settings, userTokens } from '../../db/tables';
import type { CurrentUserRow } from '../users/users.queries';

export type SessionRow = typeof sessions.$inferSelect;
export type TokenRow = typeof userTokens.$inferSelect;

export function insertSession(db: Db, row: SessionRow): void {
  db.insert(sessions).values(row).run();
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
  db.$client
    .prepare<[string], SessionLookupRow>(
      `SELECT s.created_at, s.last_active_at, u.id, u.email, u.first_name, u.last_name, u.role, u.is_active,
              u.profile_image_url,
              u.role <> 'staff'
                AND NOT EXISTS (SELECT 1 FROM totp_factors t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL)
                AND NOT EXISTS (SELECT 1 FROM passkeys p WHERE p.user_id = u.id)
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token_hash = ?`,
    )
    .raw(),
);

/** The session and its user, in one query. */
export function findSessionWithUser(db: Db, tokenHash: string): SessionLookup | undefined {
  const r = sessionLookup(db).get(tokenHash);
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

export function touchSession(db: Db, tokenHash: string, at: number): void {
  db.update(sessions).set({ lastActiveAt: at }).where(eq(sessions.tokenHash, tokenHash)).run();
}

export function deleteSession(db: Db, tokenHash: string): void {
  db.delete(sessions).where(eq(sessions.tokenHash, tokenHash)).run();
}

export function deleteSessionsOfUser(db: Db, userId: string): void {
  db.delete(sessions).where(eq(sessions.userId, userId)).run();
}

/** Removes sessions idle since before `idleBefore` or created before `createdBefore`. */
export function deleteDeadSessions(db: Db, idleBefore: number, createdBefore: number): void {
  db.delete(sessions).where(lt(sessions.lastActiveAt, idleBefore)).run();
  db.delete(sessions).where(lt(sessions.createdAt, createdBefore)).run();
}

export type SessionEndReason = (typeof endedSessions.$inferSelect)['reason'];

/** Remembers why each session of a user is about to end, so its cookie is answered with that reason (decision 151). */
export function insertEndedSessionsOfUser(db: Db, userId: string, reason: SessionEndReason, at: number): void {
  const hashes = db.select({ tokenHash: sessions.tokenHash }).from(sessions).where(eq(sessions.userId, userId)).all();
  if (hashes.length === 0) return;
  db.insert(endedSessions)
    .values(hashes.map(({ tokenHash }) => ({ tokenHash, reason, endedAt: at })))
    .onConflictDoUpdate({ target: endedSessions.tokenHash, set: { reason, endedAt: at } })
    .run();
}

export function findEndedSessionReason(db: Db, tokenHash: string): SessionEndReason | undefined {
  return db
    .select({ reason: endedSessions.reason })
    .from(endedSessions)
    .where(eq(endedSessions.tokenHash, tokenHash))
    .get()?.reason;
}

export function deleteEndedSessionsBefore(db: Db, before: number): void {
  db.delete(endedSessions).where(lt(endedSessions.endedAt, before)).run();
}

export function insertUserToken(db: Db, row: TokenRow): void {
  db.insert(userTokens).values(row).run();
}

export function findUserToken(db: Db, tokenHash: string): TokenRow | undefined {
  return db.select().from(userTokens).where(eq(userTokens.tokenHash, tokenHash)).get();
}

/**
 * Spends one live token in a single statement: of two requests racing with the same link, exactly one gets
 * `true`. Answers false for a token that is unknown, used or expired.
 */
export function spendUserToken(db: Db, tokenHash: string, at: number): boolean {
  const spent = db
    .update(userTokens)
    .set({ usedAt: at })
    .where(and(eq(userTokens.tokenHash, tokenHash), isNull(userTokens.usedAt), gt(userTokens.expiresAt, at)))
    .run();
  return spent.changes === 1;
}

/** Marks every unused token of a user used, so a reset ends all older links. */
export function useAllTokensOfUser(db: Db, userId: string, at: number): void {
  db.update(userTokens)
    .set({ usedAt: at })
    .where(and(eq(userTokens.userId, userId), isNull(userTokens.usedAt)))
    .run();
}

/** Records a sign-in attempt as failed; answers its row id, so an attempt that succeeds can take it back. */
export function insertLoginFailure(db: Db, email: string, ip: string, at: number): number {
  return db.insert(loginFailures).values({ email, ip, at }).returning({ id: loginFailures.id }).get().id;
}

export function deleteLoginFailure(db: Db, id: number): void {
  db.delete(loginFailures).where(eq(loginFailures.id, id)).run();
}

/** Failures since `since` and the time of the oldest, for an e-mail or an address. */
export function countLoginFailures(db: Db, by: 'email' | 'ip', value: string, since: number) {
  const column = by === 'email' ? loginFailures.email : loginFailures.ip;
  return (
    db
      .select({ n: count(), oldest: min(loginFailures.at) })
      .from(loginFailures)
      .where(and(eq(column, value), gt(loginFailures.at, since)))
      .get() ?? { n: 0, oldest: null }
  );
}

export function deleteLoginFailuresOf(db: Db, email: string): void {
  db.delete(loginFailures).where(eq(loginFailures.email, email)).run();
}

export function deleteLoginFailuresBefore(db: Db, before: number): void {
  db.delete(loginFailures).where(lt(loginFailures.at, before)).run();
}

/** Records a password-reset or registration request before it is looked at (decision 124). */
export function insertAccountRequest(db: Db, email: string, ip: string, at: number): void {
  db.insert(accountRequests).values({ email, ip, at }).run();
}

/** Reset and registration requests since `since` and the time of the oldest, for an e-mail or an address. */
export function countAccountRequests(db: Db, by: 'email' | 'ip', value: string, since: number) {
  const column = by === 'email' ? accountRequests.email : accountRequests.ip;
  return (
    db
      .select({ n: count(), oldest: min(accountRequests.at) })
      .from(accountRequests)
      .where(and(eq(column, value), gt(accountRequests.at, since)))
      .get() ?? { n: 0, oldest: null }
  );
}

export function deleteAccountRequestsBefore(db: Db, before: number): void {
  db.delete(accountRequests).where(lt(accountRequests.at, before)).run();
}

export function readSetting(db: Db, key: string): string | undefined {
  return db.select().from(settings).where(eq(settings.key, key)).get()?.value;
}

export function writeSetting(db: Db, key: string, value: string): void {
  db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } }).run();
}

export function deleteSetting(db: Db, key: string): void {
  db.delete(settings).where(eq(settings.key, key)).run();
}
