import { HANDOVER_CONTENT_MAX, HANDOVER_CORRECTION_MS, HANDOVER_VIEW_IDS_MAX } from '../../../schema/handovers';
import type { DirectoryUserLocal, HandoverLocal, ResidentViewLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { api } from '../../lib/api';

/** What the form writes: the house the screen shows, a shift of the provider's, the words, residents of that house. */
export interface HandoverDraft {
  house: string;
  shift: string;
  content: string;
  residentIds: string[];
}

/** The words as the server will take them, or the reason they cannot go (docs/api-handovers.md, "Writing"). */
export function checkHandoverContent(content: string): { content: string } | { error: string } {
  const trimmed = content.trim();
  if (!trimmed) return { error: 'Write the note first' };
  if (trimmed.length > HANDOVER_CONTENT_MAX)
    return { error: `A note can be at most ${HANDOVER_CONTENT_MAX} characters` };
  return { content: trimmed };
}

/**
 * Writes a handover note on the device (decision 140): the replication sends it at once, or when the connection
 * returns, and the server stores it once by its id whatever the retries.
 */
export async function writeHandoverNote(db: UserDatabase, authorId: string, draft: HandoverDraft): Promise<string> {
  const now = Date.now();
  const id = crypto.randomUUID();
  await db.handovers.insert({
    id,
    house: draft.house,
    shift: draft.shift,
    authorId,
    content: draft.content,
    residentIds: draft.residentIds,
    createdAt: now,
    writtenAt: now,
    updatedAt: now,
    correctedAt: null,
    addenda: [],
    reads: [],
    readAt: null,
    hidden: false,
    localPending: true,
  });
  return id;
}

/** Appends an addendum to a note on the device; the server appends it once, by its id (decision 138). */
export async function addHandoverAddendum(
  db: UserDatabase,
  authorId: string,
  noteId: string,
  content: string,
): Promise<boolean> {
  const doc = await db.handovers.findOne(noteId).exec();
  if (!doc) return false;
  const now = Date.now();
  const addendum = { id: crypto.randomUUID(), authorId, content, createdAt: now, writtenAt: now };
  await doc.incrementalModify((latest) => ({ ...latest, addenda: [...latest.addenda, addendum], localPending: true }));
  return true;
}

/** Marks a note read by the signed-in user, once, at the device's time (the server bounds it, decision 119). */
export async function markHandoverRead(db: UserDatabase, noteId: string): Promise<void> {
  const doc = await db.handovers.findOne(noteId).exec();
  if (!doc || doc.readAt !== null) return;
  const now = Date.now();
  await doc.incrementalModify((latest) =>
    latest.readAt === null ? { ...latest, readAt: now, localPending: true } : latest,
  );
}

/**
 * The notes of a house on screen whose opening the server can audit: those it has. A note this user wrote here and has
 * not sent yet is left out (the server refuses an opening naming an id it does not know; its create is audited).
 */
export function openedNoteIds(notes: readonly HandoverLocal[], house: string, userId: string): string[] {
  return notes
    .filter((note) => note.house === house && !(note.localPending && note.authorId === userId))
    .map((note) => note.id);
}

/**
 * Notes that this device showed a house's handover notes: residentViews documents (decision 142) the replication
 * pushes at once or when the connection returns, at most HANDOVER_VIEW_IDS_MAX notes each; the server audits
 * `handover.viewed` once per note and person in five minutes.
 */
export async function recordHandoverOpening(db: UserDatabase, house: string, handoverIds: readonly string[]) {
  const viewedAt = Date.now();
  const rows: ResidentViewLocal[] = [];
  for (let i = 0; i < handoverIds.length; i += HANDOVER_VIEW_IDS_MAX) {
    const ids = handoverIds.slice(i, i + HANDOVER_VIEW_IDS_MAX);
    rows.push({ id: crypto.randomUUID(), residentId: '', house, handoverIds: ids, viewedAt, localPending: true });
  }
  if (rows.length > 0) await db.residentViews.bulkInsert(rows);
}

/** Who "Read by N of M on shift" counts, and who of them has read the note (decision 138's definition). */
export interface ReadSummary {
  onShift: { user: DirectoryUserLocal; readAt: number | null }[];
  readCount: number;
}

/**
 * The note's reads against the active members of its house other than its author, from the local directory as it is
 * now; the user's own unsent read counts at once. Reads by anyone else (an admin) are not counted.
 */
export function readSummaryOf(
  note: HandoverLocal,
  directory: readonly DirectoryUserLocal[],
  userId: string,
): ReadSummary {
  const reads = new Map(note.reads.map((read) => [read.userId, read.readAt]));
  if (note.readAt !== null && !reads.has(userId)) reads.set(userId, note.readAt);
  const onShift = directory
    .filter((person) => person.isActive && person.houses.includes(note.house) && person.id !== note.authorId)
    .sort((a, b) => a.lastName.localeCompare(b.lastName) || a.firstName.localeCompare(b.firstName))
    .map((user) => ({ user, readAt: reads.get(user.id) ?? null }));
  return { onShift, readCount: onShift.filter((person) => person.readAt !== null).length };
}

/** The author may correct a note that reached the server, in its first hour (decision 138). */
export function canCorrect(note: HandoverLocal, userId: string, now = Date.now()): boolean {
  return note.authorId === userId && !note.localPending && now < note.createdAt + HANDOVER_CORRECTION_MS;
}

/** The houses whose notes the user sees: every house for admins, their own houses for staff. */
export function handoverHousesOf(isAdmin: boolean, own: readonly string[], all: readonly string[]): string[] {
  return isAdmin ? [...all] : all.filter((house) => own.includes(house));
}

/** The author's correction in the first hour: online only, through REST (docs/api-handovers.md). */
export async function correctHandover(id: string, content: string): Promise<void> {
  await api.patch(`/api/handovers/${encodeURIComponent(id)}`, { content });
}

/** An admin hides a note written in the wrong house (REST; kept for the record, decision 138). */
export async function hideHandover(id: string): Promise<void> {
  await api.post(`/api/handovers/${encodeURIComponent(id)}/hide`, {});
}

/** The provider's shifts and the one under way now, as the server's list answers them for the form. */
export interface ShiftChoice {
  shifts: string[];
  currentShift: string;
}

/** Asks the server for a house's shifts (the first page of one note answers them); null when it cannot be reached. */
export async function fetchShifts(house: string): Promise<ShiftChoice | null> {
  try {
    const page = (await api.get(`/api/houses/${encodeURIComponent(house)}/handovers?limit=1`)) as ShiftChoice; // GET /api/houses/{house}/handovers answers a HandoverPage
    return Array.isArray(page.shifts) && page.shifts.length > 0 ? page : null;
  } catch {
    return null;
  }
}
