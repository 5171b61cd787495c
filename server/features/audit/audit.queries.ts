import { desc } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { auditLog } from '../../db/tables';

export type AuditRow = typeof auditLog.$inferSelect;
export type NewAuditRow = typeof auditLog.$inferInsert;

export function insertAuditEntry(db: Db, row: NewAuditRow): void {
  db.insert(auditLog).values(row).run();
}

export function listAuditEntries(db: Db, limit = 500): AuditRow[] {
  return db.select().from(auditLog).orderBy(desc(auditLog.id)).limit(limit).all();
}
