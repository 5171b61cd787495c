import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import { ADMIN, startTestServer, TEST_PASSWORD, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const NEW_PASSWORD = 'N3w!Password';

describe('GET /api/auth/user', () => {
  it('answers 401 with a JSON message when signed out', async () => {
    const res = await t.client().get('/api/auth/user');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'unauthenticated', message: 'Unauthorized' });
  });

  it('answers the current user with its public fields when signed in', async () => {
    const { user, client } = await t.signedIn({ firstName: 'Ada', lastName: 'Lovelace', role: 'admin' });
    const res = await client.get('/api/auth/user');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      email: user.email,
      firstName: 'Ada',
      lastName: 'Lovelace',
      role: 'admin',
      isAdmin: true,
      isMasterAdmin: false,
      isActive: true,
      profileImageUrl: null,
    });
  });
});

describe('POST /api/auth/login', () => {
  it('signs in the first System Administrator made from ADMIN_EMAIL and sets a safe session cookie', async () => {
    const res = await t
      .client()
      .post('/api/auth/login', { email: ADMIN.email.toUpperCase(), password: ADMIN.password });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: ADMIN.email, role: 'system_admin', isMasterAdmin: true, isAdmin: true });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sp_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    expect(res.body).not.toHaveProperty('passwordHash');
  });

  it('answers the same message for a wrong password and an unknown e-mail', async () => {
    const user = await t.buildUser();
    const wrong = await t.client().post('/api/auth/login', { email: user.email, password: 'Wrong!Pass1' });
    const unknown = await t.client().post('/api/auth/login', { email: 'nobody@test.example', password: 'Wrong!Pass1' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe('Invalid email or password');
    expect(unknown.body).toEqual(wrong.body);
  });

  it('reports each validation message of the sign-in form', async () => {
    const bad = await t.client().post('/api/auth/login', { email: 'not-an-email', password: '' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.details).toEqual([
      { path: 'email', message: 'Invalid email address' },
      { path: 'password', message: 'Password is required' },
    ]);
  });

  it('answers a clear message for a body that is not JSON, with no stack trace', async () => {
    const res = await t
      .client()
      .request('POST', '/api/auth/login', '{not json', { 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('The request body is not valid JSON');
    expect(res.text).not.toMatch(/at .*\.ts/);
  });

  it('locks an account for 15 minutes after 5 failures, with a 429 that says when to retry', async () => {
    const user = await t.buildUser();
    const client = t.client();
    for (let i = 0; i < LIMITS.loginFailuresPerAccount; i += 1) {
      expect((await client.post('/api/auth/login', { email: user.email, password: 'Wrong!Pass1' })).status).toBe(401);
    }
    const locked = await client.post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(locked.status).toBe(429);
    expect(locked.body.message).toBe('Too many failed sign-in attempts. Please try again in 15 minutes.');
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    t.advance(LIMITS.loginFailureWindowMs + 1000);
    expect((await client.post('/api/auth/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(200);
  });

  it('counts every attempt of a concurrent burst before evaluating any: at most 5 of 100 guesses are tried', async () => {
    const user = await t.buildUser();
    const guess = (password: string) =>
      t
        .client()
        .post('/api/auth/login', { email: user.email, password })
        .then((res) => res.status);
    const statuses = await Promise.all(Array.from({ length: 100 }, () => guess('Wrong!Pass1')));
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(LIMITS.loginFailuresPerAccount);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);

    // The account is locked for the right password too, as after five failures one after another.
    expect(await guess(TEST_PASSWORD)).toBe(429);
    t.advance(LIMITS.loginFailureWindowMs + 1000);
  });

  it('locks an address that fails too often across many accounts', async () => {
    const client = t.client();
    const headers = { 'content-type': 'application/json' };
    // All test requests come from 127.0.0.1; use fresh e-mails so only the address limit applies.
    let last = 0;
    for (let i = 0; i <= LIMITS.loginFailuresPerAddress; i += 1) {
      const res = await client.request(
        'POST',
        '/api/auth/login',
        { email: `spray${i}@test.example`, password: 'x' },
        headers,
      );
      last = res.status;
    }
    expect(last).toBe(429);
    t.advance(LIMITS.loginFailureWindowMs + 1000);
  });

  it('tells a pending registration that it awaits approval, only with the right password', async () => {
    const user = await t.buildUser({ isActive: false, pendingApproval: true });
    const wrong = await t.client().post('/api/auth/login', { email: user.email, password: 'Wrong!Pass1' });
    expect(wrong.status).toBe(401);
    const right = await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(right.status).toBe(403);
    expect(right.body.message).toBe('Your account is awaiting approval by an administrator.');
  });

  it('refuses a deactivated account', async () => {
    const user = await t.buildUser({ isActive: false });
    const res = await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(MESSAGES.deactivated);
  });

  it('writes sign-ins and failures to the audit log with the address', async () => {
    const user = await t.buildUser();
    await t.client().post('/api/auth/login', { email: user.email, password: 'Wrong!Pass1' });
    await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    const rows = await statement(
      t.db,
      'select action, actor_id as "actorId", ip from audit_log where actor_email = ? order by id',
    ).all([user.email]);
    expect(rows).toEqual([
      { action: 'auth.login_failed', actorId: user.id, ip: '127.0.0.1' },
      { action: 'auth.login', actorId: user.id, ip: '127.0.0.1' },
    ]);
  });
});

describe('sessions', () => {
  it('ends on sign-out at once', async () => {
    const { client } = await t.signedIn();
    const stolen = client.cookie;
    expect((await client.post('/api/auth/logout')).status).toBe(204);
    expect(client.cookie).toBe('');
    const again = t.client();
    again.cookie = stolen;
    expect((await again.get('/api/auth/user')).status).toBe(401);
  });

  it('sign-out tells the browser to clear its HTTP cache, but not its storage, where kept work lives', async () => {
    const { client } = await t.signedIn();
    const res = await client.post('/api/auth/logout');
    expect(res.status).toBe(204);
    expect(res.headers.get('clear-site-data')).toBe('"cache"');
  });

  it('sign-out answers 204 even when signed out', async () => {
    expect((await t.client().post('/api/auth/logout')).status).toBe(204);
  });

  it('dies after 30 idle minutes even if the tab stays open, and background traffic does not keep it alive', async () => {
    const { client } = await t.signedIn();
    t.advance(20 * 60_000);
    expect((await client.get('/api/auth/user', { 'x-background': '1' })).status).toBe(200);
    t.advance(11 * 60_000);
    expect((await client.get('/api/auth/user', { 'x-background': '1' })).status).toBe(401);
  });

  it('stays alive while the user is active (heartbeat)', async () => {
    const { client } = await t.signedIn();
    for (let i = 0; i < 4; i += 1) {
      t.advance(20 * 60_000);
      expect((await client.post('/api/auth/heartbeat')).status).toBe(204);
    }
    expect((await client.get('/api/auth/user')).status).toBe(200);
  });

  it('is stored hashed: the cookie value is not in the database', async () => {
    const { client } = await t.signedIn();
    const token = client.cookie.split('=')[1];
    const hit = (await statement(t.db, 'select count(*) as n from sessions where token_hash = ?').get([token])) as {
      n: number;
    };
    expect(hit.n).toBe(0);
  });
});

describe('POST /api/auth/register', () => {
  const form = (email: string) => ({
    email,
    password: TEST_PASSWORD,
    confirmPassword: TEST_PASSWORD,
    firstName: 'Reg',
    lastName: 'Istered',
    role: 'system_administrator',
  });

  it('creates an inactive staff account awaiting approval and records the role asked for', async () => {
    const res = await t.client().post('/api/auth/register', form('new.person@test.example'));
    expect(res.status).toBe(202);
    expect(res.body.message).toBe(MESSAGES.registrationReceived);
    const row = await statement(
      t.db,
      'select role, is_active as "isActive", pending_approval as pending, requested_role as requested from users where email = ?',
    ).get(['new.person@test.example']);
    expect(row).toEqual({ role: 'staff', isActive: 0, pending: 1, requested: 'system_administrator' });
  });

  it('answers the same for an e-mail that is already registered, and tells its owner by mail', async () => {
    const user = await t.buildUser();
    const res = await t.client().post('/api/auth/register', form(user.email));
    expect(res.status).toBe(202);
    expect(res.body.message).toBe(MESSAGES.registrationReceived);
    const mail = await t.smtp.waitFor(user.email);
    expect(mail.subject).toMatch(/tried to register/);
  });

  it('reports every password rule and the confirmation mismatch', async () => {
    const res = await t.client().post('/api/auth/register', {
      ...form('weak@test.example'),
      password: 'abc',
      confirmPassword: 'abd',
      firstName: ' ',
      lastName: '',
    });
    expect(res.status).toBe(400);
    const messages = (res.body.details as { message: string }[]).map((d) => d.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        'Password must be at least 8 characters',
        'Password must contain at least one uppercase letter',
        'Password must contain at least one number',
        'Password must contain at least one special character',
        'First name is required',
        'Last name is required',
      ]),
    );
  });

  it('reports the mismatch on the confirm field', async () => {
    const res = await t
      .client()
      .post('/api/auth/register', { ...form('mismatch@test.example'), confirmPassword: 'Other!Pass1' });
    expect(res.body.details).toEqual([{ path: 'confirmPassword', message: "Passwords don't match" }]);
  });

  it('refuses an unknown role', async () => {
    const res = await t.client().post('/api/auth/register', { ...form('role@test.example'), role: 'root' });
    expect(res.status).toBe(400);
  });
});

describe('limits on reset and registration requests', () => {
  const tooMany = {
    code: 'rate_limited',
    message: `${MESSAGES.tooManyAccountRequests} Please try again in 15 minutes.`,
  };

  it('counts every registration of a concurrent burst from one client before hashing any: at most 20 evaluated', async () => {
    const burst = Array.from({ length: 100 }, (_, i) =>
      t.client().post('/api/auth/register', {
        email: `burst-${i}@test.example`,
        password: TEST_PASSWORD,
        confirmPassword: TEST_PASSWORD,
        firstName: 'Burst',
        lastName: 'Er',
        role: 'staff',
      }),
    );
    const answers = await Promise.all(burst);
    const accepted = answers.filter((res) => res.status === 202).length;
    expect(accepted).toBeLessThanOrEqual(LIMITS.accountRequestsPerAddress);
    expect(answers.filter((res) => res.status !== 202).map((res) => [res.status, res.body])).toEqual(
      Array.from({ length: 100 - accepted }, () => [429, tooMany]),
    );
    // Only the requests let through reached the hashing and created an account.
    const created = await statement(t.db, "select count(*) as n from users where email like 'burst-%'").get();
    expect(created).toEqual({ n: accepted });
    t.advance(LIMITS.accountRequestWindowMs + 1000);
  });

  it('lets one inbox get at most 5 reset mails however many are asked at once, alike for an unknown address', async () => {
    const user = await t.buildUser();
    const burst = (email: string) =>
      Promise.all(Array.from({ length: 30 }, () => t.client().post('/api/auth/forgot-password', { email })));
    const summary = (answers: { status: number; text: string }[]) => answers.map((res) => `${res.status} ${res.text}`);
    const known = summary(await burst(user.email)).sort();
    const unknown = summary(await burst('ghost-burst@test.example')).sort();
    expect(known).toEqual(unknown);
    expect(known.filter((answer) => answer.startsWith('202 '))).toHaveLength(LIMITS.accountRequestsPerEmail);
    expect(known.filter((answer) => answer.startsWith('429 '))[0]).toBe(`429 ${JSON.stringify(tooMany)}`);
    await t.server.outbox.settle();
    expect(t.smtp.to(user.email)).toHaveLength(LIMITS.accountRequestsPerEmail);
    t.advance(LIMITS.accountRequestWindowMs + 1000);
  });
});

describe('password reset', () => {
  it('answers the same whether or not the account exists, and mails a link only to a real account', async () => {
    const user = await t.buildUser();
    const known = await t.client().post('/api/auth/forgot-password', { email: user.email });
    const unknown = await t.client().post('/api/auth/forgot-password', { email: 'ghost@test.example' });
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(known.body).toEqual(unknown.body);
    const mail = await t.smtp.waitFor(user.email);
    expect(mail.link).toMatch(/\/reset-password\?token=/);
    expect(t.smtp.to('ghost@test.example')).toHaveLength(0);
  });

  it('validates e-mail with the forgot-password message', async () => {
    const res = await t.client().post('/api/auth/forgot-password', { email: 'nope' });
    expect(res.body.message).toBe('Please enter a valid email address');
  });

  it('sets a new password once, ends every session, and the old password stops working', async () => {
    const { user, client } = await t.signedIn();
    await t.client().post('/api/auth/forgot-password', { email: user.email });
    const mail = await t.smtp.waitFor(user.email);
    const token = new URL(mail.link!).searchParams.get('token')!;
    expect(await statement(t.db, 'select count(*) as n from user_tokens where token_hash = ?').get([token])).toEqual({
      n: 0,
    });

    const check = await t.client().get(`/api/auth/reset-password/validate?token=${encodeURIComponent(token)}`);
    expect(check.body).toEqual({ valid: true, purpose: 'reset', email: user.email });

    const reset = await t.client().post('/api/auth/reset-password', { token, password: NEW_PASSWORD });
    expect(reset.status).toBe(200);
    expect((await client.get('/api/auth/user')).status).toBe(401);

    const reuse = await t.client().post('/api/auth/reset-password', { token, password: 'An0ther!Pass' });
    expect(reuse.status).toBe(400);
    expect(reuse.body.message).toBe('This password reset link is invalid or has expired.');

    expect((await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD })).status).toBe(401);
    expect((await t.client().post('/api/auth/login', { email: user.email, password: NEW_PASSWORD })).status).toBe(200);
    const audit = await statement(
      t.db,
      "select count(*) as n from audit_log where action = 'auth.password_changed' and actor_id = ?",
    ).get([user.id]);
    expect(audit).toEqual({ n: 1 });
  });

  it('lets only one of three resets sent at once with the same link set a password', async () => {
    const user = await t.buildUser();
    await t.client().post('/api/auth/forgot-password', { email: user.email });
    const token = new URL((await t.smtp.waitFor(user.email)).link!).searchParams.get('token')!;
    const passwords = ['First!Pass1', 'Second!Pass2', 'Third!Pass3'];
    const answers = await Promise.all(
      passwords.map((password) => t.client().post('/api/auth/reset-password', { token, password })),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400, 400]);
    const winner = passwords[answers.findIndex((answer) => answer.status === 200)];
    for (const password of passwords) {
      const signIn = await t.client().post('/api/auth/login', { email: user.email, password });
      expect(signIn.status).toBe(password === winner ? 200 : 401);
    }
  });

  it('refuses a link older than one hour', async () => {
    const user = await t.buildUser();
    await t.client().post('/api/auth/forgot-password', { email: user.email });
    const token = new URL((await t.smtp.waitFor(user.email)).link!).searchParams.get('token')!;
    t.advance(LIMITS.resetTokenMs + 1000);
    const res = await t.client().post('/api/auth/reset-password', { token, password: NEW_PASSWORD });
    expect(res.status).toBe(400);
    expect((await t.client().get(`/api/auth/reset-password/validate?token=${token}`)).status).toBe(400);
  });

  it('applies the reset-screen password rule with its message', async () => {
    const res = await t.client().post('/api/auth/reset-password', { token: 'x', password: 'alllowercase1' });
    expect(res.body.message).toBe(
      'Password must contain at least one uppercase letter, one lowercase letter, and one number',
    );
  });
});

