import { Hono } from 'hono';
import { AuditQuerySchema } from '../../../schema/audit';
import type { AppEnv } from '../../lib/context';
import { csvStream } from '../../lib/csv';
import { validate } from '../../lib/http';
import { requestMeta, requireSystemAdmin } from '../auth/auth.middleware';
import { exportAuditLog, listAuditLog } from './audit.service';

/** The audit log screen (docs/api-suggestions-audit.md): read and export only; no call edits or deletes. */
export const auditRoutes = new Hono<AppEnv>()
  .get('/admin/audit.csv', requireSystemAdmin, validate('query', AuditQuerySchema), (c) => {
    const lines = exportAuditLog(c.var.deps, c.var.user, c.req.valid('query'), requestMeta(c));
    const day = new Date(c.var.deps.now()).toISOString().slice(0, 10);
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="audit-log-${day}.csv"`);
    return c.body(csvStream(lines));
  })
  .get('/admin/audit', requireSystemAdmin, validate('query', AuditQuerySchema), async (c) =>
    c.json(await listAuditLog(c.var.deps, c.var.user, c.req.valid('query'))),
  );
