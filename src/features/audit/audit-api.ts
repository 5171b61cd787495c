import { AuditPageSchema, type AuditPage } from '../../../schema/audit';
import { api } from '../../lib/api';
import { auditQueryString, type AuditFilterInput } from './audit-filters';

/** GET /api/admin/audit: one page of entries, newest first. */
export async function fetchAuditPage(filters: AuditFilterInput, cursor?: string | null): Promise<AuditPage> {
  const query = auditQueryString(filters, cursor);
  return AuditPageSchema.parse(await api.get(`/api/admin/audit${query ? `?${query}` : ''}`));
}

/** Where the CSV of the same filters downloads from (a plain link: the browser saves the attachment). */
export function auditCsvUrl(filters: AuditFilterInput): string {
  const query = auditQueryString(filters);
  return `/api/admin/audit.csv${query ? `?${query}` : ''}`;
}
