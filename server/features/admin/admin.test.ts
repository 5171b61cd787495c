import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../schema/constants';
import { deleteStaffMember, editStaffMember, setStaffRole, setStaffStatus } from './admin.service';
import { ADMIN, startTestServer, TEST_PASSWORD, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;
let admin: TestClient;
let adminId: string;

beforeAll(async () => {
  t = await startTestServer();
  admin = t.client();
  const res = await admin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
  adminId = res.body.id as string;
});
// Some tests move the clock by days, which ends sessions: sign the admin in afresh for each test.
beforeEach(async () => {
  admin = t.client();
  await admin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
});
afterAll(async () => {
  await t.close();
});

const PASSWORD = 'Inv1ted!Pass';

describe('access to the administration calls', () => {
  const calls: [string, string, unknown?][] = [
    ['GET', '/api/admin/users'],
    ['POST', '/api/admin/users', { email: 'x@test.example', firstName: 'X', lastName: 'Y', userType: 'staff' }],
    [
      'PATCH',
      '/api/admin/users/some-id/edit',
      { email: 'x@test.example', firstName: 'X', lastName: 'Y', role: 'staff' },
    ],
    ['PATCH', '/api/admin/users/some-id/status', { isActive: false }],
    ['PUT', '/api/admin/users/some-id/role', { role: 'staff' }],
    ['POST', '/api/admin/users/some-id/approve', { role: 'staff' }],
    ['DELETE', '/api/admin/users/some-id'],
  ];

  it.each(calls)('%s %s answers 401 when signed out', async (method, path, body) => {
    expect((await t.client().request(method, path, body)).status).toBe(401);
  });

  it.each(calls)('%s %s answers 403 to staff and to administrators', async (method, path, body) => {
    for (const role of ['staff', 'admin'] as const) {
      const { client } = await t.signedIn({ role });
      const res = await client.request(method, path, body);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe('System Administrator access required.');
    }
  });
});

describe('GET /api/admin/users', () => {
  it('lists every account as an array with its states and no secrets', async () => {
    await t.buildUser({
      email: 'pending@test.example',
      isActive: false,
      pendingApproval: true,
      requestedRole: 'administrator',
    });
    const res = await admin.get('/api/admin/users');
    expect(res.status).toBe(200);
    const list = res.body as unknown as Record<string, unknown>[];
    expect(Array.isArray(list)).toBe(true);
    const pending = list.find((u) => u.email === 'pending@test.example');
    expect(pending).toMatchObject({
      pendingApproval: true,
      requestedRole: 'administrator',
      isActive: false,
      role: 'staff',
    });
    expect(JSON.stringify(list)).not.toMatch(/password/i);
  });
});

describe('adding a staff member', () => {
  it('creates the account, e-mails a 7-day invitation, and the member chooses a password and signs in', async () => {
    const res = await admin.post('/api/admin/users', {
      email: 'New.Carer@Test.Example',
      firstName: 'New',
      lastName: 'Carer',
      userType: 'master_admin',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      email: 'new.carer@test.example',
      role: 'system_admin',
      invitePending: true,
      isActive: true,
    });

    const mail = await t.smtp.waitFor('new.carer@test.example');
    expect(mail.raw.replace(/=\r?\n/g, '')).toMatch(/choose your password/);
    const token = new URL(mail.link!).searchParams.get('token')!;
    expect(new URL(mail.link!).pathname).toBe('/reset-password');
    const check = await t.client().get(`/api/auth/reset-password/validate?token=${token}`);
    expect(check.body).toMatchObject({ purpose: 'invite' });

    expect(
      (await t.client().post('/api/auth/login', { email: 'new.carer@test.example', password: PASSWORD })).status,
    ).toBe(401);
    expect((await t.client().post('/api/auth/reset-password', { token, password: PASSWORD })).status).toBe(200);
    const signIn = await t.client().post('/api/auth/login', { email: 'new.carer@test.example', password: PASSWORD });
    expect(signIn.status).toBe(200);
    expect(signIn.body.role).toBe('system_admin');
  });

  it('maps user type admin to the admin role', async () => {
    const res = await admin.post('/api/admin/users', {
      email: 'deputy@test.example',
      firstName: 'De',
      lastName: 'Puty',
      userType: 'admin',
    });
    expect(res.body.role).toBe('admin');
  });

  it('refuses an invitation link after 7 days', async () => {
    await admin.post('/api/admin/users', {
      email: 'late@test.example',
      firstName: 'La',
      lastName: 'Te',
      userType: 'staff',
    });
    const token = new URL((await t.smtp.waitFor('late@test.example')).link!).searchParams.get('token')!;
    t.advance(LIMITS.inviteTokenMs + 60_000);
    expect((await t.client().post('/api/auth/reset-password', { token, password: PASSWORD })).status).toBe(400);
  });

  it('spends an invitation when the address is corrected or the account deactivated', async () => {
    const invite = async (email: string) => {
      const created = await admin.post('/api/admin/users', {
        email,
        firstName: 'Mis',
        lastName: 'Typed',
        userType: 'staff',
      });
      const link = new URL((await t.smtp.waitFor(email)).link!);
      return { id: created.body.id as string, token: link.searchParams.get('token')! };
    };
    const typo = await invite('mistyped@test.exmaple');
    const fixed = { email: 'corrected@test.example', firstName: 'Mis', lastName: 'Typed', role: 'staff' };
    expect((await admin.patch(`/api/admin/users/${typo.id}/edit`, fixed)).status).toBe(200);
    const taken = await t.client().post('/api/auth/reset-password', { token: typo.token, password: PASSWORD });
    expect(taken.status).toBe(400);
    expect((await t.client().post('/api/auth/login', { email: fixed.email, password: PASSWORD })).status).toBe(401);

    const leaver = await invite('leaver@test.example');
    expect((await admin.patch(`/api/admin/users/${leaver.id}/status`, { isActive: false })).status).toBe(200);
    expect(
      (await t.client().post('/api/auth/reset-password', { token: leaver.token, password: PASSWORD })).status,
    ).toBe(400);
  });

  it('refuses an e-mail already in use with 409', async () => {
    const res = await admin.post('/api/admin/users', {
      email: ADMIN.email,
      firstName: 'A',
      lastName: 'B',
      userType: 'staff',
    });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe('A user with this email already exists');
  });

  it('reports the form’s validation messages', async () => {
    const res = await admin.post('/api/admin/users', { email: 'bad', firstName: '', lastName: '', userType: 'boss' });
    expect(res.status).toBe(400);
    const paths = (res.body.details as { path: string }[]).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['email', 'firstName', 'lastName', 'userType']));
  });
});

