import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../schema/constants';
import { SUGGESTION_MESSAGES, type Suggestion } from '../../../schema/suggestions';
import { ADMIN, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;
let admin: TestClient;

beforeAll(async () => {
  t = await startTestServer();
  admin = t.client();
  await admin.post('/api/auth/login', ADMIN);
});
afterAll(async () => {
  await t.close();
});

const valid = { title: 'Dark mode', content: 'Please add a dark mode for night shifts.', category: 'user_interface' };

describe('POST /api/suggestions', () => {
  it('lets any signed-in staff member submit a suggestion and audits it', async () => {
    const { user, client } = await t.signedIn({ firstName: 'Sam', lastName: 'Suggester' });
    const res = await client.post('/api/suggestions', { ...valid, title: '  Dark mode  ' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      title: 'Dark mode',
      content: valid.content,
      category: 'user_interface',
      author: { firstName: 'Sam', lastName: 'Suggester' },
    });
    expect(typeof res.body.id).toBe('string');
    expect(new Date(res.body.createdAt as string).getTime()).toBeGreaterThan(0);
    const audit = (await statement(
      t.db,
      `SELECT target_id AS "targetId", details FROM audit_log WHERE action = 'suggestion.created' AND actor_id = ?`,
    ).all([user.id])) as { targetId: string; details: string }[];
    expect(audit).toEqual([{ targetId: res.body.id, details: JSON.stringify({ category: 'user_interface' }) }]);
  });

  it('answers 401 when signed out', async () => {
    const res = await t.client().post('/api/suggestions', valid);
    expect(res.status).toBe(401);
  });

  it.each([
    ['an empty title', { ...valid, title: '   ' }, SUGGESTION_MESSAGES.missing],
    ['a missing description', { title: 'x', category: 'other' }, SUGGESTION_MESSAGES.missing],
    ['no category', { title: 'x', content: 'y' }, SUGGESTION_MESSAGES.category],
    ['an unknown category', { ...valid, category: 'wishlist' }, SUGGESTION_MESSAGES.category],
    [
      'a 256-character title',
      { ...valid, title: 'a'.repeat(LIMITS.suggestionTitleMax + 1) },
      SUGGESTION_MESSAGES.titleTooLong,
    ],
    [
      'a 1001-character description',
      { ...valid, content: 'b'.repeat(LIMITS.suggestionContentMax + 1) },
      SUGGESTION_MESSAGES.contentTooLong,
    ],
  ])('refuses %s with 400 and stores nothing', async (_name, body, message) => {
    const { client } = await t.signedIn();
    const before = ((await statement(t.db, 'SELECT count(*) AS n FROM suggestions').get()) as { n: number }).n;
    const res = await client.post('/api/suggestions', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', message });
    expect(((await statement(t.db, 'SELECT count(*) AS n FROM suggestions').get()) as { n: number }).n).toBe(before);
  });

  it('accepts a title of exactly 255 and a description of exactly 1000 characters', async () => {
    const { client } = await t.signedIn();
    const res = await client.post('/api/suggestions', {
      ...valid,
      title: 'a'.repeat(LIMITS.suggestionTitleMax),
      content: 'b'.repeat(LIMITS.suggestionContentMax),
    });
    expect(res.status).toBe(201);
  });
});

describe('GET /api/suggestions', () => {
  it('lists every suggestion newest first with its author to a System Administrator', async () => {
    const { client } = await t.signedIn({ firstName: 'Nia', lastName: 'Newest' });
    t.advance(1000);
    const first = await client.post('/api/suggestions', { ...valid, title: 'Older idea' });
    t.advance(1000);
    const second = await client.post('/api/suggestions', { ...valid, title: 'Newer idea', category: 'performance' });
    const res = await admin.get('/api/suggestions');
    expect(res.status).toBe(200);
    const list = res.body as unknown as Suggestion[];
    expect(Array.isArray(list)).toBe(true);
    const ids = list.map((s) => s.id);
    expect(ids.indexOf(second.body.id as string)).toBeLessThan(ids.indexOf(first.body.id as string));
    expect(list[0]).toEqual({
      id: second.body.id,
      title: 'Newer idea',
      category: 'performance',
      content: valid.content,
      createdAt: second.body.createdAt,
      author: { firstName: 'Nia', lastName: 'Newest' },
    });
    const times = list.map((s) => Date.parse(s.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it.each(['staff', 'admin'] as const)('refuses a %s with 403', async (role) => {
    const { client } = await t.signedIn({ role });
    const res = await client.get('/api/suggestions');
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('System Administrator access required.');
  });

  it('answers 401 when signed out', async () => {
    expect((await t.client().get('/api/suggestions')).status).toBe(401);
  });

  it('keeps the suggestion of a deleted account, shown as "Deleted user"', async () => {
    const { user, client } = await t.signedIn({ firstName: 'Gone', lastName: 'Soon' });
    const made = await client.post('/api/suggestions', { ...valid, title: 'Before I leave' });
    expect((await admin.delete(`/api/admin/users/${user.id}`)).status).toBe(204);
    const list = (await admin.get('/api/suggestions')).body as unknown as Suggestion[];
    expect(list.find((s) => s.id === made.body.id)?.author).toEqual({ firstName: 'Deleted', lastName: 'user' });
  });
});
