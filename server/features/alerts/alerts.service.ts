import { startJob, type Job } from '../../lib/jobs';
import { iso, rememberingIso } from '../../lib/iso';
import {
  ALERT_MESSAGES,
  ALERT_REMINDER_AFTER_MS,
  REPORT_CSV_COLUMNS,
  type AcknowledgementView,
  type AlertReport,
  type EmergencyAlert,
  type ReportMember,
} from '../../../schema/alerts';
import type { Count } from '../../../schema/chat';
import { listHouses } from '../../../schema/constants';
import { canSeeAlertReport } from '../../../schema/permissions';
import { DELETED_AUTHOR, toPostCategory } from '../../../schema/posts';
import { acknowledgementId, type AcknowledgementDoc } from '../../../schema/sync';
import { inTransaction } from '../../db/client';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { forbidden, notFound } from '../../lib/errors';
import { boundWrittenAt } from '../../lib/written-at';
import { recordAudit } from '../audit/audit.service';
import { groupByHouse, houseGroupsCsv, houseOrder, parseHouseList } from '../houses/houses.service';
import {
  countUnviewedMentionEntries,
  listMentionEntryDocsOfUsersSince,
  listMentionEntryDocsSince,
} from '../mentions/mentions.service';
import {
  announcementPush,
  PUSH_OPTIONS,
  pushToEveryoneBut,
  pushToUsers,
  reminderPush,
  urgentPush,
} from '../push/push.service';
import {
  applyAudienceChange,
  claimReminders,
  countUnviewed,
  findAcknowledgement,
  findAlertPost,
  listAcknowledgementsOfPost,
  listAcknowledgementsSince,
  listAllAcknowledgementsSince,
  listAudienceIds,
  listDueReminders,
  listReportRows,
  listUnacknowledged,
  updateAcknowledged,
  updateViewed,
  type AcknowledgementDocRow,
  type AcknowledgementRow,
  type AlertPostRow,
  type AudienceAsk,
  type ReportRow,
} from './alerts.queries';

/** Reminders sent per check at most; the next check (30 s later) takes the rest. */
const REMINDERS_PER_CHECK = 500;

const authorFirstName = (post: { authorFirstName: string | null }) => post.authorFirstName ?? DELETED_AUTHOR.firstName;
const isLiveAlert = (post: AlertPostRow | undefined): post is AlertPostRow =>
  Boolean(post && post.isUrgent && !post.deleted);

/**
 * Brings a post's rows in line with its audience (decisions 32 and 136): when it becomes urgent or requires
 * confirmation, or its audience changes, new members get their row (and an urgent post a push); members no longer
 * addressed, and everyone when it neither is urgent nor requires confirmation or is deleted, lose it unless they
 * have already acknowledged it. A kept row takes what the post now asks: a row that becomes an alert is raised as a
 * fresh one. Called by the posts service after every create, edit and delete.
 */
export async function syncAlertAudience(deps: AppDeps, postId: string): Promise<void> {
  const post = await findAlertPost(deps.db, postId);
  if (!post) return;
  const ask: AudienceAsk = { alert: post.isUrgent, confirm: post.requiresConfirmation };
  const addressed = !post.deleted && (ask.alert || ask.confirm);
  const target = new Set<string>(
    addressed ? await listAudienceIds(deps.db, parseHouseList(post.audienceHouses), post.authorId) : [],
  );
  const rows = await listAcknowledgementsOfPost(deps.db, postId);
  const known = new Set(rows.map((row) => row.userId));
  const kept = rows.filter((row) => !row.deleted && target.has(row.userId));
  const raised = kept.filter((row) => ask.alert && !row.alert && row.acknowledgedAt === null);
  const change = {
    add: [...target].filter((userId) => !known.has(userId)),
    revive: rows.filter((row) => row.deleted && target.has(row.userId)).map((row) => row.id),
    raise: raised.map((row) => row.id),
    reflag: kept
      .filter((row) => !raised.includes(row) && (row.alert !== ask.alert || row.confirm !== ask.confirm))
      .map((row) => row.id),
    withdraw: rows
      .filter((row) => !row.deleted && row.acknowledgedAt === null && !target.has(row.userId))
      .map((row) => row.id),
  };
  const count = Object.values(change).reduce((sum, ids) => sum + ids.length, 0);
  if (count === 0) return;
  await applyAudienceChange(deps.db, postId, change, ask, deps.now());
  const userOf = (id: string) => id.slice(postId.length + 1);
  const renewed = [...change.add, ...[...change.revive, ...change.raise].map(userOf)];
  deps.hub.notify('acknowledgements', [...renewed, ...change.withdraw.map(userOf)]);
  const alerted = ask.alert ? [...change.add, ...[...change.revive, ...change.raise].map(userOf)] : [];
  if (alerted.length > 0)
    await pushToUsers(deps, alerted, urgentPush(authorFirstName(post), postId), PUSH_OPTIONS.urgent);
}

