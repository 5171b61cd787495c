import { Hono } from 'hono';
import { SuggestionBodySchema } from '../../../schema/suggestions';
import type { AppEnv } from '../../lib/context';
import { validate } from '../../lib/http';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import { listSuggestions, submitSuggestion } from './suggestions.service';

/** Staff suggestions (docs/api-suggestions-audit.md). */
export const suggestionRoutes = new Hono<AppEnv>()
  .post('/suggestions', requireUser, validate('json', SuggestionBodySchema), async (c) =>
    c.json(await submitSuggestion(c.var.deps, c.var.user, c.req.valid('json'), requestMeta(c)), 201),
  )
  .get('/suggestions', requireUser, async (c) => c.json(await listSuggestions(c.var.deps, c.var.user)));
