import { randomUUID } from 'node:crypto';
import { listHouses } from '../../../schema/constants';
import { DELETED_AUTHOR } from '../../../schema/posts';
import {
  HANDOVER_CORRECTION_MS,
  HANDOVER_MESSAGES,
  HANDOVER_REPORT_COLUMNS,
  shiftAt,
  type AddendumBody,
  type CorrectHandoverBody,
  type CreateHandoverBody,
  type HandoverPage,
  type HandoverPerson,
  type HandoverReader,
  type HandoverReads,
  type HandoverReport,
  type HandoverReportQuery,
  type HandoverReportRow,
  type HandoverView,
} from '../../../schema/handovers';
import { isLimitedToOwnHouses } from '../../../schema/permissions';
import type { AccountType, Role } from '../../../schema/roles';
import { KEPT_MAX_AGE_MS } from '../../../schema/kept-rules';
import type { HandoverDoc, HandoverViewPush, ResidentViewDoc } from '../../../schema/sync';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { csvLine } from '../../lib/csv';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { localDayAndHour, localMinuteOfDay, startOfLocalDay } from '../../lib/time-zone';
import { boundWrittenAt } from '../../lib/written-at';
import { recordAudit } from '../audit/audit.service';
import { housesByUser } from '../houses/houses.service';
import { parseList } from '../posts/posts.service';
import { areActiveResidentsOf } from '../residents/residents.service';
import { accountCreatedAt, accountTypeOf } from '../users/users.service';
import {
  bumpHandover,
  findAddendum,
  findHandover,
  findHandoverView,
  hasHandoverViewBetween,
  insertAddendum,
  insertHandover,
  insertHandoverView,
  insertRead,
  listAddenda,
  listHandoversBetween,
  listHandoversForUser,
  listHandoverViewsSince,
  listHouseHandovers,
  listHouseMembers,
  listPeople,
  listReads,
  updateHandover,
  upsertAccess,
  type AddendumRow,
  listHouseReaderIds,
  type HandoverRow,
  type HandoverViewRow,
  type PersonRow,
  type ReadRow,
} from './handovers.queries';
import { inTransaction } from '../../db/client';

const iso = (ms: number) => new Date(ms).toISOString();
const isAdmin = (role: Role) => role === 'admin' || role === 'system_admin';

/** What decides whose notes a user sees: role, account type and houses. */
interface ReaderAccount {
  role: Role;
  type: AccountType;
  houses: readonly string[];
}

/** Admins see every house's notes, unless they are bank or agency staff, who see their own houses' (decision 151). */
const seesEveryHouse = (account: Pick<ReaderAccount, 'role' | 'type'>) =>
  isAdmin(account.role) && !isLimitedToOwnHouses(account);

/** The houses whose notes a user sees: every house for admins, else the houses they work in (decisions 138, 151). */
function visibleHouses(deps: AppDeps, account: ReaderAccount): string[] {
  return seesEveryHouse(account) ? listHouses(deps.config.orgName) : [...account.houses];
}

async function housesOf(deps: AppDeps, userId: string): Promise<string[]> {
  return (await housesByUser(deps, [userId])).get(userId) ?? [];
}

async function accountOf(deps: AppDeps, actor: SessionUser): Promise<ReaderAccount> {
  return { role: actor.role, type: await accountTypeOf(deps, actor.id), houses: await housesOf(deps, actor.id) };
}

/** Audit entries name the note and what changed, never the words (they may carry health data, as residents'). */
async function audit(
  deps: AppDeps,
  actor: SessionUser,
  action: string,
  id: string,
  meta: RequestMeta,
  details?: object,
) {
  await recordAudit(deps.db, {
    actor,
    action,
    ip: meta.ip,
    target: { type: 'handover', id },
    details: details as Record<string, unknown> | undefined, // a plain object of JSON values
    at: deps.now(),
  });
}

function requireKnownHouse(deps: AppDeps, house: string): void {
  if (!listHouses(deps.config.orgName).includes(house)) notFound(HANDOVER_MESSAGES.houseNotFound);
}