/**
 * A post was just created: an urgent post alerts its audience, one that requires confirmation asks its audience
 * (decision 136); an ordinary Company Announcement is pushed to every active colleague but its author.
 */
export async function announcePost(deps: AppDeps, postId: string): Promise<void> {
  const post = await findAlertPost(deps.db, postId);
  if (!post || post.deleted) return;
  if (post.isUrgent) return await syncAlertAudience(deps, postId);
  if (post.requiresConfirmation) await syncAlertAudience(deps, postId);
  if (toPostCategory(post.category) === 'company_announcement' && post.authorId) {
    const name = authorFirstName(post);
    await pushToEveryoneBut(deps, post.authorId, announcementPush(name, postId), PUSH_OPTIONS.announcement, {
      key: `announcement:${post.authorId}`,
      summary: { kind: 'announcements', authorFirstName: name },
    });
  }
}

/** Whole seconds from the alert reaching the user to their acknowledgement as they made it (decision 119). */
const secondsToAcknowledge = (alertedAt: number, writtenAt: number) =>
  Math.max(0, Math.round((writtenAt - alertedAt) / 1000));

/** A row asks for the alert's acknowledgement: it is an alert and its post is a live urgent post. */
const asksAlert = (row: AcknowledgementRow, post: AlertPostRow | undefined) => row.alert && isLiveAlert(post);
/** A row asks for a confirmation of reading: it is one and its post is live and requires confirmation. */
export const asksConfirmation = (row: AcknowledgementRow, post: AlertPostRow | undefined): post is AlertPostRow =>
  Boolean(row.confirm && post && post.requiresConfirmation && !post.deleted);

/** The user's live row of a post and the post, or undefined. */
export async function findOwnRow(deps: AppDeps, actor: SessionUser, postId: string) {
  const row = await findAcknowledgement(deps.db, acknowledgementId(postId, actor.id));
  return row && !row.deleted ? { row, post: await findAlertPost(deps.db, postId) } : undefined;
}

/**
 * Records the user's one acknowledgement of a row, received now and made `written` (bounded by the row reaching
 * them and by now; decision 119): the alert's acknowledgement and, on a row that asks for one, the confirmation of
 * reading (decision 136), each audited. Answers the row's times; a row already acknowledged keeps its first ones.
 */
export async function recordAcknowledgement(
  deps: AppDeps,
  actor: SessionUser,
  own: { row: AcknowledgementRow; post: AlertPostRow | undefined },
  meta: RequestMeta,
  written?: number,
): Promise<{ acknowledgedAt: number; writtenAt: number }> {
  const { row, post } = own;
  if (row.acknowledgedAt !== null) {
    return { acknowledgedAt: row.acknowledgedAt, writtenAt: row.writtenAt ?? row.acknowledgedAt };
  }
  const at = deps.now();
  const writtenAt = boundWrittenAt(written, row.createdAt, at);
  const seconds = secondsToAcknowledge(row.createdAt, writtenAt);
  const target = { type: 'post', id: row.postId };
  await inTransaction(deps, async (deps) => {
    await updateAcknowledged(deps.db, row.id, at, writtenAt);
    if (asksAlert(row, post)) {
      const details = { secondsToAcknowledge: seconds };
      await recordAudit(deps.db, { actor, action: 'alert.acknowledged', ip: meta.ip, target, details, at });
    }
    if (asksConfirmation(row, post)) {
      const details = { confirmedAt: iso(writtenAt), secondsToConfirm: seconds };
      await recordAudit(deps.db, { actor, action: 'post.confirmed', ip: meta.ip, target, details, at });
    }
  });
  deps.hub.notify('acknowledgements', [actor.id]);
  return { acknowledgedAt: at, writtenAt };
}

