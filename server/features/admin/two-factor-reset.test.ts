import { Secret, TOTP as Totp } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, startTestServer, TEST_PASSWORD, type TestClient, type TestServer } from '../../test/test-server';
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

/** A user signed in with the authenticator app set up; answers their client too. */
async function withTotp() {
  const { user, client } = await t.signedIn();
  const started = await client.post('/api/auth/two-factor/totp/start');
  const code = new Totp({ secret: Secret.fromBase32(String(started.body.secret)) }).generate();
  expect((await client.post('/api/auth/two-factor/totp/confirm', { code })).status).toBe(200);
  return { user, client };
}

describe('POST /api/admin/users/:id/two-factor/reset', () => {
  it('removes the second factors, ends the sessions, audits, and tells the user by e-mail', async () => {
    const { user, client } = await withTotp();
    const res = await sysadmin.post(`/api/admin/users/${user.id}/two-factor/reset`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: user.email });
    expect((await client.get('/api/auth/user')).status).toBe(401);
    const rows = async (table: string) =>
      await statement(t.db, `select count(*) as n from ${table} where user_id = ?`).get([user.id]);
    expect([await rows('totp_factors'), await rows('recovery_codes'), await rows('passkeys')]).toEqual([
      { n: 0 },
      { n: 0 },
      { n: 0 },
    ]);
    // The password alone signs in again.
    const again = await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(again.body).toMatchObject({ id: user.id });
    const mail = await t.smtp.waitFor(user.email);
    expect(mail.subject).toBe('Your Staff Portal two-factor sign-in was reset');
    expect(mail.raw.replace(/=\r?\n/g, '')).toMatch(/has reset the two-factor sign-in of your\s+Staff Portal account/);
    const audit = await statement(
      t.db,
      "select actor_email as actor, target_id as target from audit_log where action = 'admin.two_factor_reset'",
    ).all();
    expect(audit).toEqual([{ actor: ADMIN.email, target: user.id }]);
  });

  it('refuses admins and staff, their own account, and an unknown id', async () => {
    const { user } = await withTotp();
    for (const role of ['staff', 'admin'] as const) {
      const { client } = await t.signedIn({ role });
      const res = await client.post(`/api/admin/users/${user.id}/two-factor/reset`, {});
      expect(res.status).toBe(403);
    }
    expect((await t.client().post(`/api/admin/users/${user.id}/two-factor/reset`, {})).status).toBe(401);
    const me = (await sysadmin.get('/api/auth/user')).body.id;
    const self = await sysadmin.post(`/api/admin/users/${String(me)}/two-factor/reset`, {});
    expect(self.status).toBe(403);
    expect(self.body.message).toBe('You cannot reset two-factor sign-in of your own account');
    expect((await sysadmin.post('/api/admin/users/no-such-user/two-factor/reset', {})).status).toBe(404);
    expect(await statement(t.db, 'select count(*) as n from totp_factors where user_id = ?').get([user.id])).toEqual({
      n: 1,
    });
  });
});
