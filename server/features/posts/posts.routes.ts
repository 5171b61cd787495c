import type { Context } from 'hono';
import { Hono } from 'hono';
import {
  CreatePostBodySchema,
  ListPostsQuerySchema,
  NEXT_CURSOR_HEADER,
  UpdatePostBodySchema,
  type CreatePostInput,
} from '../../../schema/posts';
import { uploadIdFromUrl } from '../../../schema/uploads';
import type { AppEnv } from '../../lib/context';
import { badRequest } from '../../lib/errors';
import { encodedJson, parseInput, validate } from '../../lib/http';
import { FORM_LIMITS, isMultipart, readMultipart, type FormFields } from '../../lib/multipart';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import { createPost, createPostWithFiles, deletePost, editPost, listPostsJson } from './posts.service';
import { listScheduledPostViews } from './scheduled-posts.service';
import { IdParamsSchema } from '../../../schema/common';

const texts = (form: FormFields, key: string) =>
  [...(form[key] ?? []), ...(form[`${key}[]`] ?? [])].filter((v): v is string => typeof v === 'string');
const files = (form: FormFields, key: string) =>
  [...(form[key] ?? []), ...(form[`${key}[]`] ?? [])].filter((v): v is File => typeof v !== 'string');

/** Lists (houseTags, audienceHouses, mentions) arrive repeated, or as one JSON list as older forms send them. */
function houseListOf(form: FormFields, key: 'houseTags' | 'audienceHouses' | 'mentions'): unknown {
  const values = texts(form, key);
  if (values.length === 1 && values[0].trim().startsWith('[')) {
    try {
      return JSON.parse(values[0]);
    } catch {
      return values;
    }
  }
  return values;
}

/** The multipart form of docs/api-feed.md: text fields, then files (or upload URLs/ids sent as text). */
async function readPostForm(c: Context<AppEnv>) {
  const form = await readMultipart(c, FORM_LIMITS.post);
  const input: CreatePostInput = {
    id: texts(form, 'id')[0] || undefined,
    content: texts(form, 'content')[0] ?? '',
    category: texts(form, 'category')[0],
    isUrgent: (texts(form, 'isUrgent')[0] as 'true' | 'false' | undefined) ?? undefined,
    houseTags: houseListOf(form, 'houseTags') as string[],
    audienceHouses: houseListOf(form, 'audienceHouses') as string[],
    images: texts(form, 'images'),
    attachments: texts(form, 'attachments').map((value) => ({ id: uploadIdFromUrl(value) ?? value })),
    writtenAt: texts(form, 'writtenAt')[0],
    publishAt: texts(form, 'publishAt')[0] || undefined,
    mentions: houseListOf(form, 'mentions') as string[],
  };
  const body = parseInput(CreatePostBodySchema, input);
  return { body, files: { images: files(form, 'images'), attachments: files(form, 'attachments') } };
}

/** Posts (docs/api-feed.md). */
export const postRoutes = new Hono<AppEnv>()
  .get('/posts', requireUser, validate('query', ListPostsQuerySchema), async (c) => {
    // c.get, not c.var, on the busiest read: c.var copies every variable into a new object on each read.
    const { body, nextCursor } = await listPostsJson(c.get('deps'), c.get('user'), c.req.valid('query'));
    return encodedJson(body, nextCursor ? { [NEXT_CURSOR_HEADER]: nextCursor } : {});
  })
  .get('/posts/scheduled', requireUser, async (c) => c.json(await listScheduledPostViews(c.var.deps, c.var.user)))
  .post('/posts', requireUser, async (c) => {
    if (isMultipart(c)) {
      const { body, files } = await readPostForm(c);
      return c.json(await createPostWithFiles(c.var.deps, c.var.user, body, files), 201);
    }
    const json: unknown = await c.req.json().catch(() => badRequest('The request body is not valid JSON'));
    return c.json(await createPost(c.var.deps, c.var.user, parseInput(CreatePostBodySchema, json)), 201);
  })
  .patch(
    '/posts/:id',
    requireUser,
    validate('param', IdParamsSchema),
    validate('json', UpdatePostBodySchema),
    async (c) =>
      c.json(await editPost(c.var.deps, c.var.user, c.req.valid('param').id, c.req.valid('json'), requestMeta(c))),
  )
  .delete('/posts/:id', requireUser, validate('param', IdParamsSchema), async (c) => {
    await deletePost(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c));
    return c.body(null, 204);
  });
