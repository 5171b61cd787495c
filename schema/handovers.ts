/** Shift handover notes per house (docs/api-handovers.md, decision 138): requests, answers and the shift setting. */
import { z } from 'zod';
import { ClientIdSchema, WrittenAtSchema } from './common';

/** Longest note or addendum, in characters: a page of the paper handover book. */
export const HANDOVER_CONTENT_MAX = 5000;
/** Most residents one note may name. */
export const HANDOVER_RESIDENTS_MAX = 50;
/** A note can be corrected by its author for this long after it reached the server; then only addenda. */
export const HANDOVER_CORRECTION_MS = 60 * 60 * 1000;
/** Notes per page of GET /api/houses/{house}/handovers, by default and at most. */
export const HANDOVER_PAGE_DEFAULT = 20;
export const HANDOVER_PAGE_MAX = 100;
/** Most days one report covers. */
export const HANDOVER_REPORT_DAYS_MAX = 366;
/** Most notes one recorded opening of the Handover screen names; a device splits a longer list (decision 142). */
export const HANDOVER_VIEW_IDS_MAX = 100;

/** The shifts when SHIFTS is not set: name and start time in the provider's time zone (TIME_ZONE). */
export const DEFAULT_SHIFTS = 'Day 07:00,Evening 15:00,Night 22:00';

export const HANDOVER_MESSAGES = {
  notFound: 'Handover note not found',
  houseNotFound: 'House not found',
  noHouse: 'You are not in any house yet: an administrator adds you to a house on the admin page',
  writeForbidden: 'Only staff of this house can write its handover notes',
  correctionWindow: 'A handover note can only be corrected in its first hour; add an addendum instead',
  correctOwn: 'Only the author can correct a handover note',
  hideForbidden: 'Only administrators can hide a handover note',
  reportForbidden: 'Only administrators can see the handover report',
  idTaken: 'A handover note with this id already exists',
  addendumIdTaken: 'An addendum with this id already exists',
  unknownShift: (names: readonly string[]) => `shift must be one of: ${names.join(', ')}`,
  unknownResident: 'residentIds must name active residents of this house',
  contentRequired: 'content is required',
  contentTooLong: `content must be at most ${HANDOVER_CONTENT_MAX} characters`,
  nothingToCorrect: 'Send shift, content or residentIds to correct',
  reportDate: 'from and to must be dates such as 2026-12-31',
  reportRange: `to must not be before from, and a report covers at most ${HANDOVER_REPORT_DAYS_MAX} days`,
  pushedCorrection: 'A handover note is corrected online, in its first hour',
  pushedDelete: 'A handover note cannot be deleted; an administrator can hide one written in the wrong house',
  viewIds: `handoverIds must name 1 to ${HANDOVER_VIEW_IDS_MAX} notes`,
  viewHouse: 'handoverIds must name notes of the house shown',
} as const;

/** One shift of the provider's day: its name and start (minutes after local midnight). */
export interface Shift {
  name: string;
  startMinute: number;
}

const SHIFT_ITEM = /^(.+?)\s+([01]\d|2[0-3]):([0-5]\d)$/;

/**
 * Reads SHIFTS ("Day 07:00,Evening 15:00,Night 22:00"): at least one shift, names unique and at most 40 characters,
 * start times HH:MM and distinct. Answers the shifts by start time, or the first problem in words.
 */
export function parseShifts(value: string): { shifts: Shift[] } | { error: string } {
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) return { error: 'must name at least one shift, such as "Day 07:00,Night 19:00"' };
  const shifts: Shift[] = [];
  for (const item of items) {
    const match = SHIFT_ITEM.exec(item);
    if (!match) return { error: `"${item}" must be a shift name and a start time such as "Day 07:00"` };
    const name = match[1].trim();
    if (name.length > 40) return { error: `"${name}" is longer than 40 characters` };
    if (shifts.some((shift) => shift.name.toLowerCase() === name.toLowerCase()))
      return { error: `the shift "${name}" is named twice` };
    const startMinute = Number(match[2]) * 60 + Number(match[3]);
    if (shifts.some((shift) => shift.startMinute === startMinute))
      return { error: `two shifts start at ${match[2]}:${match[3]}` };
    shifts.push({ name, startMinute });
  }
  return { shifts: shifts.sort((a, b) => a.startMinute - b.startMinute) };
}

