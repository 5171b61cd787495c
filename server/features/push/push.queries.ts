import { and, asc, count, eq, lte, ne, notInArray, sql } from 'drizzle-orm';
import { jsonValuesSql, preparedFor, type Db } from '../../db/client';
import { pushBursts, pushSubscriptions, pushTestSends, settings, users } from '../../db/tables';

export type PushSubscriptionRow = typeof pushSubscriptions.$inferSelect;
export type PushBurstRow = typeof pushBursts.$inferSelect;

export async function findSetting(db: Db, key: string): Promise<string | undefined> {
  return (await db.select().from(settings).where(eq(settings.key, key)).get())?.value;
}

/** Stores a setting unless one is already there (two starts never replace each other's keys). */
export async function insertSettingIfAbsent(db: Db, key: string, value: string): Promise<void> {
  await db.insert(settings).values({ key, value }).onConflictDoNothing().run();
}

/** Adds a subscription, or gives an endpoint already known to this user (the browser was signed into afresh). */
export async function upsertSubscription(db: Db, row: PushSubscriptionRow): Promise<void> {
  await db
    .insert(pushSubscriptions)
    .values(row)
    .onConflictDoUpdate({
      target: pushSubscriptions.endpoint,
      set: { userId: row.userId, p256dh: row.p256dh, auth: row.auth, createdAt: row.createdAt },
    })
    .run();
}

/** Keeps a user's newest `keep` subscriptions. */
export async function trimSubscriptions(db: Db, userId: string, keep: number): Promise<void> {
  const newest = (
    await db
      .select({ id: pushSubscriptions.id })
      .from(pushSubscriptions)
      .where(eq(pushSubscriptions.userId, userId))
      .orderBy(sql`${pushSubscriptions.createdAt} DESC`, sql`${pushSubscriptions.id} DESC`)
      .limit(keep)
      .all()
  ).map((row) => row.id);
  if (newest.length < keep) return;
  await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), notInArray(pushSubscriptions.id, newest)))
    .run();
}

export async function deleteUserSubscription(db: Db, userId: string, endpoint: string): Promise<void> {
  await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.userId, userId), eq(pushSubscriptions.endpoint, endpoint)))
    .run();
}

export async function deleteSubscriptionsOfUser(db: Db, userId: string): Promise<void> {
  await db.delete(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).run();
}

/** Removes a subscription the push service said is gone, unless it was given new keys meanwhile. */
export async function deleteGoneSubscription(db: Db, endpoint: string, p256dh: string): Promise<void> {
  await db
    .delete(pushSubscriptions)
    .where(and(eq(pushSubscriptions.endpoint, endpoint), eq(pushSubscriptions.p256dh, p256dh)))
    .run();
}

export async function countSubscriptionsOf(db: Db, userId: string): Promise<number> {
  return (
    (await db.select({ n: count() }).from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).get())?.n ?? 0
  );
}

/** Subscriptions of active users: of the given users, or of everyone but `exceptUserId`. */
const subscriptionColumns = {
  id: pushSubscriptions.id,
  userId: pushSubscriptions.userId,
  endpoint: pushSubscriptions.endpoint,
  p256dh: pushSubscriptions.p256dh,
  auth: pushSubscriptions.auth,
  createdAt: pushSubscriptions.createdAt,
};

/** One user's devices, as a chat message pushes to: prepared once, as it runs before the sender's answer (decision 78). */
const activeSubscriptionsOfUser = preparedFor((db) =>
  db
    .select(subscriptionColumns)
    .from(pushSubscriptions)
    .innerJoin(users, eq(users.id, pushSubscriptions.userId))
    .where(and(eq(pushSubscriptions.userId, sql.placeholder('userId')), eq(users.isActive, true)))
    .prepare(),
);