/** Whether the user sees this note now: staff of its house and admins (decision 151); a hidden one only admins. */
async function canSee(deps: AppDeps, actor: SessionUser, row: HandoverRow): Promise<boolean> {
  if (!visibleHouses(deps, await accountOf(deps, actor)).includes(row.house)) return false;
  return !row.hidden || isAdmin(actor.role);
}

/** The note with this id if the user may see it; 404 otherwise, so nobody learns of another house's notes. */
async function requireVisible(deps: AppDeps, actor: SessionUser, id: string): Promise<HandoverRow> {
  const row = await findHandover(deps.db, id);
  return row && (await canSee(deps, actor, row)) ? row : notFound(HANDOVER_MESSAGES.notFound);
}

function checkShift(deps: AppDeps, shift: string): void {
  const names = deps.config.shifts.map((s) => s.name);
  if (!names.includes(shift)) badRequest(HANDOVER_MESSAGES.unknownShift(names));
}

async function checkResidents(deps: AppDeps, house: string, ids: readonly string[]): Promise<void> {
  if (!(await areActiveResidentsOf(deps, house, ids))) badRequest(HANDOVER_MESSAGES.unknownResident);
}

// Views ----------------------------------------------------------------------------------------------------------

function toPerson(row: PersonRow | undefined): HandoverPerson {
  return row ? { id: row.id, firstName: row.firstName, lastName: row.lastName } : { id: null, ...DELETED_AUTHOR };
}

/** What several notes' views need besides their rows: addenda, reads, the people named and each house's members. */
interface ViewParts {
  addenda: Map<string, AddendumRow[]>;
  reads: Map<string, ReadRow[]>;
  people: Map<string, PersonRow>;
  members: Map<string, PersonRow[]>;
}

function group<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const row of rows) map.set(key(row), [...(map.get(key(row)) ?? []), row]);
  return map;
}

async function loadParts(deps: AppDeps, rows: HandoverRow[]): Promise<ViewParts> {
  const ids = rows.map((r) => r.id);
  const addenda = await listAddenda(deps.db, ids);
  const reads = await listReads(deps.db, ids);
  const personIds = new Set<string>();
  for (const r of rows) if (r.authorId) personIds.add(r.authorId);
  for (const a of addenda) if (a.authorId) personIds.add(a.authorId);
  for (const r of reads) personIds.add(r.userId);
  const members = new Map<string, PersonRow[]>();
  for (const house of new Set(rows.map((r) => r.house))) members.set(house, await listHouseMembers(deps.db, house));
  return {
    addenda: group(addenda, (a) => a.handoverId),
    reads: group(reads, (r) => r.handoverId),
    people: new Map((await listPeople(deps.db, [...personIds])).map((p) => [p.id, p])),
    members,
  };
}

/** "On shift" for a note: the active members of its house other than its author (decision 138). */
function onShiftOf(parts: ViewParts, row: HandoverRow): PersonRow[] {
  return (parts.members.get(row.house) ?? []).filter((member) => member.id !== row.authorId);
}

function readCounts(parts: ViewParts, row: HandoverRow): { readCount: number; onShiftCount: number } {
  const onShift = onShiftOf(parts, row);
  const readers = new Set((parts.reads.get(row.id) ?? []).map((r) => r.userId));
  return { readCount: onShift.filter((m) => readers.has(m.id)).length, onShiftCount: onShift.length };
}

function toView(parts: ViewParts, row: HandoverRow, actorId: string): HandoverView {
  const own = (parts.reads.get(row.id) ?? []).find((r) => r.userId === actorId);
  return {
    id: row.id,
    house: row.house,
    shift: row.shift,
    author: toPerson(row.authorId ? parts.people.get(row.authorId) : undefined),
    content: row.content,
    residentIds: parseList<string>(row.residentIds),
    createdAt: iso(row.createdAt),
    writtenAt: iso(row.writtenAt),
    correctedAt: row.correctedAt === null ? null : iso(row.correctedAt),
    correctableUntil: iso(row.createdAt + HANDOVER_CORRECTION_MS),
    addenda: (parts.addenda.get(row.id) ?? []).map((a) => ({
      id: a.id,
      author: toPerson(a.authorId ? parts.people.get(a.authorId) : undefined),
      content: a.content,
      createdAt: iso(a.createdAt),
      writtenAt: iso(a.writtenAt),
    })),
    ...readCounts(parts, row),
    readAt: own ? iso(own.readAt) : null,
    hidden: row.hidden,
  };
}

