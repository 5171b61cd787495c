import { HANDOVER_CONTENT_MAX, HANDOVER_CORRECTION_MS } from '../../../schema/handovers';
import type { DirectoryUserLocal, HandoverLocal } from '../../db/collections';
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
