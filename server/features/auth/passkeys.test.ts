import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../schema/constants';
import { PASSWORD_OFF_MESSAGE } from '../../../schema/sso';
import { TWO_FACTOR_MESSAGES as M } from '../../../schema/two-factor';
import { insertReadySession } from '../../test/ready-sessions';
import { SoftwareAuthenticator } from '../../test/software-authenticator';
import { startTestServer, TEST_PASSWORD, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

const ORIGIN = 'http://localhost:4999';
let t: TestServer;
beforeAll(async () => {
  // The relying party comes from PUBLIC_URL; admins must have a second factor, as in production.
  t = await startTestServer({ PUBLIC_URL: ORIGIN, ADMIN_TWO_FACTOR: 'required' });
});
afterAll(async () => {
  await t.close();
});
afterEach(() => t.advance(LIMITS.loginFailureWindowMs + 1000));

interface Options {
  challenge: string;
  user: { id: string };
  allowCredentials?: { id: string }[];
}

/** Adds a passkey for a signed-in client, as the profile page does. */
async function addPasskey(client: TestClient, authenticator: SoftwareAuthenticator, name = 'Work phone') {
  const options = await client.post('/api/auth/passkeys/options');
  expect(options.status).toBe(200);
  const response = authenticator.create(options.body as unknown as Options);
  return client.post('/api/auth/passkeys', { name, response });
}

async function signedInWithPasskey(overrides: Parameters<TestServer['signedIn']>[0] = {}) {
  const { user, client } = await t.signedIn(overrides);
  const authenticator = new SoftwareAuthenticator(ORIGIN);
  const added = await addPasskey(client, authenticator);
  expect(added.status).toBe(201);
  return { user, client, authenticator, added };
}

/** Signs in with a passkey alone, as "Sign in with a passkey" does. */
async function passkeySignIn(authenticator: SoftwareAuthenticator, client = t.client()) {
  const options = await client.post('/api/auth/passkey-sign-in/options');
  expect(options.status).toBe(200);
  expect(options.body.allowCredentials ?? []).toEqual([]);
  const response = authenticator.get(options.body as unknown as Options);
  return { client, res: await client.post('/api/auth/passkey-sign-in', { response }) };
}

describe('registering a passkey', () => {
  it('stores a discoverable passkey with user verification and gives recovery codes with the first factor', async () => {
    const { user, client, added } = await signedInWithPasskey();
    expect(added.body).toMatchObject({ passkey: { name: 'Work phone', lastUsedAt: null } });
    expect(added.body.recoveryCodes).toHaveLength(10);
    const status = await client.get('/api/auth/two-factor');
    expect(status.body).toMatchObject({ totp: false, recoveryCodesLeft: 10, passkeys: [{ name: 'Work phone' }] });
    const options = await client.post('/api/auth/passkeys/options');
    expect(options.body).toMatchObject({
      rp: { id: 'localhost' },
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      attestation: 'none',
    });
    expect(options.body.excludeCredentials).toHaveLength(1);
    const second = await addPasskey(client, new SoftwareAuthenticator(ORIGIN), 'Laptop');
    expect(second.status).toBe(201);
    expect(second.body.recoveryCodes).toBeUndefined();
    const audit = await statement(
      t.db,
      "select count(*) as n from audit_log where action = 'auth.passkey_added' and actor_id = ?",
    ).get([user.id]);
    expect(audit).toEqual({ n: 2 });
  });

  it('refuses a passkey without user verification, from another origin, or with a spent challenge', async () => {
    const { client } = await t.signedIn();
    const noUv = await addPasskey(client, new SoftwareAuthenticator(ORIGIN, false));
    expect(noUv.status).toBe(400);
    expect(noUv.body.message).toBe(M.passkeyFailed);
    const elsewhere = await addPasskey(client, new SoftwareAuthenticator('http://evil.example'));
    expect(elsewhere.status).toBe(400);
    const options = await client.post('/api/auth/passkeys/options');
    const response = new SoftwareAuthenticator(ORIGIN).create(options.body as unknown as Options);
    expect((await client.post('/api/auth/passkeys', { name: 'A', response })).status).toBe(201);
    const replay = await client.post('/api/auth/passkeys', { name: 'B', response });
    expect(replay.status).toBe(401);
    expect((await client.post('/api/auth/passkeys', { name: '', response })).status).toBe(400);
    expect((await t.client().post('/api/auth/passkeys/options')).status).toBe(401);
  });

  it('removes a passkey with the password', async () => {
    const { client, added } = await signedInWithPasskey();
    const id = String((added.body.passkey as { id: string }).id);
    const empty = await client.post(`/api/auth/passkeys/${id}/remove`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.details).toEqual([{ path: 'password', message: 'Password is required' }]);
    const wrong = await client.post(`/api/auth/passkeys/${id}/remove`, { password: 'Wrong!Pass1' });
    expect(wrong.status).toBe(403);
    const ok = await client.post(`/api/auth/passkeys/${id}/remove`, { password: TEST_PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ passkeys: [], recoveryCodesLeft: 0 });
    expect((await client.post(`/api/auth/passkeys/${id}/remove`, { password: TEST_PASSWORD })).status).toBe(404);
  });
});

describe('signing in with a passkey', () => {
  it('uses a passkey as the second step after the password', async () => {
    const { user, authenticator } = await signedInWithPasskey();
    const client = t.client();
    const first = await client.post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(first.body).toEqual({ secondFactor: { methods: ['passkey', 'recovery_code'] } });
    const options = await client.post('/api/auth/login/passkey/options');
    expect(options.status).toBe(200);
    expect(options.body.userVerification).toBe('required');
    const response = authenticator.get(options.body as unknown as Options);
    const res = await client.post('/api/auth/login/passkey', { response });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id });
    expect((await client.get('/api/auth/user')).status).toBe(200);
    const status = await client.get('/api/auth/two-factor');
    expect((status.body.passkeys as { lastUsedAt: string | null }[])[0].lastUsedAt).not.toBeNull();
  });

  it("refuses another account's passkey as the second step, counted as a failed attempt", async () => {
    const { user } = await signedInWithPasskey();
    const other = await signedInWithPasskey();
    const client = t.client();
    await client.post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    const options = await client.post('/api/auth/login/passkey/options');
    const response = other.authenticator.get({ challenge: String(options.body.challenge) });
    const res = await client.post('/api/auth/login/passkey', { response });
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(M.passkeyFailed);
    const failures = await statement(t.db, 'select count(*) as n from login_failures where email = ?').get([
      user.email,
    ]);
    expect(failures).toEqual({ n: 1 });
  });

  it('signs in with a passkey alone (usernameless), an admin included, with a full session', async () => {
    const { user, authenticator } = await signedInWithPasskey({ role: 'system_admin' });
    const { client, res } = await passkeySignIn(authenticator);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, role: 'system_admin' });
    expect(res.body).not.toHaveProperty('twoFactorSetupRequired');
    expect((await client.get('/api/admin/users')).status).toBe(200);
    const audit = (await statement(
      t.db,
      "select details from audit_log where action = 'auth.login' and actor_id = ? order by id desc",
    ).get([user.id])) as { details: string };
    expect(JSON.parse(audit.details)).toEqual({ secondFactor: 'passkey', passwordless: true });
  });

  it('refuses an unknown passkey, a replayed answer and a signature for another challenge', async () => {
    const stranger = new SoftwareAuthenticator(ORIGIN);
    stranger.create({ challenge: 'x', user: { id: 'nobody' } });
    const unknown = await passkeySignIn(stranger);
    expect(unknown.res.status).toBe(401);
    expect(unknown.res.body).toEqual({ code: 'unauthenticated', message: M.passkeyFailed });

    const { authenticator } = await signedInWithPasskey();
    const client = t.client();
    const options = await client.post('/api/auth/passkey-sign-in/options');
    const response = authenticator.get(options.body as unknown as Options);
    expect((await client.post('/api/auth/passkey-sign-in', { response })).status).toBe(200);
    const replay = t.client();
    await replay.post('/api/auth/passkey-sign-in/options');
    expect((await replay.post('/api/auth/passkey-sign-in', { response })).status).toBe(401);
    expect((await t.client().post('/api/auth/passkey-sign-in', { response })).status).toBe(401);
  });

  it('counts failed passkey sign-ins against the passkey and the address, like passwords', async () => {
    const perKey = LIMITS.loginFailuresPerAccount;
    const statuses: number[] = [];
    for (let k = 0; statuses.length <= LIMITS.loginFailuresPerAddress; k += 1) {
      const stranger = new SoftwareAuthenticator(ORIGIN);
      stranger.create({ challenge: 'x', user: { id: `nobody-${k}` } });
      for (let i = 0; i < perKey; i += 1) statuses.push((await passkeySignIn(stranger)).res.status);
      if (k === 0) expect((await passkeySignIn(stranger)).res.status).toBe(429);
    }
    expect(statuses.slice(0, LIMITS.loginFailuresPerAddress).every((s) => s === 401)).toBe(true);
    expect(statuses[LIMITS.loginFailuresPerAddress]).toBe(429);
  });
});

