import { z } from 'zod';

/**
 * Human-readable labels of the audit actions the server writes (sign-ins, failures, admin actions,
 * alert acknowledgements, resident views and changes). An action not listed shows as written.
 */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  'auth.login': 'Signed in',
  'auth.login_failed': 'Sign-in failed',
  'auth.logout': 'Signed out',
  'auth.register': 'Registered (awaiting approval)',
  'auth.register_existing': 'Registration tried with an existing e-mail',
  'auth.password_reset_requested': 'Password reset requested',
  'auth.password_changed': 'Password changed',
  'auth.invitation_accepted': 'Invitation accepted',
  'auth.profile_picture_changed': 'Profile picture changed',
  'auth.login_password_checked': 'Password accepted, second factor awaited',
  'auth.totp_added': 'Authenticator app added',
  'auth.totp_removed': 'Authenticator app removed',
  'auth.recovery_codes_regenerated': 'New recovery codes made',
  'auth.passkey_added': 'Passkey added',
  'auth.passkey_removed': 'Passkey removed',
  'setup.admin_from_env': 'First System Administrator created from settings',
  'setup.admin_created': 'First System Administrator created',
  'admin.user_created': 'User created',
  'admin.user_updated': 'User edited',
  'admin.user_activated': 'User activated',
  'admin.user_deactivated': 'User deactivated',
  'admin.user_role_changed': 'User role changed',
  'admin.user_approved': 'Registration approved',
  'admin.user_deleted': 'User deleted',
  'admin.user_houses_changed': 'User houses changed',
  'admin.two_factor_reset': 'Two-factor sign-in reset',
  'alert.acknowledged': 'Alert acknowledged',
  'post.confirmed': 'Post confirmed as read',
  'suggestion.created': 'Suggestion submitted',
  'resident.create': 'Resident added',
  'resident.update': 'Resident edited',
  'resident.archive': 'Resident archived',
  'resident.view': 'Resident profile viewed',
  'post.update': 'Post edited by someone other than its author',
  'post.delete': 'Post deleted by someone other than its author',
  'comment.delete': 'Comment deleted by someone other than its author',
  'audit.exported': 'Audit log exported',
  'handover.viewed': 'Handover note opened',
  'handover.created': 'Handover note written',
  'handover.corrected': 'Handover note corrected',
  'handover.addendum': 'Addendum added to a handover note',
  'handover.hidden': 'Handover note hidden',
  'handover.read': 'Handover note marked read',
};

/** The label of an action for the screen and the CSV. */
export function auditActionLabel(action: string): string {
  return AUDIT_ACTION_LABELS[action] ?? action;
}

export const AUDIT_PAGE_DEFAULT = 50;
export const AUDIT_PAGE_MAX = 200;
/** The most rows one CSV export carries (decision 47). */
export const AUDIT_CSV_MAX_ROWS = 100_000;

export const AUDIT_MESSAGES = {
  badCursor: 'This page link is invalid. Please reload the audit log.',
  badDate: 'Dates must be ISO 8601 date-times, such as 2026-03-01T00:00:00.000Z',
  badRange: 'The start of the date range must be before its end',
} as const;

const isoInstant = z.iso.datetime({ offset: true, message: AUDIT_MESSAGES.badDate });

/**
 * GET /api/admin/audit and /api/admin/audit.csv: `actor` matches a user id, or part of the recorded e-mail or
 * the person's current name; `action` one action exactly; `from` inclusive and `to` exclusive instants.
 */
export const AuditQuerySchema = z
  .object({
    actor: z.string().trim().max(254).optional(),
    action: z.string().trim().max(100).optional(),
    from: isoInstant.optional(),
    to: isoInstant.optional(),
    cursor: z.string().max(200).optional(),
    limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(AUDIT_PAGE_DEFAULT),
  })
  .refine((q) => !q.from || !q.to || Date.parse(q.from) < Date.parse(q.to), {
    message: AUDIT_MESSAGES.badRange,
    path: ['to'],
  });
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/** One entry of the audit log as the admin screen shows it. */
export const AuditEntrySchema = z.object({
  id: z.number().int(),
  at: z.string(),
  action: z.string(),
  actionLabel: z.string(),
  actor: z.object({
    id: z.string().nullable(),
    /** The e-mail recorded at the time (a visitor's typed e-mail for a failed sign-in). */
    email: z.string().nullable(),
    /** The person's current name; null for visitors and deleted accounts. */
    name: z.string().nullable(),
  }),
  target: z.object({ type: z.string(), id: z.string(), name: z.string().nullable() }).nullable(),
  ip: z.string().nullable(),
  details: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AuditPageSchema = z.object({
  entries: z.array(AuditEntrySchema),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof AuditPageSchema>;

/** The columns of GET /api/admin/audit.csv. */
export const AUDIT_CSV_COLUMNS = [
  'Time (UTC)',
  'Action',
  'Action code',
  'Person',
  'E-mail',
  'User id',
  'Target type',
  'Target id',
  'Target name',
  'Address',
  'Details',
] as const;

/** Query-string of the audit calls from the screen's filters; empty filters are left out. */
export function auditSearchParams(filters: Partial<Record<'actor' | 'action' | 'from' | 'to' | 'cursor', string>>) {
  const params = new URLSearchParams();
  for (const key of ['actor', 'action', 'from', 'to', 'cursor'] as const) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  return params;
}
