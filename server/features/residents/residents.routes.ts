import type { Context } from 'hono';
import { Hono } from 'hono';
import { z } from 'zod';
import {
  CreateResidentBodySchema,
  RESIDENT_FIELDS,
  RESIDENT_MESSAGES,
  UpdateResidentBodySchema,
} from '../../../schema/residents';
import type { AppEnv } from '../../lib/context';
import { badRequest } from '../../lib/errors';
import { parseInput, sameOriginRead, validate } from '../../lib/http';
import { FORM_LIMITS, isMultipart, readMultipart } from '../../lib/multipart';
import { webStreamOf } from '../../lib/storage';
import { requestMeta, requireUser } from '../auth/auth.middleware';
import {
  archiveResident,
  createResident,
  editResident,
  listResidentHistory,
  listResidents,
  openResidentPhoto,
  viewResident,
} from './residents.service';
import { IdParamsSchema } from '../../../schema/common';

const PhotoParamsSchema = z.object({ name: z.string().min(1).max(100) });

/** houseTags arrive as one JSON string (docs/api-residents.md); repeated fields are accepted too. */
function houseTagsOf(values: string[]): unknown {
  if (values.length !== 1) return values.length ? values : undefined;
  try {
    return JSON.parse(values[0]);
  } catch {
    return badRequest(RESIDENT_MESSAGES.houseTagsJson);
  }
}

/**
 * The resident form of docs/api-residents.md: text fields, houseTags as a JSON string and an optional photo, as
 * multipart; a JSON body (without a photo) is accepted too. Fields left out are undefined.
 */
async function readResidentForm(c: Context<AppEnv>): Promise<{ input: Record<string, unknown>; photo: File | null }> {
  if (!isMultipart(c)) {
    const json: unknown = await c.req.json().catch(() => badRequest('The request body is not valid JSON'));
    return { input: typeof json === 'object' && json !== null ? { ...json } : {}, photo: null };
  }
  const form = await readMultipart(c, FORM_LIMITS.resident);
  const texts = (key: string) => (form[key] ?? []).filter((v): v is string => typeof v === 'string');
  const input: Record<string, unknown> = {};
  for (const field of [...RESIDENT_FIELDS, 'removePhoto', 'baseUpdatedAt', 'photoKey'] as const) {
    if (field === 'photoUrl') continue;
    if (field === 'houseTags') input.houseTags = houseTagsOf([...texts('houseTags'), ...texts('houseTags[]')]);
    else input[field] = texts(field)[0];
  }
  // A form whose file input was left empty sends an empty, nameless file: no photo.
  const file = (form.photo ?? []).find((v): v is File => typeof v !== 'string' && (v.size > 0 || v.name !== ''));
  return { input, photo: file ?? null };
}

/** Residents (docs/api-residents.md): any active staff member reads, adds and edits; admins archive. */
export const residentRoutes = new Hono<AppEnv>()
  .get('/residents', requireUser, async (c) => c.json(await listResidents(c.var.deps, c.var.user)))
  .post('/residents', requireUser, async (c) => {
    const { input, photo } = await readResidentForm(c);
    const body = parseInput(CreateResidentBodySchema, input);
    return c.json(await createResident(c.var.deps, c.var.user, body, photo, requestMeta(c)), 201);
  })
  .get('/residents/photos/:name', requireUser, validate('param', PhotoParamsSchema), async (c) => {
    const { file, type } = await openResidentPhoto(c.var.deps, c.req.valid('param').name);
    return c.body(webStreamOf(file), 200, {
      'Content-Type': type,
      'Content-Length': String(file.size),
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      // Never in the browser's HTTP cache, which outlives sign-out; the service worker's cache is wiped then.
      'Cache-Control': 'private, no-store',
    });
  })
  .get('/residents/:id', requireUser, sameOriginRead, validate('param', IdParamsSchema), async (c) =>
    c.json(await viewResident(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c))),
  )
  .put('/residents/:id', requireUser, validate('param', IdParamsSchema), async (c) => {
    const { input, photo } = await readResidentForm(c);
    const body = parseInput(UpdateResidentBodySchema, input);
    return c.json(await editResident(c.var.deps, c.var.user, c.req.valid('param').id, body, photo, requestMeta(c)));
  })
  .post('/residents/:id/archive', requireUser, validate('param', IdParamsSchema), async (c) => {
    await archiveResident(c.var.deps, c.var.user, c.req.valid('param').id, requestMeta(c));
    return c.json({ archived: true });
  })
  .get('/residents/:id/history', requireUser, validate('param', IdParamsSchema), async (c) =>
    c.json(await listResidentHistory(c.var.deps, c.var.user, c.req.valid('param').id)),
  );