/** Everyone's devices but one user's, as each Company Announcement pushes to: prepared once (decision 78). */
const activeSubscriptionsExcept = preparedFor((db) =>
  db
    .select(subscriptionColumns)
    .from(pushSubscriptions)
    .innerJoin(users, eq(users.id, pushSubscriptions.userId))
    .where(and(ne(pushSubscriptions.userId, sql.placeholder('userId')), eq(users.isActive, true)))
    .orderBy(asc(pushSubscriptions.userId))
    .prepare(),
);

/** Chosen users' devices, as an urgent post pushes to its audience: the ids go as one JSON array, not one parameter each. */
const activeSubscriptionsOfUsers = preparedFor((db) =>
  db
    .select(subscriptionColumns)
    .from(pushSubscriptions)
    .innerJoin(users, eq(users.id, pushSubscriptions.userId))
    .where(
      and(
        sql`${pushSubscriptions.userId} IN (SELECT value FROM ${jsonValuesSql(db, sql.placeholder('userIds'))})`,
        eq(users.isActive, true),
      ),
    )
    .orderBy(asc(pushSubscriptions.userId))
    .prepare(),
);

export async function listActiveSubscriptions(
  db: Db,
  who: { userIds: string[] } | { exceptUserId: string },
): Promise<PushSubscriptionRow[]> {
  if ('userIds' in who && who.userIds.length === 1)
    return await activeSubscriptionsOfUser(db).all({ userId: who.userIds[0] });
  if ('exceptUserId' in who) return await activeSubscriptionsExcept(db).all({ userId: who.exceptUserId });
  if (who.userIds.length === 0) return [];
  return await activeSubscriptionsOfUsers(db).all({ userIds: JSON.stringify(who.userIds) });
}

/** A user's test notifications sent after `since`, oldest first; older ones are removed. */
export async function listRecentTestSends(db: Db, userId: string, since: number): Promise<number[]> {
  await db
    .delete(pushTestSends)
    .where(and(eq(pushTestSends.userId, userId), lte(pushTestSends.sentAt, since)))
    .run();
  return (
    await db
      .select({ sentAt: pushTestSends.sentAt })
      .from(pushTestSends)
      .where(eq(pushTestSends.userId, userId))
      .orderBy(asc(pushTestSends.sentAt))
      .all()
  ).map((row) => row.sentAt);
}

export async function insertTestSend(db: Db, userId: string, sentAt: number): Promise<void> {
  await db.insert(pushTestSends).values({ userId, sentAt }).run();
}

/** Rows a multi-row write sends at once: seven values each stay well under SQLite's and PostgreSQL's limits. */
const BURST_ROWS_PER_WRITE = 500;

/** The bursts of one kind for these colleagues. */
export async function listBursts(db: Db, key: string, userIds: string[]): Promise<PushBurstRow[]> {
  if (userIds.length === 0) return [];
  return await db
    .select()
    .from(pushBursts)
    .where(
      and(
        eq(pushBursts.key, key),
        sql`${pushBursts.userId} IN (SELECT value FROM ${jsonValuesSql(db, sql`${JSON.stringify(userIds)}`)})`,
      ),
    )
    .all();
}

/** Stores these bursts as they now are, replacing each one's earlier state. */
export async function saveBursts(db: Db, rows: PushBurstRow[]): Promise<void> {
  for (let at = 0; at < rows.length; at += BURST_ROWS_PER_WRITE) {
    await db
      .insert(pushBursts)
      .values(rows.slice(at, at + BURST_ROWS_PER_WRITE))
      .onConflictDoUpdate({
        target: [pushBursts.key, pushBursts.userId],
        set: {
          windowStart: sql`excluded.window_start`,
          sent: sql`excluded.sent`,
          held: sql`excluded.held`,
          summary: sql`excluded.summary`,
          options: sql`excluded.options`,
        },
      })
      .run();
  }
}

/**
 * Removes the bursts whose window began at or before `startedBy` and answers them: one statement, so of several
 * servers ending the same burst only one gets it (and sends its summary).
 */
export async function takeEndedBursts(db: Db, startedBy: number): Promise<PushBurstRow[]> {
  return await db.delete(pushBursts).where(lte(pushBursts.windowStart, startedBy)).returning().all();
}
