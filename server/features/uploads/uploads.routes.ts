import { Hono } from 'hono';
import { z } from 'zod';
import { UPLOAD_MESSAGES } from '../../../schema/uploads';
import type { AppEnv } from '../../lib/context';
import { badRequest } from '../../lib/errors';
import { contentDisposition, placeholderImage } from '../../lib/files';
import { validate } from '../../lib/http';
import { webStreamOf } from '../../lib/storage';
import { FORM_LIMITS, readMultipart } from '../../lib/multipart';
import { requireUser } from '../auth/auth.middleware';
import { chatConversationOf, isConversationMember } from '../chat/chat.service';
import { openUpload, uploadFile } from './uploads.service';
import { IdParamsSchema } from '../../../schema/common';

const VariantQuerySchema = z.object({ variant: z.enum(['full', 'card']).default('full') });

/** POST /api/uploads, GET /api/uploads/{id} and the placeholder picture. */
export const uploadRoutes = new Hono<AppEnv>()
  .post('/uploads', requireUser, async (c) => {
    const form = await readMultipart(c, FORM_LIMITS.upload);
    const files = form.file ?? [];
    const file = files.length === 1 && files[0] instanceof File ? files[0] : badRequest(UPLOAD_MESSAGES.missingFile);
    // A file for a chat message names its conversation: members only, then and whenever it is read (decision 150).
    const conversationId = await chatConversationOf(c.var.deps, c.var.user, form.conversationId?.[0]);
    return c.json(await uploadFile(c.var.deps, c.var.user, file, conversationId), 201);
  })
  .get(
    '/uploads/:id',
    requireUser,
    validate('param', IdParamsSchema),
    validate('query', VariantQuerySchema),
    async (c) => {
      const { deps, user } = c.var;
      const mayRead = (conversationId: string) => isConversationMember(deps, user, conversationId);
      const { row, file } = await openUpload(deps, c.req.valid('param').id, c.req.valid('query').variant, mayRead);
      return c.body(webStreamOf(file), 200, {
        'Content-Type': row.mime,
        'Content-Length': String(file.size),
        'Content-Disposition': contentDisposition(row.kind, row.originalName),
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
        // Never in the browser's HTTP cache, which outlives sign-out: the service worker's cache, wiped then, keeps
        // them for the feed offline (decision 127).
        'Cache-Control': 'private, no-store',
      });
    },
  )
  .get('/placeholder-image', async (c) =>
    c.body(new Uint8Array(await placeholderImage()), 200, {
      'Content-Type': 'image/png',
      'Cache-Control': 'public, max-age=86400',
    }),
  );
