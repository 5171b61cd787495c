import { startJob, type Job } from '../../lib/jobs';
import { iso } from '../../lib/iso';
import {
  CONFIRM_CSV_COLUMNS,
  CONFIRM_MESSAGES,
  CONFIRM_REMINDERS_MAX,
  QUIET_HOURS_END,
  QUIET_HOURS_START,
  type ConfirmationMember,
  type ConfirmationOverviewItem,
  type ConfirmationReport,
  type ConfirmationsQuery,
  type ConfirmationView,
  type OutstandingConfirmation,
} from '../../../schema/confirmations';
import { listHouses } from '../../../schema/constants';
import { canRequireConfirmation } from '../../../schema/permissions';
import { DELETED_AUTHOR } from '../../../schema/posts';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { badRequest, forbidden, notFound } from '../../lib/errors';
import { localDayAndHour } from '../../lib/time-zone';
import { findAlertPost } from '../alerts/alerts.queries';
import { asksConfirmation, findOwnRow, recordAcknowledgement, reportAudience } from '../alerts/alerts.service';
import { groupByHouse, houseGroupsCsv, parseHouseList } from '../houses/houses.service';
import { confirmReminderPush, PUSH_OPTIONS, pushToUsers } from '../push/push.service';
import {
  claimConfirmReminders,
  listDueConfirmations,
  listOutstanding,
  listOverview,
  listViewerConfirmations,
} from './confirmations.queries';

/** Whole percent confirmed, rounded down so 100 means everyone; an audience of no one has nothing outstanding. */
const percentOf = (confirmed: number, audience: number) =>
  audience === 0 ? 100 : Math.floor((confirmed * 100) / audience);

const counts = (audience: number, confirmed: number) => ({
  audience,
  confirmed,
  pending: audience - confirmed,
  percent: percentOf(confirmed, audience),
});

/** Today in the provider's time zone (TIME_ZONE), as due dates are written. */
const today = (deps: AppDeps) => localDayAndHour(deps.now(), deps.config.timeZone).day;

/** The viewer's confirmations of these posts as PostView's `confirmedAt`: when they confirmed, as they made it. */
export async function viewerConfirmations(
  deps: AppDeps,
  viewerId: string,
  postIds: string[],
): Promise<Map<string, string>> {
  return new Map(
    (await listViewerConfirmations(deps.db, viewerId, postIds)).map((row) => [
      row.postId,
      iso(row.writtenAt ?? row.acknowledgedAt),
    ]),
  );
}

/**
 * POST /api/posts/{id}/confirm, and a confirmation pushed through sync (the acknowledgements collection): the user's
 * one acknowledgement of their row, with the device's time bounded by the request reaching them and by arrival
 * (decision 119), audited as `post.confirmed`. Confirming again answers the first time. 404 unless the post is live,
 * requires confirmation, and asks it of this user (decision 136).
 */
export async function confirmPost(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
  meta: RequestMeta,
  written?: number,
): Promise<ConfirmationView> {
  const own = await findOwnRow(deps, actor, postId);
  if (!own || !asksConfirmation(own.row, own.post)) return notFound(CONFIRM_MESSAGES.notFound);
  const times = await recordAcknowledgement(deps, actor, own, meta, written);
  return { postId, confirmedAt: iso(times.writtenAt) };
}

/** GET /api/confirmations/outstanding: the user's posts still to confirm, the earliest due first. */
export async function listOutstandingConfirmations(
  deps: AppDeps,
  actor: SessionUser,
): Promise<OutstandingConfirmation[]> {
  return (await listOutstanding(deps.db, actor.id)).map((row) => ({
    postId: row.postId,
    category: row.category,
    content: row.content,
    author: row.authorId
      ? { firstName: row.authorFirstName ?? '', lastName: row.authorLastName ?? '' }
      : { ...DELETED_AUTHOR },
    requestedAt: iso(row.requestedAt),
    confirmBy: row.confirmBy,
  }));
}

/**
 * GET /api/posts/{id}/confirmations: every member asked, whether and when they confirmed, grouped by house (a member
 * of several houses is listed under each; the totals count people once). Admins and system admins only.
 */
