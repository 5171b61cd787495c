import { and, asc, eq, sql } from 'drizzle-orm';
import { jsonValues, statement, type Db } from '../../db/client';
import { acknowledgements, posts, users } from '../../db/tables';

/** The viewer's confirmations among these posts (rows that ask for one and were acknowledged), by primary key. */
export async function listViewerConfirmations(db: Db, viewerId: string, postIds: string[]) {
  if (postIds.length === 0) return [];
  return statement<[string], { postId: string; acknowledgedAt: number; writtenAt: number | null }>(
    db,
    `SELECT post_id AS "postId", acknowledged_at AS "acknowledgedAt", written_at AS "writtenAt" FROM acknowledgements
       WHERE id IN (SELECT value FROM ${jsonValues(db, '?')}) AND confirm AND NOT deleted AND acknowledged_at IS NOT NULL`,
  ).all([JSON.stringify(postIds.map((postId) => `${postId}:${viewerId}`))]);
}

export interface OutstandingRow {
  postId: string;
  category: string;
  content: string;
  authorId: string | null;
  authorFirstName: string | null;
  authorLastName: string | null;
  requestedAt: number;
  confirmBy: string | null;
}

/** The user's live requests not yet confirmed: due dates first, the earliest first, then the oldest requests. */
export async function listOutstanding(db: Db, userId: string): Promise<OutstandingRow[]> {
  return await db
    .select({
      postId: posts.id,
      category: posts.category,
      content: posts.content,
      authorId: posts.authorId,
      authorFirstName: users.firstName,
      authorLastName: users.lastName,
      requestedAt: acknowledgements.createdAt,
      confirmBy: posts.confirmBy,
    })
    .from(acknowledgements)
    .innerJoin(posts, eq(posts.id, acknowledgements.postId))
    .leftJoin(users, eq(users.id, posts.authorId))
    .where(
      and(
        eq(acknowledgements.userId, userId),
        eq(acknowledgements.deleted, false),
        eq(acknowledgements.confirm, true),
        sql`${acknowledgements.acknowledgedAt} IS NULL`,
        eq(posts.requiresConfirmation, true),
        eq(posts.deleted, false),
      ),
    )
    .orderBy(sql`${posts.confirmBy} IS NULL`, asc(posts.confirmBy), asc(acknowledgements.createdAt), asc(posts.id))
    .all();
}

export interface OverviewRow {
  postId: string;
  category: string;
  content: string;
  createdAt: number;
  audienceHouses: string;
  confirmBy: string | null;
  audience: number;
  confirmed: number;
}

/**
 * Every live post requiring confirmation with its audience and confirmations, newest first; with a house, only that
 * house's members count and posts whose audience has none of them are left out.
 */
export async function listOverview(db: Db, house: string | undefined): Promise<OverviewRow[]> {
  const inHouse = house === undefined ? '' : 'AND a.user_id IN (SELECT user_id FROM user_houses WHERE house = @house)';
  // Without a house the text names no parameter: its values are an empty list, as PostgreSQL's driver takes no object.
  return statement<Record<string, string> | [], OverviewRow>(
    db,
    `SELECT p.id AS "postId", p.category, p.content, p.created_at AS "createdAt",
              p.audience_houses AS "audienceHouses", p.confirm_by AS "confirmBy", count(a.id) AS audience,
              count(a.acknowledged_at) AS confirmed
       FROM posts p LEFT JOIN acknowledgements a ON a.post_id = p.id AND NOT a.deleted ${inHouse}
       WHERE p.requires_confirmation AND NOT p.deleted
       GROUP BY p.id ${house === undefined ? '' : 'HAVING count(a.id) > 0'}
       ORDER BY p.created_at DESC, p.id DESC`,
  ).all(house === undefined ? [] : { house });
}

export interface DueConfirmationRow {
  id: string;
  postId: string;
  userId: string;
  confirmBy: string;
  confirmReminders: number;
  confirmRemindedAt: number | null;
  authorFirstName: string | null;
}

/** Open confirmations of active members whose due date is on or before `today` with reminders left, oldest due first. */
export async function listDueConfirmations(db: Db, today: string, maxReminders: number): Promise<DueConfirmationRow[]> {
  return statement<{ today: string; max: number }, DueConfirmationRow>(
    db,
    `SELECT a.id, a.post_id AS "postId", a.user_id AS "userId", p.confirm_by AS "confirmBy",
              a.confirm_reminders AS "confirmReminders", a.confirm_reminded_at AS "confirmRemindedAt",
              (SELECT first_name FROM users au WHERE au.id = p.author_id) AS "authorFirstName"
       FROM acknowledgements a JOIN posts p ON p.id = a.post_id JOIN users u ON u.id = a.user_id
       WHERE a.confirm AND NOT a.deleted AND a.acknowledged_at IS NULL AND a.confirm_reminders < @max
         AND p.requires_confirmation AND NOT p.deleted AND p.confirm_by IS NOT NULL AND p.confirm_by <= @today
         AND u.is_active
       ORDER BY p.confirm_by, a.created_at, a.id`,
  ).all({ today, max: maxReminders });
}

/**
 * Counts a confirmation reminder as sent for each row whose count is still the one read, answering the ids this call
 * counted: of two checks at once, each reminder is claimed by one (not part of the synced document: no new sequence).
 */
export async function claimConfirmReminders(
  db: Db,
  due: Pick<DueConfirmationRow, 'id' | 'confirmReminders'>[],
  at: number,
): Promise<string[]> {
  const claimed: string[] = [];
  // One statement per count read: a handful at most (CONFIRM_REMINDERS_MAX).
  for (const count of new Set(due.map((row) => row.confirmReminders))) {
    const ids = due.filter((row) => row.confirmReminders === count).map((row) => row.id);
    claimed.push(
      ...(await statement(
        db,
        `UPDATE acknowledgements SET confirm_reminders = confirm_reminders + 1, confirm_reminded_at = ?
           WHERE id IN (SELECT value FROM ${jsonValues(db, '?')}) AND confirm_reminders = ? RETURNING id`,
      ).pluck<string>([at, JSON.stringify(ids), count])),
    );
  }
  return claimed;
}
