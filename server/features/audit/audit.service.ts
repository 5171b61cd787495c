import { createHash } from 'node:crypto';
import {
  AUDIT_CSV_COLUMNS,
  AUDIT_CSV_MAX_ROWS,
  AUDIT_MESSAGES,
  auditActionLabel,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
} from '../../../schema/audit';
import { displayName } from '../../../schema/format';
import { canReadAuditLog } from '../../../schema/permissions';
import type { Db } from '../../db/client';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { csvLine } from '../../lib/csv';
import { badRequest, forbidden } from '../../lib/errors';
import {
  insertAuditEntry,
  iterateAuditEntries,
  listAuditEntries,
  searchAuditEntries,
  type AuditFilter,
  type AuditRow,
  type AuditSearchRow,
} from './audit.queries';

/** Who acted: a signed-in user, or nobody (a visitor) with the e-mail they typed. */
export interface AuditActor {
  id: string | null;
  email: string | null;
}

export interface AuditEvent {
  actor: AuditActor;
  action: string;
  ip: string;
  target?: { type: string; id: string };
  details?: Record<string, unknown>;
  at: number;
}

/**
 * What an audit entry keeps of a text someone else changed or deleted: its length and a SHA-256 of it, never the
 * words, so erased content does not live on in the append-only log and a kept copy can still be proven to be it
 * (decision 126).
 */
export function textFingerprint(text: string): { chars: number; sha256: string } {
  return { chars: text.length, sha256: createHash('sha256').update(text, 'utf8').digest('hex') };
}

/** Appends one entry to the audit log (who, what, when, from where). */
export async function recordAudit(db: Db, event: AuditEvent): Promise<void> {
  await insertAuditEntry(db, {
    at: event.at,
    actorId: event.actor.id,
    actorEmail: event.actor.email,
    action: event.action,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    ip: event.ip,
    details: event.details ? JSON.stringify(event.details) : null,
  });
}

/** The newest audit entries first. */
export async function readAuditLog(db: Db, limit?: number): Promise<AuditRow[]> {
  return await listAuditEntries(db, limit);
}

/** The cursor of the page after a row: its (at, id) position, opaque to clients. */
function encodeCursor(row: AuditRow): string {
  return Buffer.from(`${row.at}.${row.id}`).toString('base64url');
}

function decodeCursor(cursor: string): { at: number; id: number } {
  const match = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? { at: Number(match[1]), id: Number(match[2]) } : badRequest(AUDIT_MESSAGES.badCursor);
}

function filterOf(query: AuditQuery): AuditFilter {
  return {
    actor: query.actor || undefined,
    action: query.action || undefined,
    from: query.from ? Date.parse(query.from) : undefined,
    to: query.to ? Date.parse(query.to) : undefined,
    before: query.cursor ? decodeCursor(query.cursor) : undefined,
  };
}

function parseDetails(text: string | null): Record<string, unknown> | null {
  if (!text) return null;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>) // a JSON object, as recordAudit wrote it
      : { value };
  } catch {
    return { value: text };
  }
}

const nameOf = (first: string | null, last: string | null) =>
  first === null && last === null ? null : displayName({ firstName: first, lastName: last });

function toAuditEntry(row: AuditSearchRow): AuditEntry {
  const { entry } = row;
  return {
    id: entry.id,
    at: new Date(entry.at).toISOString(),
    action: entry.action,
    actionLabel: auditActionLabel(entry.action),
    actor: { id: entry.actorId, email: entry.actorEmail, name: nameOf(row.actorFirstName, row.actorLastName) },
    target:
      entry.targetType && entry.targetId
        ? { type: entry.targetType, id: entry.targetId, name: nameOf(row.targetFirstName, row.targetLastName) }
        : null,
    ip: entry.ip,
    details: parseDetails(entry.details),
  };
}

function requireAuditReader(actor: SessionUser): void {
  if (!canReadAuditLog(actor)) forbidden('System Administrator access required.');
}

/** GET /api/admin/audit: one page of the audit log, newest first, filtered; system administrators only. */
export async function listAuditLog(deps: AppDeps, actor: SessionUser, query: AuditQuery): Promise<AuditPage> {
  requireAuditReader(actor);
  const rows = await searchAuditEntries(deps.db, filterOf(query), query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    entries: page.map(toAuditEntry),
    nextCursor: rows.length > query.limit && last ? encodeCursor(last.entry) : null,
  };
}

/**
 * GET /api/admin/audit.csv: every entry the filters match (at most 100,000, newest first) as CSV lines, cells
 * guarded against formula injection, streamed on a connection of their own as the download goes
 * (decision 130). The export itself is audited once its lines end: the log leaves the system with it.
 */
export function exportAuditLog(
  deps: AppDeps,
  actor: SessionUser,
  query: AuditQuery,
  meta: RequestMeta,
): AsyncGenerator<string> {
  requireAuditReader(actor);
  const { cursor: _cursor, ...filters } = query;
  return auditCsvLines(deps, actor, filters, meta);
}

async function* auditCsvLines(
  deps: AppDeps,
  actor: SessionUser,
  filters: Omit<AuditQuery, 'cursor'>,
  meta: RequestMeta,
): AsyncGenerator<string> {
  let rows = 0;
  try {
    yield csvLine(AUDIT_CSV_COLUMNS);
    for await (const row of iterateAuditEntries(deps.db, filterOf({ ...filters }), AUDIT_CSV_MAX_ROWS)) {
      const entry = toAuditEntry(row);
      rows += 1;
      yield csvLine([
        entry.at,
        entry.actionLabel,
        entry.action,
        entry.actor.name,
        entry.actor.email,
        entry.actor.id,
        entry.target?.type,
        entry.target?.id,
        entry.target?.name,
        entry.ip,
        entry.details ? JSON.stringify(entry.details) : null,
      ]);
    }
  } finally {
    await recordAudit(deps.db, {
      actor,
      action: 'audit.exported',
      ip: meta.ip,
      details: {
        rows,
        filters: Object.fromEntries(Object.entries(filters).filter(([key, v]) => key !== 'limit' && v !== undefined)),
      },
      at: deps.now(),
    });
  }
}