/** The shift under way at a local minute of the day: the last to start at or before it (the latest one before the first). */
export function shiftAt(shifts: readonly Shift[], minuteOfDay: number): Shift {
  const started = shifts.filter((shift) => shift.startMinute <= minuteOfDay);
  return started[started.length - 1] ?? shifts[shifts.length - 1];
}

const ContentSchema = z
  .string({ message: HANDOVER_MESSAGES.contentRequired })
  .trim()
  .min(1, HANDOVER_MESSAGES.contentRequired)
  .max(HANDOVER_CONTENT_MAX, HANDOVER_MESSAGES.contentTooLong);

const ResidentIdsSchema = z
  .array(z.string().min(1).max(100), { message: 'residentIds must be a list of resident ids' })
  .max(HANDOVER_RESIDENTS_MAX, `A note can name at most ${HANDOVER_RESIDENTS_MAX} residents`);

/** A shift name as sent; the server checks it against its SHIFTS. */
const ShiftNameSchema = z.string({ message: 'shift is required' }).trim().min(1, 'shift is required').max(40);

/** POST /api/houses/{house}/handovers. A device-made `id` makes a retried create answer the same note. */
export const CreateHandoverBodySchema = z.object({
  id: ClientIdSchema.optional(),
  shift: ShiftNameSchema,
  content: ContentSchema,
  residentIds: ResidentIdsSchema.default([]),
  writtenAt: WrittenAtSchema,
});
export type CreateHandoverBody = z.infer<typeof CreateHandoverBodySchema>;

/** PATCH /api/handovers/{id}: the author's correction in the first hour; fields left out stay. */
export const CorrectHandoverBodySchema = z
  .object({
    shift: ShiftNameSchema.optional(),
    content: ContentSchema.optional(),
    residentIds: ResidentIdsSchema.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), HANDOVER_MESSAGES.nothingToCorrect);
export type CorrectHandoverBody = z.infer<typeof CorrectHandoverBodySchema>;

/** POST /api/handovers/{id}/addenda. A device-made `id` makes a retried addendum answer the same one. */
export const AddendumBodySchema = z.object({
  id: ClientIdSchema.optional(),
  content: ContentSchema,
  writtenAt: WrittenAtSchema,
});
export type AddendumBody = z.infer<typeof AddendumBodySchema>;

/** POST /api/handovers/{id}/read: an optional body; without one the read is as of its arrival. */
export const ReadHandoverBodySchema = z.object({ writtenAt: WrittenAtSchema });

export const HouseParamsSchema = z.object({ house: z.string().min(1).max(100) });

export const HandoverListQuerySchema = z.object({
  limit: z.coerce
    .number({ message: `limit must be a number from 1 to ${HANDOVER_PAGE_MAX}` })
    .int(`limit must be a number from 1 to ${HANDOVER_PAGE_MAX}`)
    .min(1, `limit must be a number from 1 to ${HANDOVER_PAGE_MAX}`)
    .max(HANDOVER_PAGE_MAX, `limit must be a number from 1 to ${HANDOVER_PAGE_MAX}`)
    .default(HANDOVER_PAGE_DEFAULT),
  /** The `nextCursor` of the previous page. */
  cursor: z.string().max(200).optional(),
});

const DaySchema = z
  .string({ message: HANDOVER_MESSAGES.reportDate })
  .regex(/^\d{4}-\d{2}-\d{2}$/, HANDOVER_MESSAGES.reportDate)
  .refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value;
  }, HANDOVER_MESSAGES.reportDate);