export async function confirmationReport(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
): Promise<ConfirmationReport> {
  if (!canRequireConfirmation(actor)) forbidden(CONFIRM_MESSAGES.reportForbidden);
  const post = await findAlertPost(deps.db, postId);
  if (!post || post.deleted || !post.requiresConfirmation) return notFound(CONFIRM_MESSAGES.postNotFound);
  const members: ConfirmationMember[] = await reportAudience(deps, postId, (row, at) => ({
    requestedAt: at(row.createdAt),
    confirmedAt: row.acknowledgedAt === null ? null : at(row.writtenAt ?? row.acknowledgedAt),
    receivedAt: row.acknowledgedAt === null ? null : at(row.acknowledgedAt),
    remindersSent: row.confirmReminders,
  }));
  const groups = groupByHouse(listHouses(deps.config.orgName), members, (inGroup) =>
    counts(inGroup.length, inGroup.filter((m) => m.confirmedAt !== null).length),
  );
  return {
    post: {
      id: post.id,
      category: post.category,
      isUrgent: post.isUrgent,
      createdAt: iso(post.createdAt),
      author: post.authorId
        ? { firstName: post.authorFirstName ?? '', lastName: post.authorLastName ?? '' }
        : { ...DELETED_AUTHOR },
      audienceHouses: parseHouseList(post.audienceHouses),
      confirmBy: post.confirmBy,
    },
    totals: counts(members.length, members.filter((m) => m.confirmedAt !== null).length),
    groups,
  };
}

/**
 * GET /api/posts/{id}/confirmations.csv: the report, one line per house and member, given out as the download
 * streams (decision 130); its members are the report's, one per person asked.
 */
export function confirmationReportCsv(report: ConfirmationReport): Generator<string> {
  return houseGroupsCsv(CONFIRM_CSV_COLUMNS, report.groups, (m) => [
    m.firstName,
    m.lastName,
    m.houses.join('; '),
    m.isActive ? 'yes' : 'no',
    m.requestedAt,
    m.confirmedAt,
    m.receivedAt,
    m.remindersSent,
  ]);
}

/**
 * GET /api/confirmations: every live post requiring confirmation with its percentage, newest first; `house` counts
 * only that house's members, `overdue=1` keeps the posts past their due date with someone still to confirm.
 */
export async function confirmationsOverview(
  deps: AppDeps,
  actor: SessionUser,
  query: ConfirmationsQuery,
): Promise<ConfirmationOverviewItem[]> {
  if (!canRequireConfirmation(actor)) forbidden(CONFIRM_MESSAGES.reportForbidden);
  if (query.house !== undefined && !listHouses(deps.config.orgName).includes(query.house)) {
    badRequest(`Unknown house: ${query.house}`);
  }
  const day = today(deps);
  const items = (await listOverview(deps.db, query.house)).map((row) => ({
    postId: row.postId,
    category: row.category,
    content: row.content,
    createdAt: iso(row.createdAt),
    audienceHouses: parseHouseList(row.audienceHouses),
    confirmBy: row.confirmBy,
    overdue: row.confirmBy !== null && row.confirmBy < day && row.confirmed < row.audience,
    ...counts(row.audience, row.confirmed),
  }));
  return query.overdue ? items.filter((item) => item.overdue) : items;
}

/** Whether reminders may go out at this hour of the provider's day (never from 22:00 to 07:00). */
export const inQuietHours = (hour: number) => hour >= QUIET_HOURS_START || hour < QUIET_HOURS_END;

/**
 * Sends the confirmation reminders that are due: one on the due date, then one a day until confirmed, at most 5,
 * never in quiet hours, all in the provider's time zone (decision 136). A reminder is claimed (counted) before it is
 * sent, so none repeats even when a push fails, nor when two servers check at once (the job's lock is lost with its
 * connection); "a day" is the next calendar day, so a check every 30 s sends each once.
 */
export async function sendDueConfirmReminders(deps: AppDeps): Promise<number> {
  const now = deps.now();
  const { day, hour } = localDayAndHour(now, deps.config.timeZone);
  if (inQuietHours(hour)) return 0;
  const listed = (await listDueConfirmations(deps.db, day, CONFIRM_REMINDERS_MAX)).filter(
    (row) => row.confirmRemindedAt === null || localDayAndHour(row.confirmRemindedAt, deps.config.timeZone).day < day,
  );
  if (listed.length === 0) return 0;
  const claimed = new Set(await claimConfirmReminders(deps.db, listed, now));
  const due = listed.filter((row) => claimed.has(row.id));
  const byPost = new Map<string, { author: string; userIds: string[] }>();
  for (const row of due) {
    const entry = byPost.get(row.postId) ?? { author: row.authorFirstName ?? DELETED_AUTHOR.firstName, userIds: [] };
    entry.userIds.push(row.userId);
    byPost.set(row.postId, entry);
  }
  for (const [postId, { author, userIds }] of byPost) {
    await pushToUsers(deps, userIds, confirmReminderPush(author, postId), PUSH_OPTIONS.announcement);
  }
  return due.length;
}

/** The confirmation reminder scheduler of the server process: checks every `everyMs`; `check` runs one (tests). */
export const startConfirmReminders = (deps: AppDeps, everyMs: number): Job =>
  startJob(deps, 'Confirmation reminders', everyMs, () => sendDueConfirmReminders(deps));
