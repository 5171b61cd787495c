import { Hono } from 'hono';
import { IdParamsSchema } from '../../../schema/common';
import {
  AddendumBodySchema,
  CorrectHandoverBodySchema,
  CreateHandoverBodySchema,
  HandoverListQuerySchema,
  HandoverReportQuerySchema,
  HouseParamsSchema,
  ReadHandoverBodySchema,
} from '../../../schema/handovers';
import type { AppEnv } from '../../lib/context';
import { csvStream } from '../../lib/csv';
import { parseInput, readOptionalJson, sameOriginRead, validate } from '../../lib/http';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import {
  addAddendum,
  correctHandover,
  createHandover,
  handoverReport,
  handoverReportCsv,
  hideHandover,
  listHandoverReads,
  listHandovers,
  markHandoverRead,
  viewHandover,
} from './handovers.service';

/** Shift handover notes per house (docs/api-handovers.md, decision 138). */
export const handoverRoutes = new Hono<AppEnv>()
  .get(
    '/houses/:house/handovers',
    requireUser,
    sameOriginRead,
    validate('param', HouseParamsSchema),
    validate('query', HandoverListQuerySchema),
    async (c) => c.json(await listHandovers(c.var.deps, c.var.user, c.req.valid('param').house, c.req.valid('query'))),
  )
  .post(
    '/houses/:house/handovers',
    requireUser,
    validate('param', HouseParamsSchema),
    validate('json', CreateHandoverBodySchema),
    async (c) =>
      c.json(
        await createHandover(c.var.deps, c.var.user, c.req.valid('param').house, c.req.valid('json'), requestMeta(c)),
        201,
      ),
  )
  // Before /handovers/:id: Hono matches in order.
  .get('/handovers/report', requireUser, validate('query', HandoverReportQuerySchema), async (c) =>
    c.json(await handoverReport(c.var.deps, c.var.user, c.req.valid('query'))),
  )
  .get('/handovers/report.csv', requireUser, validate('query', HandoverReportQuerySchema), async (c) => {
    const query = c.req.valid('query');
    const lines = await handoverReportCsv(c.var.deps, c.var.user, query);
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="handovers-${query.from}-${query.to}.csv"`);
    return c.body(csvStream(lines));
  })
  .get('/handovers/:id', requireUser, sameOriginRead, validate('param', IdParamsSchema), async (c) =>
    c.json(await viewHandover(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c))),
  )
  .patch(
    '/handovers/:id',
    requireUser,
    validate('param', IdParamsSchema),
    validate('json', CorrectHandoverBodySchema),
    async (c) =>
      c.json(
        await correctHandover(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c)),
      ),
  )
  .post(
    '/handovers/:id/addenda',
    requireUser,
    validate('param', IdParamsSchema),
    validate('json', AddendumBodySchema),
    async (c) =>
      c.json(
        await addAddendum(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c)),
        201,
      ),
  )
  .post('/handovers/:id/read', requireUser, validate('param', IdParamsSchema), async (c) => {
    const { writtenAt } = parseInput(ReadHandoverBodySchema, await readOptionalJson(c));
    return c.json(await markHandoverRead(c.var.deps, c.var.user, c.req.valid('param').id, writtenAt, requestMeta(c)));
  })
  .get('/handovers/:id/reads', requireUser, sameOriginRead, validate('param', IdParamsSchema), async (c) =>
    c.json(await listHandoverReads(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c))),
  )
  .post('/handovers/:id/hide', requireUser, validate('param', IdParamsSchema), async (c) =>
    c.json(await hideHandover(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c))),
  );
