import { auditSearchParams } from '../../../schema/audit';

/** The audit screen's filters as the person typed them: dates are local calendar days (yyyy-mm-dd). */
export interface AuditFilterInput {
  person: string;
  action: string;
  fromDay: string;
  toDay: string;
}

export const NO_AUDIT_FILTERS: AuditFilterInput = { person: '', action: '', fromDay: '', toDay: '' };

/** Local midnight at the start of a yyyy-mm-dd day, plus `days`; null for an empty or malformed day. */
function startOfDay(day: string, days = 0): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days);
}

/**
 * The query string of the audit calls: `from` is the start of the first day and `to` the start of the day
 * after the last (the server's `to` is exclusive), both in the viewer's time zone, sent as UTC instants.
 */
export function auditQueryString(filters: AuditFilterInput, cursor?: string | null): string {
  const from = startOfDay(filters.fromDay);
  const to = startOfDay(filters.toDay, 1);
  return auditSearchParams({
    actor: filters.person,
    action: filters.action,
    from: from?.toISOString(),
    to: to?.toISOString(),
    cursor: cursor ?? undefined,
  }).toString();
}