/**
 * POST /api/posts/{id}/acknowledge: stores who and when once, the server's time of arrival and the device's time of
 * acknowledging (decision 119). Acknowledging again answers the first times. 404 unless the post is a live urgent
 * post whose audience the user is in.
 */
export async function acknowledgeAlert(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
  meta: RequestMeta,
  written?: number,
): Promise<AcknowledgementView> {
  const own = await findOwnRow(deps, actor, postId);
  if (!own || !asksAlert(own.row, own.post)) return notFound(ALERT_MESSAGES.alertNotFound);
  const times = await recordAcknowledgement(deps, actor, own, meta, written);
  return { postId, acknowledgedAt: iso(times.acknowledgedAt), writtenAt: iso(times.writtenAt) };
}

/**
 * An acknowledgement pushed through sync: the device's one act on its row, an alert's acknowledgement or a
 * confirmation of reading, whichever the row asks (the same as either REST call). 404 when it asks neither.
 */
export async function acknowledgeRow(
  deps: AppDeps,
  actor: SessionUser,
  postId: string,
  meta: RequestMeta,
  written?: number,
) {
  const own = await findOwnRow(deps, actor, postId);
  if (!own || (!asksAlert(own.row, own.post) && !asksConfirmation(own.row, own.post))) {
    return notFound(ALERT_MESSAGES.alertNotFound);
  }
  await recordAcknowledgement(deps, actor, own, meta, written);
}

/**
 * GET /api/alerts/unacknowledged: the EMERGENCY ALERT modal's list, newest first (docs/behaviour.md, "Urgent alerts").
 */
export async function listUnacknowledgedAlerts(deps: AppDeps, actor: SessionUser): Promise<EmergencyAlert[]> {
  return (await listUnacknowledged(deps.db, actor.id)).map((post) => ({
    id: post.id,
    category: post.category,
    createdAt: iso(post.createdAt),
    content: post.content,
    author: post.authorId
      ? { firstName: post.authorFirstName ?? '', lastName: post.authorLastName ?? '' }
      : { ...DELETED_AUTHOR },
  }));
}

/**
 * GET /api/notifications/unviewed-count: the user's urgent posts not yet seen in the bell or acknowledged, and their
 * mention entries not yet seen (decision 144).
 */
export async function countUnviewedAlerts(deps: AppDeps, actor: SessionUser): Promise<Count> {
  return { count: (await countUnviewed(deps.db, actor.id)) + (await countUnviewedMentionEntries(deps, actor)) };
}

/**
 * POST /api/notifications/mark-viewed: marks as seen the user's own alerts among these posts; ids of posts
 * that are not an alert for this user are ignored. Answers the new count.
 */
export async function markAlertsViewed(deps: AppDeps, actor: SessionUser, postIds: string[]): Promise<Count> {
  const changed = await updateViewed(deps.db, actor.id, [...new Set(postIds)], deps.now());
  if (changed > 0) deps.hub.notify('acknowledgements', [actor.id]);
  return await countUnviewedAlerts(deps, actor);
}

/** A report row's acknowledgement: as the member made it (what counts), and as the server received it. */
function acknowledgementTimes(
  row: { createdAt: number; acknowledgedAt: number | null; writtenAt: number | null },
  at: (ms: number) => string,
) {
  if (row.acknowledgedAt === null) return { acknowledgedAt: null, receivedAt: null, secondsToAcknowledge: null };
  const written = row.writtenAt ?? row.acknowledgedAt;
  return {
    acknowledgedAt: at(written),
    receivedAt: at(row.acknowledgedAt),
    secondsToAcknowledge: secondsToAcknowledge(row.createdAt, written),
  };
}