describe('approving a registration', () => {
  it('sets the role chosen, activates the account, mails the member, who can then sign in', async () => {
    await t.client().post('/api/auth/register', {
      email: 'applicant@test.example',
      password: TEST_PASSWORD,
      confirmPassword: TEST_PASSWORD,
      firstName: 'Ap',
      lastName: 'Plicant',
      role: 'administrator',
    });
    const list = (await admin.get('/api/admin/users')).body as unknown as { id: string; email: string }[];
    const id = list.find((u) => u.email === 'applicant@test.example')!.id;
    const res = await admin.post(`/api/admin/users/${id}/approve`, { role: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ role: 'admin', isActive: true, pendingApproval: false });
    await t.smtp.waitFor('applicant@test.example');
    expect(
      (await t.client().post('/api/auth/login', { email: 'applicant@test.example', password: TEST_PASSWORD })).status,
    ).toBe(200);
    expect((await admin.post(`/api/admin/users/${id}/approve`, { role: 'admin' })).status).toBe(409);
  });
});

describe('changing a member', () => {
  it('edits name, e-mail and role', async () => {
    const user = await t.buildUser();
    const res = await admin.patch(`/api/admin/users/${user.id}/edit`, {
      email: 'renamed@test.example',
      firstName: 'Re',
      lastName: 'Named',
      role: 'admin',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: 'renamed@test.example',
      firstName: 'Re',
      lastName: 'Named',
      role: 'admin',
    });
  });

  it('changes the role and records it in the audit log', async () => {
    const user = await t.buildUser();
    const res = await admin.put(`/api/admin/users/${user.id}/role`, { role: 'system_admin' });
    expect(res.body.role).toBe('system_admin');
    const row = await statement(
      t.db,
      `select actor_id as "actorId", details from audit_log where action = 'admin.user_role_changed' and target_id = ?`,
    ).get([user.id]);
    expect(row).toEqual({ actorId: adminId, details: JSON.stringify({ from: 'staff', to: 'system_admin' }) });
  });

  it('answers 404 for an unknown user', async () => {
    expect((await admin.put('/api/admin/users/nobody/role', { role: 'staff' })).status).toBe(404);
  });

  it('deactivating ends the member’s sessions at once, and they cannot sign in', async () => {
    const { user, client } = await t.signedIn();
    const res = await admin.patch(`/api/admin/users/${user.id}/status`, { isActive: false });
    expect(res.body.isActive).toBe(false);
    expect((await client.get('/api/auth/user')).status).toBe(401);
    expect((await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(403);
    expect((await admin.patch(`/api/admin/users/${user.id}/status`, { isActive: true })).body.isActive).toBe(true);
  });

  it('deleting removes the account and ends its sessions', async () => {
    const { user, client } = await t.signedIn();
    expect((await admin.delete(`/api/admin/users/${user.id}`)).status).toBe(204);
    expect((await client.get('/api/auth/user')).status).toBe(401);
    const rows = await statement(t.db, 'select count(*) as n from users where id = ?').get([user.id]);
    expect(rows).toEqual({ n: 0 });
    const audit = await statement(
      t.db,
      "select count(*) as n from audit_log where action = 'admin.user_deleted' and target_id = ?",
    ).get([user.id]);
    expect(audit).toEqual({ n: 1 });
  });
});

describe('self-protection', () => {
  it('refuses an admin changing their own role, status or record, or deleting themselves', async () => {
    const own = [
      await admin.put(`/api/admin/users/${adminId}/role`, { role: 'staff' }),
      await admin.patch(`/api/admin/users/${adminId}/status`, { isActive: false }),
      await admin.patch(`/api/admin/users/${adminId}/edit`, {
        email: ADMIN.email,
        firstName: 'A',
        lastName: 'B',
        role: 'system_admin',
      }),
      await admin.delete(`/api/admin/users/${adminId}`),
    ];
    expect(own.map((r) => r.status)).toEqual([403, 403, 403, 403]);
  });

  it('refuses to demote, deactivate or delete the last active System Administrator', async () => {
    // Through HTTP the acting system admin is always a second active one, so the rule is a last line of
    // defence in the service: call it as a caller that is not itself an active system admin would.
    const server = await startTestServer();
    try {
      const [last] = (await statement(server.db, "select id from users where role = 'system_admin'").all()) as {
        id: string;
      }[];
      const actor = {
        id: 'someone-else',
        email: 'x@test.example',
        firstName: 'X',
        lastName: 'Y',
        role: 'system_admin' as const,
        isAdmin: true,
        isMasterAdmin: true,
        isActive: true,
        profileImageUrl: null,
      };
      const meta = { ip: '127.0.0.1', userAgent: null };
      const deps = server.server.deps;
      const attempts = [
        () => setStaffStatus(deps, actor, last.id, { isActive: false }, meta),
        () => setStaffRole(deps, actor, last.id, { role: 'admin' }, meta),
        () =>
          editStaffMember(
            deps,
            actor,
            last.id,
            { email: ADMIN.email, firstName: 'A', lastName: 'B', role: 'staff' },
            meta,
          ),
        () => deleteStaffMember(deps, actor, last.id, meta),
      ];
      for (const attempt of attempts) {
        await expect(attempt()).rejects.toThrow('There must always be at least one active System Administrator.');
      }
      const second = await server.buildUser({ role: 'system_admin' });
      expect((await setStaffRole(deps, actor, last.id, { role: 'admin' }, meta)).role).toBe('admin');
      await expect(deleteStaffMember(deps, actor, second.id, meta)).rejects.toThrow(/at least one active/);
    } finally {
      await server.close();
    }
  });
});
