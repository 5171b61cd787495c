import { Hono } from 'hono';
import { CreateCommentBodySchema } from '../../../schema/posts';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import { addComment, deleteComment, listComments } from './comments.service';
import { IdParamsSchema } from '../../../schema/common';

/** Comments of a post (docs/api-feed.md). */
export const commentRoutes = new Hono<AppEnv>()
  .get('/posts/:id/comments', requireUser, validate('param', IdParamsSchema), async (c) =>
    c.json(await listComments(c.var.deps, c.req.valid('param').id)),
  )
  .post(
    '/posts/:id/comments',
    requireUser,
    validate('param', IdParamsSchema),
    validate('json', CreateCommentBodySchema),
    async (c) => c.json(await addComment(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json')), 201),
  )
  .delete('/comments/:id', requireUser, validate('param', IdParamsSchema), async (c) => {
    await deleteComment(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c));
    return c.body(null, 204);
  });