describe('with password sign-in off', () => {
  it('refuses a passkey alone but for the break-glass account: the provider is the way in', async () => {
    const off = await startTestServer({
      PUBLIC_URL: ORIGIN,
      ADMIN_TWO_FACTOR: 'required',
      // Never reached: the provider is read on a sign-in's first use only.
      OIDC_ISSUER: 'http://127.0.0.1:9/',
      OIDC_CLIENT_ID: 'portal',
      OIDC_CLIENT_SECRET: 'secret',
      PASSWORD_SIGNIN: 'off',
      BREAK_GLASS_EMAIL: 'break.glass@test.example',
    });
    try {
      // A session written straight to the database: password sign-in, the harness's way in, is off here.
      const user = await off.buildUser();
      const client = off.client();
      client.cookie = `sp_session=${await insertReadySession(off.db, user.id)}`;
      const authenticator = new SoftwareAuthenticator(ORIGIN);
      expect((await addPasskey(client, authenticator)).status).toBe(201);
      const fresh = off.client();
      const options = await fresh.post('/api/auth/passkey-sign-in/options');
      const response = authenticator.get(options.body as unknown as Options);
      const res = await fresh.post('/api/auth/passkey-sign-in', { response });
      expect(res).toMatchObject({ status: 403, body: { message: PASSWORD_OFF_MESSAGE } });
      expect((await fresh.get('/api/auth/user')).status).toBe(401);
    } finally {
      await off.close();
    }
  });
});