/** A report's row with the member's houses. */
export type AudienceRow = ReportRow & { houses: string[] };

/**
 * A post's audience for its report (this alert's, or its confirmations'), by name, each member with their houses, as
 * `member` lists them; `at` writes a time (remembering, as thousands of rows share a few).
 */
export async function reportAudience<M>(
  deps: AppDeps,
  postId: string,
  member: (row: AudienceRow, at: (ms: number) => string) => M,
): Promise<({ userId: string; firstName: string; lastName: string; houses: string[]; isActive: boolean } & M)[]> {
  const inOrder = houseOrder(deps);
  const at = rememberingIso();
  return (await listReportRows(deps.db, postId)).map((row) => {
    const houses = row.houseList === null ? [] : row.houseList.split('\u001f');
    if (houses.length > 1) houses.sort(inOrder);
    const withHouses = Object.assign(row, { houses });
    const { userId, firstName, lastName, isActive } = row;
    return { userId, firstName, lastName, houses: withHouses.houses, isActive, ...member(withHouses, at) };
  });
}

/**
 * GET /api/alerts/{postId}/report: every member the alert went to, whether and when they acknowledged it and
 * how long it took, grouped by house (a member of several houses is listed under each; the totals count
 * people once). Admins and system admins only.
 */
export async function alertReport(deps: AppDeps, actor: SessionUser, postId: string): Promise<AlertReport> {
  if (!canSeeAlertReport(actor)) forbidden(ALERT_MESSAGES.reportForbidden);
  const post = await findAlertPost(deps.db, postId);
  if (!isLiveAlert(post)) return notFound(ALERT_MESSAGES.alertNotFound);
  const members: ReportMember[] = await reportAudience(deps, postId, (row, at) => ({
    alertedAt: at(row.createdAt),
    ...acknowledgementTimes(row, at),
    remindedAt: row.remindedAt === null ? null : at(row.remindedAt),
  }));
  const groups = groupByHouse(listHouses(deps.config.orgName), members, (inGroup) => {
    const acknowledged = inGroup.filter((m) => m.acknowledgedAt !== null).length;
    return { acknowledged, pending: inGroup.length - acknowledged };
  });
  const acknowledged = members.filter((m) => m.acknowledgedAt !== null).length;
  return {
    post: {
      id: post.id,
      category: post.category,
      createdAt: iso(post.createdAt),
      author: post.authorId
        ? { firstName: post.authorFirstName ?? '', lastName: post.authorLastName ?? '' }
        : { ...DELETED_AUTHOR },
      audienceHouses: parseHouseList(post.audienceHouses),
    },
    totals: { audience: members.length, acknowledged, pending: members.length - acknowledged },
    groups,
  };
}

/**
 * GET /api/alerts/{postId}/report.csv: the report, one line per house and member, given out as the download
 * streams (decision 130). Its members are the report's, held for grouping by house: one per person the alert went to.
 */
export function alertReportCsv(report: AlertReport): Generator<string> {
  return houseGroupsCsv(REPORT_CSV_COLUMNS, report.groups, (m) => [
    m.firstName,
    m.lastName,
    m.houses.join('; '),
    m.isActive ? 'yes' : 'no',
    m.alertedAt,
    m.acknowledgedAt,
    m.secondsToAcknowledge,
    m.remindedAt,
    m.receivedAt,
  ]);
}

/**
 * Sends the one reminder push to every member of a live alert who has not acknowledged it 15 minutes after
 * it reached them. Claimed before sending, so a reminder never repeats even when a push fails, nor when two servers
 * check at once (the job's lock is lost with its connection): each pushes only the reminders its own claim marked.
 */
