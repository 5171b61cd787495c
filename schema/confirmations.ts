/** Read-and-confirm posts: confirming, what is outstanding, the report and the overview (docs/api-chat-alerts.md). */
import { z } from 'zod';
import { WrittenAtSchema } from './common';

/** Reminder pushes per person and post at most: one on the due date, then one a day (decision 136). */
export const CONFIRM_REMINDERS_MAX = 5;
/** No reminder goes out from this hour until QUIET_HOURS_END, in the provider's time zone (TIME_ZONE). */
export const QUIET_HOURS_START = 22;
export const QUIET_HOURS_END = 7;

export const CONFIRM_MESSAGES = {
  adminsOnly: 'Only administrators can require confirmation',
  notFound: 'No confirmation is asked of you for this post',
  postNotFound: 'This post does not require confirmation',
  reportForbidden: 'Only administrators can see confirmation reports',
  confirmByDate: 'confirmBy must be a date such as 2026-12-31, or null',
  requiresConfirmationBoolean: 'requiresConfirmation must be true or false',
  overdueFlag: 'overdue must be 1',
} as const;

/** A due date: YYYY-MM-DD that names a real day. */
export const ConfirmBySchema = z
  .string({ message: CONFIRM_MESSAGES.confirmByDate })
  .regex(/^\d{4}-\d{2}-\d{2}$/, CONFIRM_MESSAGES.confirmByDate)
  .refine((value) => {
    const day = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value;
  }, CONFIRM_MESSAGES.confirmByDate)
  .nullable();

/** `requiresConfirmation` as JSON or a multipart form sends it. */
export const RequiresConfirmationSchema = z
  .union([z.boolean(), z.enum(['true', 'false'])], { message: CONFIRM_MESSAGES.requiresConfirmationBoolean })
  .transform((value) => value === true || value === 'true');

/** POST /api/posts/{id}/confirm: an optional body; without one the confirmation is as of its arrival. */
export const ConfirmBodySchema = z.object({
  /** When the user confirmed, by the device's clock; bounded by the server (decision 119). */
  writtenAt: WrittenAtSchema,
});
export type ConfirmBody = z.infer<typeof ConfirmBodySchema>;

/** Answer of POST /api/posts/{id}/confirm; the same again on every later call. */
export const ConfirmationViewSchema = z.object({
  postId: z.string(),
  /** ISO 8601: when the user confirmed, by their device's clock bounded by the server (decision 119). */
  confirmedAt: z.string(),
});
export type ConfirmationView = z.infer<typeof ConfirmationViewSchema>;

/** One post of GET /api/confirmations/outstanding. */
export const OutstandingConfirmationSchema = z.object({
  postId: z.string(),
  category: z.string(),
  content: z.string(),
  author: z.object({ firstName: z.string(), lastName: z.string() }),
  /** ISO 8601: when the request reached the user. */
  requestedAt: z.string(),
  /** YYYY-MM-DD, or null. */
  confirmBy: z.string().nullable(),
});
export type OutstandingConfirmation = z.infer<typeof OutstandingConfirmationSchema>;

/** One member of the audience in a confirmation report. */
export const ConfirmationMemberSchema = z.object({
  userId: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  houses: z.array(z.string()),
  isActive: z.boolean(),
  /** ISO 8601: when the request reached them. */
  requestedAt: z.string(),
  /** ISO 8601: when they confirmed, by their device's clock bounded by the server; null while not. */
  confirmedAt: z.string().nullable(),
  /** ISO 8601: when the server received it; null while not confirmed. */
  receivedAt: z.string().nullable(),
  remindersSent: z.number().int().nonnegative(),
});
export type ConfirmationMember = z.infer<typeof ConfirmationMemberSchema>;

const Counts = {
  audience: z.number().int().nonnegative(),
  confirmed: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  /** Whole percent of the audience who have confirmed, rounded down (100 only when all have). */
  percent: z.number().int().min(0).max(100),
};

/** GET /api/posts/{id}/confirmations: who has confirmed a post and who has not, by house. */
export const ConfirmationReportSchema = z.object({
  post: z.object({
    id: z.string(),
    category: z.string(),
    isUrgent: z.boolean(),
    createdAt: z.string(),
    author: z.object({ firstName: z.string(), lastName: z.string() }),
    audienceHouses: z.array(z.string()),
    confirmBy: z.string().nullable(),
  }),
  /** Each person counted once, whatever the number of their houses. */
  totals: z.object(Counts),
  /** The ten houses in their order, then "No house assigned"; only groups with members. */
  groups: z.array(z.object({ house: z.string(), ...Counts, members: z.array(ConfirmationMemberSchema) })),
});
export type ConfirmationReport = z.infer<typeof ConfirmationReportSchema>;

/** GET /api/confirmations?house=&overdue=1 */
export const ConfirmationsQuerySchema = z.object({
  /** Only posts addressed to this house, or to all staff. */
  house: z.string().trim().min(1).max(100).optional(),
  /** Only posts whose due date has passed with someone still to confirm. */
  overdue: z.enum(['1'], { message: CONFIRM_MESSAGES.overdueFlag }).optional(),
});
export type ConfirmationsQuery = z.infer<typeof ConfirmationsQuerySchema>;

/** One post of GET /api/confirmations, newest first. */
export const ConfirmationOverviewItemSchema = z.object({
  postId: z.string(),
  category: z.string(),
  content: z.string(),
  createdAt: z.string(),
  audienceHouses: z.array(z.string()),
  confirmBy: z.string().nullable(),
  overdue: z.boolean(),
  ...Counts,
});
export type ConfirmationOverviewItem = z.infer<typeof ConfirmationOverviewItemSchema>;

/** The columns of GET /api/posts/{id}/confirmations.csv, one row per house and member. */
export const CONFIRM_CSV_COLUMNS = [
  'House',
  'First name',
  'Last name',
  'Houses',
  'Active',
  'Requested at',
  'Confirmed at',
  'Received at',
  'Reminders sent',
] as const;
