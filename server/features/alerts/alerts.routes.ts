import { Hono } from 'hono';
import { AcknowledgeBodySchema, MarkViewedBodySchema } from '../../../schema/alerts';
import type { AppEnv } from '../../lib/context';
import { csvStream } from '../../lib/csv';
import { parseInput, readOptionalJson, validate } from '../../lib/http';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import {
  acknowledgeAlert,
  alertReport,
  alertReportCsv,
  countUnviewedAlerts,
  listUnacknowledgedAlerts,
  markAlertsViewed,
} from './alerts.service';
import { IdParamsSchema } from '../../../schema/common';

/** Emergency alerts, their acknowledgements and report, and the notification bell (docs/api-chat-alerts.md). */
export const alertRoutes = new Hono<AppEnv>()
  .post('/posts/:id/acknowledge', requireUser, validate('param', IdParamsSchema), async (c) => {
    const { writtenAt } = parseInput(AcknowledgeBodySchema, await readOptionalJson(c));
    return c.json(await acknowledgeAlert(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c), writtenAt));
  })
  .get('/alerts/unacknowledged', requireUser, async (c) =>
    c.json(await listUnacknowledgedAlerts(c.var.deps, c.var.user)),
  )
  .get('/alerts/:id/report.csv', requireUser, validate('param', IdParamsSchema), async (c) => {
    const { id } = c.req.valid('param');
    const lines = alertReportCsv(await alertReport(c.var.deps, c.var.user, id));
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="alert-${id.replace(/[^\w-]/g, '')}-acknowledgements.csv"`);
    return c.body(csvStream(lines));
  })
  .get('/alerts/:id/report', requireUser, validate('param', IdParamsSchema), async (c) =>
    c.json(await alertReport(c.var.deps, c.var.user, c.req.valid('param').id)),
  )
  .get('/notifications/unviewed-count', requireUser, async (c) =>
    c.json(await countUnviewedAlerts(c.var.deps, c.var.user)),
  )
  .post('/notifications/mark-viewed', requireUser, validate('json', MarkViewedBodySchema), async (c) =>
    c.json(await markAlertsViewed(c.var.deps, c.var.user, c.req.valid('json').postIds)),
  );
