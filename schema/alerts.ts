/** Emergency alerts (urgent posts), their acknowledgements and the notification bell (docs/api-chat-alerts.md). */
import { z } from 'zod';
import { WrittenAtSchema } from './common';
import { MINUTE_MS } from './constants';

/** Someone in an alert's audience who has not acknowledged it this long after it went out gets one reminder push. */
export const ALERT_REMINDER_AFTER_MS = 15 * MINUTE_MS;
/** How often the server looks for alerts due a reminder. */
export const ALERT_REMINDER_CHECK_MS = 30_000;
/** Post ids one mark-viewed call may carry. */
export const MARK_VIEWED_MAX = 100;
/** The group of audience members who belong to no house, in the acknowledgement report. */
export const NO_HOUSE = 'No house assigned';

export const ALERT_MESSAGES = {
  alertNotFound: 'Emergency alert not found',
  postIdsList: 'postIds must be a list of post ids',
  tooManyPostIds: `At most ${MARK_VIEWED_MAX} post ids can be marked at once`,
  cannotWithdraw: 'An acknowledgement cannot be withdrawn',
  ownOnly: 'You can only acknowledge alerts for yourself',
  reportForbidden: 'Only administrators can see acknowledgement reports',
} as const;

/** An emergency alert as the blocking modal lists it (docs/behaviour.md, "Urgent alerts"). */
export const EmergencyAlertSchema = z.object({
  /** The urgent post's id. */
  id: z.string(),
  category: z.string(),
  /** ISO 8601. */
  createdAt: z.string(),
  content: z.string(),
  author: z.object({ firstName: z.string(), lastName: z.string() }),
});
export type EmergencyAlert = z.infer<typeof EmergencyAlertSchema>;

/** Answer of POST /api/posts/{id}/acknowledge. */
export const AcknowledgementViewSchema = z.object({
  postId: z.string(),
  /** ISO 8601: when the server first received the acknowledgement. */
  acknowledgedAt: z.string(),
  /** ISO 8601: when the user acknowledged, by their device's clock bounded by the server (decision 119). */
  writtenAt: z.string(),
});
export type AcknowledgementView = z.infer<typeof AcknowledgementViewSchema>;

/** POST /api/posts/{id}/acknowledge: an optional body; without one the acknowledgement is as of its arrival. */
export const AcknowledgeBodySchema = z.object({
  /** When the user acknowledged, by the device's clock; never before the alert reached them (decision 119). */
  writtenAt: WrittenAtSchema,
});
export type AcknowledgeBody = z.infer<typeof AcknowledgeBodySchema>;

/** POST /api/notifications/mark-viewed */
export const MarkViewedBodySchema = z.object({
  postIds: z
    .array(z.string().min(1).max(100), { message: ALERT_MESSAGES.postIdsList })
    .max(MARK_VIEWED_MAX, ALERT_MESSAGES.tooManyPostIds),
});
export type MarkViewedBody = z.infer<typeof MarkViewedBodySchema>;

/** One audience member in the acknowledgement report. */
export const ReportMemberSchema = z.object({
  userId: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  /** Every house the member belongs to (they are listed under each). */
  houses: z.array(z.string()),
  isActive: z.boolean(),
  /** ISO 8601: when the alert reached their list. */
  alertedAt: z.string(),
  /**
   * ISO 8601: when they acknowledged, by their device's clock, never before alertedAt nor after receivedAt
   * (decision 119): an acknowledgement made offline counts from when it was made, not when it was sent.
   */
  acknowledgedAt: z.string().nullable(),
  /** ISO 8601: when the server received the acknowledgement; null while not acknowledged. */
  receivedAt: z.string().nullable(),
  /** Whole seconds from alertedAt to acknowledgedAt; null while not acknowledged. */
  secondsToAcknowledge: z.number().int().nonnegative().nullable(),
  /** ISO 8601: when the one reminder push went out; null when none was needed yet. */
  remindedAt: z.string().nullable(),
});
export type ReportMember = z.infer<typeof ReportMemberSchema>;

/** GET /api/alerts/{postId}/report: who has acknowledged an urgent post and who has not, by house. */
export const AlertReportSchema = z.object({
  post: z.object({
    id: z.string(),
    category: z.string(),
    createdAt: z.string(),
    author: z.object({ firstName: z.string(), lastName: z.string() }),
    /** Empty: addressed to all staff. */
    audienceHouses: z.array(z.string()),
  }),
  /** Each person counted once, whatever the number of their houses. */
  totals: z.object({
    audience: z.number().int().nonnegative(),
    acknowledged: z.number().int().nonnegative(),
    pending: z.number().int().nonnegative(),
  }),
  /** The ten houses in their order, then "No house assigned"; only groups with members. */
  groups: z.array(
    z.object({
      house: z.string(),
      acknowledged: z.number().int().nonnegative(),
      pending: z.number().int().nonnegative(),
      members: z.array(ReportMemberSchema),
    }),
  ),
});
export type AlertReport = z.infer<typeof AlertReportSchema>;

/** The columns of GET /api/alerts/{postId}/report.csv, one row per house and member. */
export const REPORT_CSV_COLUMNS = [
  'House',
  'First name',
  'Last name',
  'Houses',
  'Active',
  'Alerted at',
  'Acknowledged at',
  'Seconds to acknowledge',
  'Reminded at',
  'Received at',
] as const;