export async function sendDueReminders(deps: AppDeps): Promise<number> {
  const now = deps.now();
  const listed = await listDueReminders(deps.db, now - ALERT_REMINDER_AFTER_MS, REMINDERS_PER_CHECK);
  if (listed.length === 0) return 0;
  const claimed = new Set(
    await claimReminders(
      deps.db,
      listed.map((row) => row.id),
      now,
    ),
  );
  const due = listed.filter((row) => claimed.has(row.id));
  const byPost = new Map<string, { author: string; userIds: string[] }>();
  for (const row of due) {
    const entry = byPost.get(row.postId) ?? { author: authorFirstName(row), userIds: [] };
    entry.userIds.push(row.userId);
    byPost.set(row.postId, entry);
  }
  for (const [postId, { author, userIds }] of byPost) {
    await pushToUsers(deps, userIds, reminderPush(author, postId), PUSH_OPTIONS.urgent);
  }
  return due.length;
}

/** The reminder scheduler of the server process: checks every `everyMs`; `check` runs one at once (tests). */
export const startAlertReminders = (deps: AppDeps, everyMs: number): Job =>
  startJob(deps, 'Alert reminders', everyMs, () => sendDueReminders(deps));

/** One alert in a user's list as replication sends it. */
export function toAcknowledgementDoc(row: AcknowledgementDocRow): AcknowledgementDoc {
  return {
    id: row.id,
    postId: row.postId,
    userId: row.userId,
    createdAt: row.createdAt,
    acknowledgedAt: row.acknowledgedAt,
    writtenAt: row.writtenAt,
    viewedAt: row.viewedAt,
    _deleted: row.deleted,
  };
}

/** The user's own alert row as they would pull it; anyone else's is null. */
export async function findAcknowledgementDoc(
  deps: AppDeps,
  id: string,
  actor: SessionUser,
): Promise<AcknowledgementDoc | null> {
  const row = await findAcknowledgement(deps.db, id);
  return row && row.userId === actor.id ? toAcknowledgementDoc(row) : null;
}

/** A document with the sequence it was written at, as pulls carry them. */
interface SeqDoc {
  seq: number;
  doc: AcknowledgementDoc;
}

/** Two lists in feed order, (seq, id), merged into one in that order, at most `limit` long. */
function mergedInFeedOrder(a: SeqDoc[], b: SeqDoc[], limit = Infinity): SeqDoc[] {
  const before = (x: SeqDoc, y: SeqDoc) => x.seq < y.seq || (x.seq === y.seq && x.doc.id < y.doc.id);
  const merged: SeqDoc[] = [];
  let i = 0;
  let j = 0;
  while (merged.length < limit && (i < a.length || j < b.length)) {
    merged.push(j >= b.length || (i < a.length && before(a[i], b[j])) ? a[i++] : b[j++]);
  }
  return merged;
}

/**
 * The alert lists of several users changed after a sequence, by user (decision 131): one read for all of them, and
 * one of their mention entries, which travel in the same collection (decision 144).
 */
export async function listAcknowledgementDocsOfUsersSince(deps: AppDeps, userIds: ReadonlySet<string>, seq: number) {
  const byUser = new Map<string, SeqDoc[]>();
  for (const row of await listAllAcknowledgementsSince(deps.db, seq)) {
    if (!userIds.has(row.userId)) continue;
    let rows = byUser.get(row.userId);
    if (!rows) byUser.set(row.userId, (rows = []));
    rows.push({ seq: row.serverSeq, doc: toAcknowledgementDoc(row) });
  }
  for (const [userId, entries] of await listMentionEntryDocsOfUsersSince(deps, userIds, seq)) {
    byUser.set(userId, mergedInFeedOrder(byUser.get(userId) ?? [], entries));
  }
  return byUser;
}

export async function listAcknowledgementDocsSince(
  deps: AppDeps,
  actor: SessionUser,
  seq: number,
  id: string,
  limit: number,
) {
  const alerts = (await listAcknowledgementsSince(deps.db, actor.id, seq, id, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: toAcknowledgementDoc(row),
  }));
  // Mention entries share the collection and the sequence: the page is the first `limit` of both (decision 144).
  return mergedInFeedOrder(alerts, await listMentionEntryDocsSince(deps, actor, seq, id, limit), limit);
}
