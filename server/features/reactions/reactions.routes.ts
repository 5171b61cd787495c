import { Hono } from 'hono';
import { ReactionBodySchema } from '../../../schema/posts';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requireUser } from '../auth/auth.middleware';
import { listReactionDetails, toggleReaction } from './reactions.service';
import { IdParamsSchema } from '../../../schema/common';

/** Reactions to a post (docs/behaviour.md, "Comments and reactions"). */
export const reactionRoutes = new Hono<AppEnv>()
  .post(
    '/posts/:id/reactions',
    requireUser,
    validate('param', IdParamsSchema),
    validate('json', ReactionBodySchema),
    async (c) =>
      c.json(await toggleReaction(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json').type)),
  )
  .get('/posts/:id/reactions', requireUser, validate('param', IdParamsSchema), async (c) =>
    c.json(await listReactionDetails(c.var.deps, c.req.valid('param').id)),
  );
