import { Secret, TOTP as Totp } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TWO_FACTOR_MESSAGES as M } from '../../../schema/two-factor';
import { loadConfig } from '../../config';
import { ADMIN, startTestServer, TEST_PASSWORD, type TestServer } from '../../test/test-server';

let t: TestServer;
beforeAll(async () => {
  // The harness turns the requirement off for the other suites; here it is as in production.
  t = await startTestServer({ ADMIN_TWO_FACTOR: 'required' });
});
afterAll(async () => {
  await t.close();
});

const setupRequired = { code: 'two_factor_setup_required', message: M.setupRequired };
const codeNow = (secret: string) =>
  new Totp({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

describe('two-factor sign-in required for admins', () => {
  it('is required by default', () => {
    expect(loadConfig({}).adminTwoFactorRequired).toBe(true);
    expect(loadConfig({ ADMIN_TWO_FACTOR: 'optional' }).adminTwoFactorRequired).toBe(false);
    expect(() => loadConfig({ ADMIN_TWO_FACTOR: 'sometimes' })).toThrow(
      /ADMIN_TWO_FACTOR: must be required or optional/,
    );
  });

  it('gives an admin without a second factor a session that can only set one up', async () => {
    for (const role of ['admin', 'system_admin'] as const) {
      const { user, client } = await t.signedIn({ role });
      expect((await client.get('/api/auth/user')).body).toMatchObject({ id: user.id, twoFactorSetupRequired: true });
      for (const path of ['/api/admin/users', '/api/posts', '/api/alerts/unacknowledged', '/api/sync/users/pull']) {
        const res = await client.get(path);
        expect(res.status, path).toBe(403);
        expect(res.body, path).toEqual(setupRequired);
      }
      expect((await client.get('/api/auth/two-factor')).body).toMatchObject({ required: true, totp: false });
      expect((await client.post('/api/auth/heartbeat')).status).toBe(204);
    }
  });

  it('says so in the sign-in answer, so the device goes to the setup screen', async () => {
    const res = await t.client().post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: ADMIN.email, twoFactorSetupRequired: true });
  });

  it('lets staff through with a password alone', async () => {
    const { client } = await t.signedIn({ role: 'staff' });
    const me = await client.get('/api/auth/user');
    expect(me.body).not.toHaveProperty('twoFactorSetupRequired');
    expect((await client.get('/api/posts')).status).toBe(200);
    expect((await client.get('/api/auth/two-factor')).body).toMatchObject({ required: false });
  });

  it('lets the admin through once the authenticator app is set up, in the same session', async () => {
    const { user, client } = await t.signedIn({ role: 'system_admin' });
    const started = await client.post('/api/auth/two-factor/totp/start');
    expect(started.status).toBe(200);
    expect(
      (await client.post('/api/auth/two-factor/totp/confirm', { code: codeNow(String(started.body.secret)) })).status,
    ).toBe(200);
    expect((await client.get('/api/admin/users')).status).toBe(200);
    expect((await client.get('/api/auth/user')).body).not.toHaveProperty('twoFactorSetupRequired');
    // Next time the password leads to the second step.
    const next = await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(next.body).toEqual({ secondFactor: { methods: ['totp', 'recovery_code'] } });
  });

  it('lets a session be signed out while it can only set up a second factor', async () => {
    const { client } = await t.signedIn({ role: 'admin' });
    expect((await client.post('/api/auth/logout')).status).toBe(204);
    expect((await client.get('/api/auth/user')).status).toBe(401);
  });
});
