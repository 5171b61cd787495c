import type { Db } from '../../db/client';
import { insertAuditEntry, listAuditEntries, type AuditRow } from './audit.queries';

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

/** Appends one entry to the audit log (who, what, when, from where). */
export function recordAudit(db: Db, event: AuditEvent): void {
  insertAuditEntry(db, {
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
export function readAuditLog(db: Db, limit?: number): AuditRow[] {
  return listAuditEntries(db, limit);
}
