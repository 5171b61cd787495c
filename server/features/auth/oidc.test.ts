import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../../schema/constants';
import { PASSWORD_OFF_MESSAGE } from '../../../schema/sso';
import { loadConfig, ConfigError } from '../../config';
import { freePort, startOidcProvider, type OidcTestProvider } from '../../test/oidc-provider';
import { ADMIN, startTestServer, TEST_PASSWORD, TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

/** A browser's visit through the app's start, the provider's form and the app's callback, without a browser. */
async function ssoVisit(
  t: TestServer,
  op: OidcTestProvider,
  login: string,
  tamper?: (callback: URL) => void | Promise<void>,
) {
  const start = await fetch(`${t.url}/api/auth/sso/start`, { redirect: 'manual' });
  const stateCookie = start.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .find((pair) => pair.startsWith('sp_sso='));
  const callback = new URL(await op.signIn(start.headers.get('location')!, login));
  await tamper?.(callback);
  return finish(t, callback, stateCookie);
}

/** Sends the provider's answer to the app's callback as the browser would; answers where it went and the client. */
async function finish(t: TestServer, callback: URL, stateCookie: string | undefined) {
  const res = await fetch(callback, { redirect: 'manual', headers: stateCookie ? { cookie: stateCookie } : {} });
  const session = res.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .find((pair) => /^sp_session=./.test(pair));
  const client = new TestClient(t.url);
  if (session) client.cookie = session;
  return { status: res.status, location: res.headers.get('location'), client, callback, stateCookie };
}

/** The newest audit entry of an action. */
async function lastAudit(t: TestServer, action: string) {
  return await statement<[string], { actor_id: string | null; actor_email: string | null; details: string | null }>(
    t.db,
    'SELECT actor_id, actor_email, details FROM audit_log WHERE action = ? ORDER BY id DESC LIMIT 1',
  ).get([action]);
}

const auditCount = async (t: TestServer, action: string) =>
  (await statement<[string], { n: number }>(t.db, 'SELECT count(*) AS n FROM audit_log WHERE action = ?').get([
    action,
  ]))!.n;

const countUsers = async (t: TestServer) =>
  (await statement<[], { n: number }>(t.db, 'SELECT count(*) AS n FROM users').get())!.n;

/** The app's settings for the test provider, on a port chosen ahead. */
async function ssoEnv(op: OidcTestProvider, extra: Record<string, string> = {}) {
  const port = await freePort();
  op.allowRedirect(`http://127.0.0.1:${port}/api/auth/sso/callback`);
  return {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    OIDC_ISSUER: op.issuer,
    OIDC_CLIENT_ID: op.clientId,
    OIDC_CLIENT_SECRET: op.clientSecret,
    ...extra,
  };
}

let op: OidcTestProvider;
let t: TestServer;
beforeAll(async () => {
  op = await startOidcProvider({ idTokenTtlSeconds: 60 });
  t = await startTestServer(await ssoEnv(op, { OIDC_LABEL: 'Test Provider' }));
});

/** A server of its own for a test that moves the clock, so the other tests' ID tokens stay fresh. */
async function withOwnClock(test: (own: TestServer) => Promise<void>) {
  const own = await startTestServer(await ssoEnv(op));
  try {
    await test(own);
  } finally {
    await own.close();
  }
}
afterAll(async () => {
  await t.close();
  await op.close();
});

describe('GET /api/auth/sso/start', () => {
  it('sends the browser to the provider with PKCE (S256), state and nonce, bound to the browser by a cookie', async () => {
    const res = await fetch(`${t.url}/api/auth/sso/start`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get('location')!);
    expect(to.origin).toBe(op.issuer);
    expect(to.searchParams.get('response_type')).toBe('code');
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(to.searchParams.get('state')).toMatch(/^[\w-]{20,}$/);
    expect(to.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(to.searchParams.get('redirect_uri')).toBe(`${t.url}/api/auth/sso/callback`);
    const cookie = res.headers.getSetCookie().find((line) => line.startsWith('sp_sso='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/api\/auth\/sso/);
    // Only the state's hash is stored.
    const stored = await statement<[], { state_hash: string }>(t.db, 'SELECT state_hash FROM sso_attempts').all();
    expect(stored.map((row) => row.state_hash)).not.toContain(to.searchParams.get('state'));
  });

  it('tells the sign-in screen that SSO is on, its label, and that passwords are offered', async () => {
    const res = await t.client().get('/api/config');
    expect(res.body).toMatchObject({ sso: { label: 'Test Provider' }, passwordSignIn: true });
  });
});

describe('GET /api/auth/sso/callback', () => {
  it('signs in an existing active account by its verified e-mail, with the same session as a password', async () => {
    const user = await t.buildUser({ email: 'carer.one@test.example', role: 'staff' });
    op.addAccount('carer-one', { email: 'Carer.One@TEST.example', email_verified: true });
    const visit = await ssoVisit(t, op, 'carer-one');
    expect(visit.status).toBe(302);
    expect(visit.location).toBe('/');
    const me = await visit.client.get('/api/auth/user');
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: user.id, email: user.email, role: 'staff' });
    expect(await lastAudit(t, 'auth.login')).toMatchObject({ actor_id: user.id, details: '{"method":"sso"}' });
  });

  it('ends an SSO session by the idle rule as for passwords', () =>
    withOwnClock(async (own) => {
      await own.buildUser({ email: 'idle.one@test.example' });
      op.addAccount('idle-one', { email: 'idle.one@test.example', email_verified: true });
      const { client } = await ssoVisit(own, op, 'idle-one');
      expect((await client.get('/api/auth/user')).status).toBe(200);
      own.advance(30 * 60_000 + 1000);
      expect((await client.get('/api/auth/user')).status).toBe(401);
    }));

  it('signs in an account that wrong passwords have locked, and lifts the lock as a password sign-in would', async () => {
    const user = await t.buildUser({ email: 'locked.one@test.example' });
    op.addAccount('locked-one', { email: user.email, email_verified: true });
    for (let i = 0; i < LIMITS.loginFailuresPerAccount; i += 1) {
      await t.client().post('/api/auth/login', { email: user.email, password: 'Wrong!Pass1' });
    }
    expect((await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(429);
    expect((await ssoVisit(t, op, 'locked-one')).location).toBe('/');
    expect((await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
  });

  it('refuses a callback whose state was changed, and one with no state cookie', async () => {
    await t.buildUser({ email: 'state.one@test.example' });
    op.addAccount('state-one', { email: 'state.one@test.example', email_verified: true });
    const changed = await ssoVisit(t, op, 'state-one', (callback) => callback.searchParams.set('state', 'forged'));
    expect(changed).toMatchObject({ status: 302, location: '/login?sso=expired' });
    expect((await changed.client.get('/api/auth/user')).status).toBe(401);

    const start = await fetch(`${t.url}/api/auth/sso/start`, { redirect: 'manual' });
    const callback = new URL(await op.signIn(start.headers.get('location')!, 'state-one'));
    const cookieless = await finish(t, callback, undefined);
    expect(cookieless).toMatchObject({ status: 302, location: '/login?sso=expired' });
    expect((await lastAudit(t, 'auth.login_failed'))?.details).toBe('{"method":"sso","reason":"expired"}');
  });

  it('refuses an ID token whose nonce is not the one the sign-in started with', async () => {
    await t.buildUser({ email: 'nonce.one@test.example' });
    op.addAccount('nonce-one', { email: 'nonce.one@test.example', email_verified: true });
    const visit = await ssoVisit(t, op, 'nonce-one', async () => {
      await statement(t.db, 'UPDATE sso_attempts SET nonce = ?').run(['another-nonce-than-the-one-sent']);
    });
    expect(visit).toMatchObject({ status: 302, location: '/login?sso=failed' });
    expect((await visit.client.get('/api/auth/user')).status).toBe(401);
  });

  it('refuses an expired ID token, by the app clock', () =>
    withOwnClock(async (own) => {
      await own.buildUser({ email: 'late.one@test.example' });
      op.addAccount('late-one', { email: 'late.one@test.example', email_verified: true });
      // The provider issues ID tokens for 60 s; the app's clock is 5 minutes on, within the 10 minutes of a sign-in.
      const visit = await ssoVisit(own, op, 'late-one', () => own.advance(5 * 60_000));
      expect(visit).toMatchObject({ status: 302, location: '/login?sso=failed' });
      expect((await visit.client.get('/api/auth/user')).status).toBe(401);
    }));

  it('refuses a sign-in that took longer than 10 minutes', () =>
    withOwnClock(async (own) => {
      await own.buildUser({ email: 'slow.one@test.example' });
      op.addAccount('slow-one', { email: 'slow.one@test.example', email_verified: true });
      const visit = await ssoVisit(own, op, 'slow-one', () => own.advance(10 * 60_000 + 1000));
      expect(visit).toMatchObject({ status: 302, location: '/login?sso=expired' });
    }));

  it('refuses a second use of the same callback', async () => {
    await t.buildUser({ email: 'twice.one@test.example' });
    op.addAccount('twice-one', { email: 'twice.one@test.example', email_verified: true });
    const first = await ssoVisit(t, op, 'twice-one');
    expect(first.location).toBe('/');
    const second = await finish(t, first.callback, first.stateCookie);
    expect(second).toMatchObject({ status: 302, location: '/login?sso=expired' });
    expect((await second.client.get('/api/auth/user')).status).toBe(401);
  });

  it('refuses an unknown e-mail and never creates an account', async () => {
    op.addAccount('stranger', { email: 'stranger@test.example', email_verified: true });
    const before = await countUsers(t);
    const visit = await ssoVisit(t, op, 'stranger');
    expect(visit).toMatchObject({ status: 302, location: '/login?sso=no_account' });
    expect(await countUsers(t)).toBe(before);
    expect(await lastAudit(t, 'auth.login_failed')).toMatchObject({
      actor_id: null,
      actor_email: 'stranger@test.example',
      details: '{"method":"sso","reason":"no_account"}',
    });
  });

  it('refuses an e-mail the provider has not verified, and never reads preferred_username', async () => {
    await t.buildUser({ email: 'unverified.one@test.example' });
    op.addAccount('unverified-one', {
      email: 'unverified.one@test.example',
      email_verified: false,
      preferred_username: 'unverified.one@test.example',
    });
    expect(await ssoVisit(t, op, 'unverified-one')).toMatchObject({ location: '/login?sso=unverified' });
    op.addAccount('upn-only', { preferred_username: 'unverified.one@test.example' });
    expect(await ssoVisit(t, op, 'upn-only')).toMatchObject({ location: '/login?sso=unverified' });
  });

  it('takes an Entra ID e-mail its domain owner verified (xms_edov)', async () => {
    const user = await t.buildUser({ email: 'entra.one@test.example' });
    op.addAccount('entra-one', { email: 'entra.one@test.example', xms_edov: true });
    const visit = await ssoVisit(t, op, 'entra-one');
    expect(visit.location).toBe('/');
    expect((await visit.client.get('/api/auth/user')).body).toMatchObject({ id: user.id });
  });

  it('refuses a deactivated account and a pending one, as password sign-in does', async () => {
    await t.buildUser({ email: 'gone.one@test.example', isActive: false });
    op.addAccount('gone-one', { email: 'gone.one@test.example', email_verified: true });
    expect(await ssoVisit(t, op, 'gone-one')).toMatchObject({ location: '/login?sso=deactivated' });
    await t.buildUser({ email: 'new.one@test.example', isActive: false, pendingApproval: true });
    op.addAccount('new-one', { email: 'new.one@test.example', email_verified: true });
    expect(await ssoVisit(t, op, 'new-one')).toMatchObject({ location: '/login?sso=pending' });
  });

  it('never grants a role: an administrator signs in as what the app holds', async () => {
    const user = await t.buildUser({ email: 'admin.one@test.example', role: 'admin' });
    op.addAccount('admin-one', { email: 'admin.one@test.example', email_verified: true });
    const visit = await ssoVisit(t, op, 'admin-one');
    expect((await visit.client.get('/api/auth/user')).body).toMatchObject({ id: user.id, role: 'admin' });
  });

  it('signs out of the app only: the provider still knows the browser, the app session is gone', async () => {
    await t.buildUser({ email: 'leaver.one@test.example' });
    op.addAccount('leaver-one', { email: 'leaver.one@test.example', email_verified: true });
    const { client } = await ssoVisit(t, op, 'leaver-one');
    const out = await client.post('/api/auth/logout');
    expect(out.status).toBe(204);
    expect(out.headers.get('location')).toBeNull();
    expect((await client.get('/api/auth/user')).status).toBe(401);
  });

  it('bounds the sign-ins one address may have under way', () =>
    withOwnClock(async (own) => {
      const starts = await Promise.all(
        Array.from({ length: 101 }, () => fetch(`${own.url}/api/auth/sso/start`, { redirect: 'manual' })),
      );
      const refused = starts.filter((res) => res.headers.get('location') === '/login?sso=too_many');
      expect(refused).toHaveLength(1);
      own.advance(10 * 60_000 + 1000);
      const later = await fetch(`${own.url}/api/auth/sso/start`, { redirect: 'manual' });
      expect(new URL(later.headers.get('location')!).origin).toBe(op.issuer);
    }));

  it('counts failed callbacks as failed sign-ins of the address, and past the limit audits no more', () =>
    withOwnClock(async (own) => {
      const forged = () =>
        fetch(`${own.url}/api/auth/sso/callback?code=c&state=s`, {
          redirect: 'manual',
          headers: { cookie: 'sp_sso=s' },
        });
      for (let i = 0; i < LIMITS.loginFailuresPerAddress; i += 1) {
        expect((await forged()).headers.get('location')).toBe('/login?sso=expired');
      }
      const audited = async () => await auditCount(own, 'auth.login_failed');
      const before = await audited();
      expect((await forged()).headers.get('location')).toBe('/login?sso=too_many');
      expect(await audited()).toBe(before);
      const start = await fetch(`${own.url}/api/auth/sso/start`, { redirect: 'manual' });
      expect(start.headers.get('location')).toBe('/login?sso=too_many');
      // Password sign-in from that address is held too, as after 30 wrong passwords.
      const login = await own.client().post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
      expect(login.status).toBe(429);
    }));

  it('answers a bad callback with the sign-in screen, not an error page', async () => {
    const res = await fetch(`${t.url}/api/auth/sso/callback?state=${'x'.repeat(600)}`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/login?sso=failed');
    const denied = await fetch(`${t.url}/api/auth/sso/callback?error=access_denied&state=s`, { redirect: 'manual' });
    expect(denied.headers.get('location')).toBe('/login?sso=cancelled');
  });
});

describe('an ID token not signed with the provider’s published key', () => {
  it('is refused, though it came straight from the token endpoint', async () => {
    const forger = await startOidcProvider({ publishWrongKey: true });
    const own = await startTestServer(await ssoEnv(forger));
    try {
      await own.buildUser({ email: 'signed.one@test.example' });
      forger.addAccount('signed-one', { email: 'signed.one@test.example', email_verified: true });
      const visit = await ssoVisit(own, forger, 'signed-one');
      expect(visit).toMatchObject({ status: 302, location: '/login?sso=failed' });
      expect((await visit.client.get('/api/auth/user')).status).toBe(401);
    } finally {
      await own.close();
      await forger.close();
    }
  });
});

describe('single sign-on when the provider cannot be reached', () => {
  it('sends the browser back to the sign-in screen with a clear reason', async () => {
    const down = await startTestServer({
      OIDC_ISSUER: 'http://127.0.0.1:9',
      OIDC_CLIENT_ID: 'x',
      OIDC_CLIENT_SECRET: 'y',
    });
    try {
      const res = await fetch(`${down.url}/api/auth/sso/start`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/login?sso=unavailable');
    } finally {
      await down.close();
    }
  });

  it('is off without settings: the start answers the sign-in screen, the config says so', async () => {
    const plain = await startTestServer();
    try {
      const res = await fetch(`${plain.url}/api/auth/sso/start`, { redirect: 'manual' });
      expect(res.headers.get('location')).toBe('/login?sso=off');
      expect((await plain.client().get('/api/config')).body).toMatchObject({ sso: null, passwordSignIn: true });
    } finally {
      await plain.close();
    }
  });
});

describe('PASSWORD_SIGNIN=off', () => {
  let off: TestServer;
  beforeAll(async () => {
    off = await startTestServer(await ssoEnv(op, { PASSWORD_SIGNIN: 'off', BREAK_GLASS_EMAIL: ADMIN.email }));
  });
  afterAll(async () => {
    await off.close();
  });

  it('refuses password sign-in to everyone but the break-glass System Administrator', async () => {
    const user = await off.buildUser();
    const refused = await off.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 'forbidden', message: PASSWORD_OFF_MESSAGE });
    const unknown = await off.client().post('/api/auth/login', { email: 'nobody@test.example', password: 'x' });
    expect(unknown.body).toEqual(refused.body);
    const admin = await off.client().post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
    expect(admin.status).toBe(200);
    expect((await off.client().get('/api/config')).body).toMatchObject({ passwordSignIn: false });
  });

  it('refuses the break-glass address once it is no System Administrator', async () => {
    await statement(off.db, "UPDATE users SET role = 'admin' WHERE email = ?").run([ADMIN.email]);
    try {
      const res = await off.client().post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
      expect(res.status).toBe(403);
    } finally {
      await statement(off.db, "UPDATE users SET role = 'system_admin' WHERE email = ?").run([ADMIN.email]);
    }
  });

  it('refuses reset requests, reset links and registration but for the break-glass account', async () => {
    const user = await off.buildUser();
    const reset = await off.client().post('/api/auth/forgot-password', { email: user.email });
    expect(reset).toMatchObject({ status: 403, body: { message: PASSWORD_OFF_MESSAGE } });
    expect((await off.client().post('/api/auth/forgot-password', { email: ADMIN.email })).status).toBe(202);
    const link = await off.client().post('/api/auth/reset-password', { token: 'no-such', password: 'N3wPassword' });
    expect(link.status).toBe(403);
    const register = await off.client().post('/api/auth/register', {
      email: 'new.person@test.example',
      password: TEST_PASSWORD,
      confirmPassword: TEST_PASSWORD,
      firstName: 'New',
      lastName: 'Person',
    });
    expect(register).toMatchObject({ status: 403, body: { message: PASSWORD_OFF_MESSAGE } });
  });
});

describe('the single sign-on settings', () => {
  const base = { DATA_DIR: '/tmp/unused' };
  it('need all three OIDC values or none', () => {
    expect(() => loadConfig({ ...base, OIDC_ISSUER: 'https://login.example.org' })).toThrow(
      /OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together/,
    );
    expect(loadConfig(base).sso).toEqual({ oidc: null, passwordSignIn: true, breakGlassEmail: null });
  });

  it('refuse an issuer over plain http that is not this machine', () => {
    const env = { ...base, OIDC_ISSUER: 'http://login.example.org', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(/OIDC_ISSUER: must be the https address/);
  });

  it('need single sign-on and a break-glass address to switch passwords off', () => {
    expect(() => loadConfig({ ...base, PASSWORD_SIGNIN: 'off' })).toThrow(/PASSWORD_SIGNIN: off needs single sign-on/);
    const sso = { OIDC_ISSUER: 'https://login.example.org', OIDC_CLIENT_ID: 'a', OIDC_CLIENT_SECRET: 'b' };
    expect(() => loadConfig({ ...base, ...sso, PASSWORD_SIGNIN: 'off' })).toThrow(/BREAK_GLASS_EMAIL: is required/);
    const ok = loadConfig({ ...base, ...sso, PASSWORD_SIGNIN: 'off', BREAK_GLASS_EMAIL: 'Root@Example.org' });
    expect(ok.sso).toMatchObject({ passwordSignIn: false, breakGlassEmail: 'root@example.org' });
    expect(ok.sso.oidc?.label).toBe('single sign-on');
  });
});