async function viewOf(deps: AppDeps, id: string, actor: SessionUser): Promise<HandoverView> {
  const row = (await findHandover(deps.db, id)) ?? notFound(HANDOVER_MESSAGES.notFound);
  return toView(await loadParts(deps, [row]), row, actor.id);
}

// REST -----------------------------------------------------------------------------------------------------------

function encodeCursor(row: HandoverRow): string {
  return Buffer.from(`${row.createdAt}.${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  const match = /^(\d{1,16})\.([\w-]{1,100})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? { createdAt: Number(match[1]), id: match[2] } : badRequest('This page link is invalid');
}

/**
 * GET /api/houses/{house}/handovers: newest first. Staff of the house and admins (who also see hidden notes, marked);
 * a staff member in no house gets an empty list with the reason; anyone else 404.
 */
export async function listHandovers(
  deps: AppDeps,
  actor: SessionUser,
  house: string,
  query: { limit: number; cursor?: string },
): Promise<HandoverPage> {
  requireKnownHouse(deps, house);
  const now = deps.now();
  const shifts = deps.config.shifts;
  const page = {
    house,
    shifts: shifts.map((s) => s.name),
    currentShift: shiftAt(shifts, localMinuteOfDay(now, deps.config.timeZone)).name,
  };
  const account = await accountOf(deps, actor);
  const everyHouse = seesEveryHouse(account);
  if (!everyHouse && account.houses.length === 0)
    return { ...page, items: [], nextCursor: null, reason: HANDOVER_MESSAGES.noHouse };
  if (!everyHouse && !account.houses.includes(house)) notFound(HANDOVER_MESSAGES.houseNotFound);
  const before = query.cursor ? decodeCursor(query.cursor) : null;
  const rows = await listHouseHandovers(deps.db, house, before, isAdmin(actor.role), query.limit + 1);
  const items = rows.slice(0, query.limit);
  const parts = await loadParts(deps, items);
  return {
    ...page,
    items: items.map((row) => toView(parts, row, actor.id)),
    nextCursor: rows.length > query.limit ? encodeCursor(items[items.length - 1]) : null,
  };
}

/**
 * GET /api/handovers/{id}: one note; every opening is audited (`handover.viewed`, with the time it was seen, so the
 * device's openings of the same note are compared with it: decision 142).
 */
export async function viewHandover(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  meta: RequestMeta,
): Promise<HandoverView> {
  const row = await requireVisible(deps, actor, id);
  await audit(deps, actor, 'handover.viewed', id, meta, { house: row.house, viewedAt: iso(deps.now()), via: 'api' });
  return toView(await loadParts(deps, [row]), row, actor.id);
}

/**
 * POST /api/houses/{house}/handovers: a note by a member of the house. A device-made id sent again (a lost answer)
 * answers the stored note; an id another note has is refused (409).
 */
export async function createHandover(
  deps: AppDeps,
  actor: SessionUser,
  house: string,
  body: CreateHandoverBody,
  meta: RequestMeta,
): Promise<HandoverView> {
  requireKnownHouse(deps, house);
  const account = await accountOf(deps, actor);
  if (!account.houses.includes(house)) {
    if (seesEveryHouse(account)) forbidden(HANDOVER_MESSAGES.writeForbidden);
    notFound(HANDOVER_MESSAGES.houseNotFound);
  }
  const id = body.id ?? randomUUID();
  const at = deps.now();
  // The id check and the insert in one transaction: the same note sent twice at once is stored once.
  const stored = await inTransaction(deps, async (deps) => {
    if (body.id) {
      const existing = await findHandover(deps.db, body.id);
      if (existing && existing.authorId === actor.id && existing.house === house) return false;
      if (existing) conflict(HANDOVER_MESSAGES.idTaken);
    }
    checkShift(deps, body.shift);
    await checkResidents(deps, house, body.residentIds);
    await insertHandover(deps.db, {
      id,
      house,
      shift: body.shift,
      authorId: actor.id,
      content: body.content,
      residentIds: JSON.stringify(body.residentIds),
      createdAt: at,
      writtenAt: boundWrittenAt(body.writtenAt, await accountCreatedAt(deps, actor.id), at),
      updatedAt: at,
    });
    await audit(deps, actor, 'handover.created', id, meta, {
      house,
      shift: body.shift,
      residents: body.residentIds.length,
    });
    return true;
  });
  if (stored) await notifyReaders(deps, house);
  return viewOf(deps, id, actor);
}

/** PATCH /api/handovers/{id}: the author corrects shift, words or residents in the note's first hour (server time). */
export async function correctHandover(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: CorrectHandoverBody,
  meta: RequestMeta,
): Promise<HandoverView> {
  const row = await requireVisible(deps, actor, id);
  if (row.authorId !== actor.id) forbidden(HANDOVER_MESSAGES.correctOwn);
  const at = deps.now();
  if (at - row.createdAt > HANDOVER_CORRECTION_MS) conflict(HANDOVER_MESSAGES.correctionWindow);
  if (body.shift !== undefined) checkShift(deps, body.shift);
  if (body.residentIds !== undefined) await checkResidents(deps, row.house, body.residentIds);
  const next = {
    shift: body.shift ?? row.shift,
    content: body.content ?? row.content,
    residentIds: body.residentIds === undefined ? row.residentIds : JSON.stringify(body.residentIds),
  };
  const fields = (['shift', 'content', 'residentIds'] as const).filter((field) => next[field] !== row[field]);
  if (fields.length === 0) return viewOf(deps, id, actor);
  await inTransaction(deps, async (deps) => {
    await updateHandover(deps.db, id, { ...next, correctedAt: at, updatedAt: Math.max(at, row.updatedAt + 1) });
    await audit(deps, actor, 'handover.corrected', id, meta, { fields });
  });
  await notifyReaders(deps, row.house);
  return viewOf(deps, id, actor);
}

/**
 * POST /api/handovers/{id}/addenda: anyone who sees the note appends to it; the original stays. A device-made id sent
 * again answers the note as it is.
 */
export async function addAddendum(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: AddendumBody,
  meta: RequestMeta,
): Promise<HandoverView> {
  const row = await requireVisible(deps, actor, id);
  const at = deps.now();
  const addendumId = body.id ?? randomUUID();
  // The id check and the insert in one transaction: the same addendum sent twice at once is stored once.
  const stored = await inTransaction(deps, async (deps) => {
    if (body.id) {
      const existing = await findAddendum(deps.db, body.id);
      if (existing && existing.authorId === actor.id && existing.handoverId === id) return false;
      if (existing) conflict(HANDOVER_MESSAGES.addendumIdTaken);
    }
    await insertAddendum(deps.db, {
      id: addendumId,
      handoverId: id,
      authorId: actor.id,
      content: body.content,
      createdAt: at,
      writtenAt: boundWrittenAt(body.writtenAt, row.createdAt, at),
    });
    await bumpHandover(deps.db, id, at);
    await audit(deps, actor, 'handover.addendum', id, meta, { addendumId });
    return true;
  });
  if (stored) await notifyReaders(deps, row.house);
  return viewOf(deps, id, actor);
}

/**
 * POST /api/handovers/{id}/read: marks the note read by the user, once; a second call answers the first read. The
 * device's time is kept, never before the note reached the server nor after now (docs/sync.md, "Two times").
 */
export async function markHandoverRead(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  writtenAt: number | undefined,
  meta: RequestMeta,
): Promise<HandoverView> {
  const row = await requireVisible(deps, actor, id);
  const at = deps.now();
  const readAt = boundWrittenAt(writtenAt, row.createdAt, at);
  const fresh = await inTransaction(deps, async (deps) => {
    if (!(await insertRead(deps.db, { handoverId: id, userId: actor.id, readAt, recordedAt: at }))) return false;
    await bumpHandover(deps.db, id, at);
    await audit(deps, actor, 'handover.read', id, meta, { readAt: iso(readAt) });
    return true;
  });
  if (fresh) await notifyReaders(deps, row.house);
  return viewOf(deps, id, actor);
}

/** GET /api/handovers/{id}/reads: who on shift has read the note, and when; audited as an opening. */
export async function listHandoverReads(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  meta: RequestMeta,
): Promise<HandoverReads> {
  const row = await requireVisible(deps, actor, id);
  await audit(deps, actor, 'handover.viewed', id, meta, {
    house: row.house,
    reads: true,
    viewedAt: iso(deps.now()),
    via: 'api',
  });
  const parts = await loadParts(deps, [row]);
  const reads = new Map((parts.reads.get(id) ?? []).map((r) => [r.userId, r.readAt]));
  const onShift = onShiftOf(parts, row);
  const reader = (person: PersonRow | undefined, userId: string): HandoverReader => ({
    user: toPerson(person),
    readAt: reads.has(userId) ? iso(reads.get(userId)!) : null, // has() checked
  });
  const onShiftIds = new Set(onShift.map((m) => m.id));
  return {
    handoverId: id,
    ...readCounts(parts, row),
    onShift: onShift.map((m) => reader(m, m.id)),
    others: [...reads.keys()].filter((userId) => !onShiftIds.has(userId)).map((u) => reader(parts.people.get(u), u)),
  };
}

/** POST /api/handovers/{id}/hide: an admin hides a note written in the wrong house; it stays, marked, for admins. */
export async function hideHandover(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  meta: RequestMeta,
): Promise<HandoverView> {
  const row = await requireVisible(deps, actor, id);
  if (!isAdmin(actor.role)) forbidden(HANDOVER_MESSAGES.hideForbidden);
  if (row.hidden) return viewOf(deps, id, actor);
  const at = deps.now();
  await inTransaction(deps, async (deps) => {
    await updateHandover(deps.db, id, {
      hidden: true,
      hiddenAt: at,
      hiddenBy: actor.id,
      updatedAt: Math.max(at, row.updatedAt + 1),
    });
    await audit(deps, actor, 'handover.hidden', id, meta, { house: row.house });
  });
  await notifyReaders(deps, row.house);
  return viewOf(deps, id, actor);
}

/** A note's change is told to those who may see it, not every open stream (each would otherwise run its pull). */
async function notifyReaders(deps: AppDeps, house: string): Promise<void> {
  deps.hub.notify('handovers', await listHouseReaderIds(deps.db, house));
}

// Report ---------------------------------------------------------------------------------------------------------

/**
 * GET /api/handovers/report (admins): per house and day (TIME_ZONE), the notes written and how many of the reads
 * expected from the next shift (each note's on-shift members) were made. Hidden notes are left out. The CSV and the
 * JSON form are this one function's figures (decision 142).
 */
export async function handoverReport(
  deps: AppDeps,
  actor: SessionUser,
  query: HandoverReportQuery,
): Promise<HandoverReport> {
  if (!isAdmin(actor.role)) forbidden(HANDOVER_MESSAGES.reportForbidden);
  if (query.house !== undefined) requireKnownHouse(deps, query.house);
  // A bank or agency admin's report covers their own houses only (decision 151).
  const visible = visibleHouses(deps, await accountOf(deps, actor));
  if (query.house !== undefined && !visible.includes(query.house)) notFound(HANDOVER_MESSAGES.houseNotFound);
  const zone = deps.config.timeZone;
  const houses = query.house === undefined ? visible : [query.house];
  const dayAfter = new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const rows = await listHandoversBetween(
    deps.db,
    houses,
    startOfLocalDay(query.from, zone),
    startOfLocalDay(dayAfter, zone),
  );
  const parts = await loadParts(deps, rows);
  const lines = new Map<string, HandoverReportRow>();
  for (const row of rows) {
    const day = localDayAndHour(row.createdAt, zone).day;
    const key = `${row.house}\n${day}`;
    const line = lines.get(key) ?? { house: row.house, day, notes: 0, reads: 0, expected: 0, percent: null };
    const { readCount, onShiftCount } = readCounts(parts, row);
    lines.set(key, {
      ...line,
      notes: line.notes + 1,
      reads: line.reads + readCount,
      expected: line.expected + onShiftCount,
    });
  }
  const withShare = [...lines.values()].map((l) => ({
    ...l,
    percent: l.expected === 0 ? null : Math.round((l.reads / l.expected) * 100),
  }));
  return { from: query.from, to: query.to, house: query.house ?? null, rows: withShare };
}

/** GET /api/handovers/report.csv (admins): the report's lines, cells through the formula guard. */
export async function handoverReportCsv(
  deps: AppDeps,
  actor: SessionUser,
  query: HandoverReportQuery,
): Promise<Iterator<string>> {
  const report = await handoverReport(deps, actor, query);
  return (function* () {
    yield csvLine(HANDOVER_REPORT_COLUMNS);
    for (const l of report.rows)
      yield csvLine([l.house, l.day, l.notes, l.reads, l.expected, l.percent === null ? '' : `${l.percent}%`]);
  })();
}

// Access and sync ------------------------------------------------------------------------------------------------

/**
 * Called when a user's houses, role or account type change: the houses whose notes they began or stopped seeing get a
 * new place in their change feed, so their next pull brings those notes, or their tombstones (decisions 138, 151).
 */
export async function handoverAccessChanged(
  deps: AppDeps,
  userId: string,
  before: ReaderAccount,
  after: ReaderAccount,
): Promise<void> {
  const was = new Set(visibleHouses(deps, before));
  const is = new Set(visibleHouses(deps, after));
  const changes = [
    ...[...is].filter((h) => !was.has(h)).map((house) => ({ house, visible: true })),
    ...[...was].filter((h) => !is.has(h)).map((house) => ({ house, visible: false })),
  ];
  if (changes.length === 0) return;
  await upsertAccess(deps.db, userId, changes);
  deps.hub.notify('handovers', [userId]);
}

const BLANK = {
  house: '',
  shift: '',
  authorId: null,
  content: '',
  residentIds: [],
  correctedAt: null,
  addenda: [],
  reads: [],
  readAt: null,
};

function toDoc(parts: ViewParts, row: HandoverRow, actor: SessionUser, visible: boolean): HandoverDoc {
  const base = { id: row.id, createdAt: row.createdAt, writtenAt: row.writtenAt, updatedAt: row.updatedAt };
  if (!visible || (row.hidden && !isAdmin(actor.role))) return { ...base, ...BLANK, hidden: false, _deleted: true };
  const reads = parts.reads.get(row.id) ?? [];
  return {
    ...base,
    house: row.house,
    shift: row.shift,
    authorId: row.authorId,
    content: row.content,
    residentIds: parseList<string>(row.residentIds),
    correctedAt: row.correctedAt,
    addenda: (parts.addenda.get(row.id) ?? []).map((a) => ({
      id: a.id,
      authorId: a.authorId,
      content: a.content,
      createdAt: a.createdAt,
      writtenAt: a.writtenAt,
    })),
    reads: reads.map((r) => ({ userId: r.userId, readAt: r.readAt })),
    readAt: reads.find((r) => r.userId === actor.id)?.readAt ?? null,
    hidden: row.hidden,
    _deleted: false,
  };
}

/** A user's notes after a checkpoint (decision 138): their houses' notes, and tombstones of what they may no longer see. */
export async function listHandoverDocsSince(deps: AppDeps, actor: SessionUser, seq: number, id: string, limit: number) {
  const houses = visibleHouses(deps, await accountOf(deps, actor));
  const pulled = await listHandoversForUser(deps.db, actor.id, houses, seq, id, limit);
  const parts = await loadParts(
    deps,
    pulled.filter((p) => p.visible).map((p) => p.row),
  );
  return pulled.map((p) => ({ seq: p.seq, doc: toDoc(parts, p.row, actor, p.visible) }));
}

/** The note as this user's pull would send it, or null when they may not see it. */
export async function findHandoverDoc(deps: AppDeps, id: string, actor: SessionUser): Promise<HandoverDoc | null> {
  const row = await findHandover(deps.db, id);
  if (!row || !(await canSee(deps, actor, row))) return null;
  return toDoc(await loadParts(deps, [row]), row, actor, true);
}

// Openings on a device (decision 142) -----------------------------------------------------------------------------

/** A note's openings on devices are audited once per person in this span, as a resident's (decision 130). */
const VIEW_AUDIT_GAP_MS = 5 * 60 * 1000;
/** Recorded openings are pulled back (as tombstones) for a day: long enough for the device that sent them. */
const VIEW_PULL_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * An opening of the Handover screen pushed by the device that showed it (offline ones later): every note named must be
 * one the user sees now, of the house named (404 or 400 refuses the row alone). Stored once by its id; each note gets
 * `handover.viewed` unless the log holds one of it by the same person seen within five minutes of it, the device's
 * time bounded to the kept-work window as for a resident's opening (decision 130).
 */
export async function recordHandoverView(
  deps: AppDeps,
  actor: SessionUser,
  view: HandoverViewPush,
  meta: RequestMeta,
): Promise<void> {
  const ids = [...new Set(view.handoverIds)];
  const rows: HandoverRow[] = [];
  for (const id of ids) rows.push(await requireVisible(deps, actor, id));
  if (rows.some((row) => row.house !== view.house)) badRequest(HANDOVER_MESSAGES.viewHouse);
  if (await findHandoverView(deps.db, view.id)) conflict('This view has already been recorded');
  const at = deps.now();
  const viewedAt = boundWrittenAt(view.viewedAt, at - KEPT_MAX_AGE_MS, at);
  await inTransaction(deps, async (deps) => {
    await insertHandoverView(deps.db, {
      id: view.id,
      userId: actor.id,
      house: view.house,
      handoverIds: JSON.stringify(ids),
      viewedAt,
      recordedAt: at,
    });
    for (const id of ids) {
      if (
        await hasHandoverViewBetween(deps.db, actor.id, id, viewedAt - VIEW_AUDIT_GAP_MS, viewedAt + VIEW_AUDIT_GAP_MS)
      )
        continue;
      await audit(deps, actor, 'handover.viewed', id, meta, { house: view.house, viewedAt: iso(viewedAt), via: 'app' });
    }
  });
  deps.hub.notify('residentViews', [actor.id]);
}

/** A recorded opening goes back to its device only as a tombstone: recorded, so it can be forgotten there. */
function toHandoverViewDoc(row: HandoverViewRow): ResidentViewDoc {
  return {
    id: row.id,
    residentId: '',
    viewedAt: row.viewedAt,
    house: row.house,
    handoverIds: parseList<string>(row.handoverIds),
    _deleted: true,
  };
}

/** The user's recorded openings of handover notes after a checkpoint, for the residentViews pull. */
export async function listHandoverViewDocsSince(
  deps: AppDeps,
  actor: SessionUser,
  seq: number,
  id: string,
  limit: number,
) {
  const since = deps.now() - VIEW_PULL_WINDOW_MS;
  return (await listHandoverViewsSince(deps.db, actor.id, seq, id, since, limit)).map((row) => ({
    seq: row.serverSeq,
    doc: toHandoverViewDoc(row),
  }));
}

/** The recorded opening with this id, if it is the actor's own. */
export async function findHandoverViewDoc(
  deps: AppDeps,
  id: string,
  actor: SessionUser,
): Promise<ResidentViewDoc | null> {
  const row = await findHandoverView(deps.db, id);
  return row && row.userId === actor.id ? toHandoverViewDoc(row) : null;
}
