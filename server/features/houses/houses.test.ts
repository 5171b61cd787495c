import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminUser } from '../../../schema/admin';
import type { DirectoryUserDoc, PullResponse } from '../../../schema/sync';
import { ADMIN, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;
let sysadmin: TestClient;

beforeAll(async () => {
  t = await startTestServer();
  sysadmin = t.client();
  await sysadmin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
});
afterAll(async () => {
  await t.close();
});

describe('PUT /api/admin/users/{id}/houses', () => {
  it('sets the houses a member works in, in the order of the house list, shown in the admin list', async () => {
    const member = await t.buildUser({ firstName: 'Holly' });
    const res = await sysadmin.put(`/api/admin/users/${member.id}/houses`, {
      houses: ['Test Care Ltd', 'Apps House', 'Apps House'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: member.id, houses: ['Apps House', 'Test Care Ltd'] });
    const list = (await sysadmin.get('/api/admin/users')).body as unknown as AdminUser[];
    expect(list.find((u) => u.id === member.id)?.houses).toEqual(['Apps House', 'Test Care Ltd']);
    expect(list.every((u) => Array.isArray(u.houses))).toBe(true);

    const cleared = await sysadmin.put(`/api/admin/users/${member.id}/houses`, { houses: [] });
    expect(cleared.body.houses).toEqual([]);
    const audit = await statement(
      t.db,
      "SELECT count(*) AS n FROM audit_log WHERE action = 'admin.user_houses_changed' AND target_id = ?",
    ).get([member.id]);
    expect(audit).toEqual({ n: 2 });
  });

  it('is for system administrators only: 401 signed out, 403 for an admin or staff member', async () => {
    const member = await t.buildUser();
    expect((await t.client().put(`/api/admin/users/${member.id}/houses`, { houses: [] })).status).toBe(401);
    for (const role of ['admin', 'staff'] as const) {
      const { client } = await t.signedIn({ role });
      const res = await client.put(`/api/admin/users/${member.id}/houses`, { houses: ['Apps House'] });
      expect(res.status).toBe(403);
    }
  });

  it('refuses an unknown house or a body that is not a list (400) and an unknown user (404)', async () => {
    const member = await t.buildUser();
    const unknown = await sysadmin.put(`/api/admin/users/${member.id}/houses`, { houses: ['Nowhere'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Unknown house: Nowhere');
    expect((await sysadmin.put(`/api/admin/users/${member.id}/houses`, { houses: 'Apps House' })).status).toBe(400);
    const missing = await sysadmin.put(`/api/admin/users/${randomUUID()}/houses`, { houses: [] });
    expect(missing.status).toBe(404);
  });

  it('moves the member up the synced directory, which shows their houses', async () => {
    const member = await t.buildUser();
    const { client } = await t.signedIn();
    const first = (await client.get('/api/sync/users/pull')).body as unknown as PullResponse<DirectoryUserDoc>;
    await sysadmin.put(`/api/admin/users/${member.id}/houses`, { houses: ['Giles House'] });
    const { seq, id } = first.checkpoint;
    const next = (await client.get(`/api/sync/users/pull?seq=${seq}&id=${id}`))
      .body as unknown as PullResponse<DirectoryUserDoc>;
    expect(next.documents).toEqual([expect.objectContaining({ id: member.id, houses: ['Giles House'] })]);
  });
});
