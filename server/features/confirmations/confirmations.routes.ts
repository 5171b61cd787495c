import { Hono } from 'hono';
import { ConfirmBodySchema, ConfirmationsQuerySchema } from '../../../schema/confirmations';
import { IdParamsSchema } from '../../../schema/common';
import type { AppEnv } from '../../lib/context';
import { csvStream } from '../../lib/csv';
import { parseInput, readOptionalJson, validate } from '../../lib/http';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import {
  confirmationReport,
  confirmationReportCsv,
  confirmationsOverview,
  confirmPost,
  listOutstandingConfirmations,
} from './confirmations.service';

/** Read-and-confirm posts: confirming, what is outstanding, the report and the overview (docs/api-chat-alerts.md). */
export const confirmationRoutes = new Hono<AppEnv>()
  .post('/posts/:id/confirm', requireUser, validate('param', IdParamsSchema), async (c) => {
    const { writtenAt } = parseInput(ConfirmBodySchema, await readOptionalJson(c));
    return c.json(await confirmPost(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c), writtenAt));
  })
  .get('/posts/:id/confirmations.csv', requireUser, validate('param', IdParamsSchema), async (c) => {
    const { id } = c.req.valid('param');
    const lines = confirmationReportCsv(await confirmationReport(c.var.deps, c.var.user, id));
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="post-${id.replace(/[^\w-]/g, '')}-confirmations.csv"`);
    return c.body(csvStream(lines));
  })
  .get('/posts/:id/confirmations', requireUser, validate('param', IdParamsSchema), async (c) =>
    c.json(await confirmationReport(c.var.deps, c.var.user, c.req.valid('param').id)),
  )
  .get('/confirmations/outstanding', requireUser, async (c) =>
    c.json(await listOutstandingConfirmations(c.var.deps, c.var.user)),
  )
  .get('/confirmations', requireUser, validate('query', ConfirmationsQuerySchema), async (c) =>
    c.json(await confirmationsOverview(c.var.deps, c.var.user, c.req.valid('query'))),
  );