/** GET /api/handovers/report.csv?house&from&to: days in the provider's time zone; every house when none is named. */
export const HandoverReportQuerySchema = z
  .object({ house: z.string().min(1).max(100).optional(), from: DaySchema, to: DaySchema })
  .refine(
    ({ from, to }) => {
      const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
      return days >= 0 && days < HANDOVER_REPORT_DAYS_MAX;
    },
    { message: HANDOVER_MESSAGES.reportRange, path: ['to'] },
  );
export type HandoverReportQuery = z.infer<typeof HandoverReportQuerySchema>;

/** A person as a note shows them; null id once the account is deleted. */
export interface HandoverPerson {
  id: string | null;
  firstName: string;
  lastName: string;
}

export interface HandoverAddendumView {
  id: string;
  author: HandoverPerson;
  content: string;
  /** ISO 8601: when it reached the server, and when it was written by the device's clock (bounded). */
  createdAt: string;
  writtenAt: string;
}

/** A note as the API answers it. */
export interface HandoverView {
  id: string;
  house: string;
  shift: string;
  author: HandoverPerson;
  content: string;
  residentIds: string[];
  createdAt: string;
  writtenAt: string;
  /** When the author last corrected it (first hour only), or null. */
  correctedAt: string | null;
  /** Until when the author may correct it. */
  correctableUntil: string;
  addenda: HandoverAddendumView[];
  /** "Read by 3 of 5 on shift": on-shift members who read it, and how many are on shift (decision 138). */
  readCount: number;
  onShiftCount: number;
  /** When the signed-in user marked it read, or null. */
  readAt: string | null;
  /** Admins only ever see true: hidden from staff, kept for the record. */
  hidden: boolean;
}

/** GET /api/houses/{house}/handovers: newest first, with the house's shifts for the form. */
export interface HandoverPage {
  house: string;
  shifts: string[];
  /** The shift under way now in the provider's time zone: the form's default. */
  currentShift: string;
  items: HandoverView[];
  nextCursor: string | null;
  /** Why the list is empty when the user is in no house yet (HANDOVER_MESSAGES.noHouse); absent otherwise. */
  reason?: string;
}

/** One person of GET /api/handovers/{id}/reads. */
export interface HandoverReader {
  user: HandoverPerson;
  /** ISO 8601 by the device's clock (bounded), or null when not read yet. */
  readAt: string | null;
}

/** GET /api/handovers/{id}/reads: who is on shift and who of them has read it; others who read it too. */
export interface HandoverReads {
  handoverId: string;
  readCount: number;
  onShiftCount: number;
  onShift: HandoverReader[];
  /** Readers who are not on shift for this note (an administrator, someone who left the house since). */
  others: HandoverReader[];
}

/** One house and day of the handover report: notes written, and the reads of the next shift against those expected. */
export const HandoverReportRowSchema = z.object({
  house: z.string(),
  /** YYYY-MM-DD in the provider's time zone (TIME_ZONE). */
  day: z.string(),
  notes: z.number().int(),
  reads: z.number().int(),
  expected: z.number().int(),
  /** The share read, rounded to a whole percent; null when no read was expected (nobody else in the house). */
  percent: z.number().int().nullable(),
});
export type HandoverReportRow = z.infer<typeof HandoverReportRowSchema>;

/** GET /api/handovers/report: the CSV's figures as JSON, for the report on the admin page (decision 142). */
export const HandoverReportSchema = z.object({
  from: z.string(),
  to: z.string(),
  house: z.string().nullable(),
  rows: z.array(HandoverReportRowSchema),
});
export type HandoverReport = z.infer<typeof HandoverReportSchema>;

/** GET /api/handovers/report.csv: one line per house and day. */
export const HANDOVER_REPORT_COLUMNS = [
  'House',
  'Day',
  'Notes written',
  'Reads by the next shift',
  'Expected reads',
  'Share read',
];