describe('legacy access', () => {
  it('is retired with 410 and a message to show', async () => {
    const res = await t.client().post('/api/legacy-login', { email: 'shared@test.example', password: 'anything' });
    expect(res.status).toBe(410);
    expect(res.body.message).toBe(
      'Legacy access has been retired. Please sign in with your own account or contact support.',
    );
  });
});

describe('cross-site protection and headers', () => {
  it('refuses a state-changing call from another origin', async () => {
    const res = await t
      .client()
      .post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('Cross-site requests are not allowed');
  });

  it('refuses a cross-site browser request without an Origin header', async () => {
    const res = await t.client().post('/api/auth/logout', {}, { 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(403);
  });

  it('accepts the app’s own origin', async () => {
    const res = await t
      .client()
      .post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password }, { origin: t.url });
    expect(res.status).toBe(200);
  });

  it('sets a same-origin Content-Security-Policy, nosniff, frame-ancestors none and no referrer', async () => {
    const res = await t.client().get('/api/config');
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'(;|$)/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });

  it('answers an unknown API path with a JSON 404', async () => {
    const res = await t.client().get('/api/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  it('refuses a body over 1 MB with 413', async () => {
    const res = await t.client().post('/api/auth/login', { email: 'a@b.co', password: 'x'.repeat(1_100_000) });
    expect(res.status).toBe(413);
    expect(res.body.message).toBe('The request is too large');
  });
});

describe('GET /api/config', () => {
  it('tells the screens the organisation, support, handbook, registration mode and the ten houses', async () => {
    const res = await t.client().get('/api/config');
    expect(res.body).toMatchObject({
      orgName: 'Test Care Ltd',
      registration: 'approval',
      needsSetup: false,
    });
    expect(res.body.houses).toHaveLength(10);
    expect((res.body.houses as string[])[9]).toBe('Test Care Ltd');
    // The sealing key comes with it, so a device has it before anyone signs in (decision 114).
    expect(res.body.keptKey).toBe((await t.client().get('/api/kept/key')).body.publicKey);
  });
});
