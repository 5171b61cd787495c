import { Secret, TOTP as Totp } from 'otpauth';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MESSAGES } from '../../../schema/auth';
import { LIMITS } from '../../../schema/constants';
import { TWO_FACTOR_MESSAGES as M } from '../../../schema/two-factor';
import { startTestServer, TEST_PASSWORD, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;
/** The server's clock is Date.now() plus this; codes are computed at the server's time. */
let offset = 0;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});
// Every test starts with the attempt limits of its address cleared.
afterEach(() => advance(LIMITS.loginFailureWindowMs + 1000));

const STEP = 30_000;
/** The recovery codes of an answer. */
const codesOf = (body: Record<string, unknown>): string[] =>
  Array.isArray(body.recoveryCodes) ? body.recoveryCodes.map(String) : [];
function advance(ms: number) {
  offset += ms;
  t.advance(ms);
}
const serverNow = () => Date.now() + offset;
/** Puts the server's clock in the middle of a time step, so a code computed now stays in its step for 15 s. */
function toMidStep() {
  const into = serverNow() % STEP;
  advance((STEP + STEP / 2 - into) % STEP);
}
const codeAt = (secret: string, at: number) =>
  new Totp({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp: at });

/** A signed-in user who has set up the authenticator app; answers the secret and the recovery codes. */
async function withTotp(overrides: Parameters<TestServer['signedIn']>[0] = {}) {
  const { user, client } = await t.signedIn(overrides);
  const started = await client.post('/api/auth/two-factor/totp/start');
  expect(started.status).toBe(200);
  toMidStep();
  const confirmed = await client.post('/api/auth/two-factor/totp/confirm', {
    code: codeAt(String(started.body.secret), serverNow()),
  });
  expect(confirmed.status).toBe(200);
  // The confirming code's step is spent: sign-ins use the next one.
  advance(STEP);
  return {
    user,
    client,
    secret: started.body.secret as string,
    recoveryCodes: confirmed.body.recoveryCodes as string[],
  };
}

async function passwordStep(client: TestClient, email: string, password = TEST_PASSWORD) {
  return client.post('/api/auth/login', { email, password });
}

async function auditOf(userId: string) {
  return (await statement(t.db, 'select action, details from audit_log where actor_id = ? order by id').all([
    userId,
  ])) as {
    action: string;
    details: string | null;
  }[];
}

describe('setting up the authenticator app', () => {
  it('starts with a secret, an otpauth URI and a QR code drawn as SVG, active only once a code confirms it', async () => {
    const { user, client } = await t.signedIn();
    const started = await client.post('/api/auth/two-factor/totp/start');
    expect(started.status).toBe(200);
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.body.uri).toMatch(/^otpauth:\/\/totp\/Test%20Care%20Ltd:user-.*\?issuer=Test%20Care%20Ltd&secret=/);
    expect(started.body.uri).toContain('algorithm=SHA1&digits=6&period=30');
    expect(started.body.qrSvg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect((await client.get('/api/auth/two-factor')).body).toMatchObject({ totp: false, recoveryCodesLeft: 0 });
    // Not active yet: the password alone still signs in.
    expect((await passwordStep(t.client(), user.email)).body).toMatchObject({ id: user.id });

    toMidStep();
    const wrong = await client.post('/api/auth/two-factor/totp/confirm', { code: '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ code: 'bad_request', message: M.invalidCode });
    const ok = await client.post('/api/auth/two-factor/totp/confirm', {
      code: codeAt(String(started.body.secret), serverNow()),
    });
    expect(ok.status).toBe(200);
    expect(ok.body.recoveryCodes).toHaveLength(10);
    for (const code of codesOf(ok.body)) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(new Set(codesOf(ok.body)).size).toBe(10);
    expect((await client.get('/api/auth/two-factor')).body).toMatchObject({ totp: true, recoveryCodesLeft: 10 });
    expect((await auditOf(user.id)).map((row) => row.action)).toContain('auth.totp_added');
  });

  it('stores recovery codes only as hashes, and refuses a second app until the first is removed', async () => {
    const { user, client, recoveryCodes } = await withTotp();
    const stored = await statement(t.db, 'select code_hash from recovery_codes where user_id = ?').all([user.id]);
    const dump = JSON.stringify(stored);
    for (const code of recoveryCodes) expect(dump).not.toContain(code.replace('-', ''));
    const again = await client.post('/api/auth/two-factor/totp/start');
    expect(again.status).toBe(409);
    expect(again.body.message).toBe(M.alreadySetUp);
  });

  it('answers 401 signed out and 400 for a code that is not 6 digits', async () => {
    expect((await t.client().post('/api/auth/two-factor/totp/start')).status).toBe(401);
    expect((await t.client().get('/api/auth/two-factor')).status).toBe(401);
    const { client } = await t.signedIn();
    const bad = await client.post('/api/auth/two-factor/totp/confirm', { code: '12ab' });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toEqual([{ path: 'code', message: 'Enter the 6-digit code' }]);
  });
});

describe('signing in with a second factor', () => {
  it('answers "second factor needed" to the right password, with no session, then signs in with a code', async () => {
    const { user, secret } = await withTotp();
    const client = t.client();
    const first = await passwordStep(client, user.email);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ secondFactor: { methods: ['totp', 'recovery_code'] } });
    expect(client.cookie).toBe('');
    const ticket = first.headers.getSetCookie().find((c) => c.startsWith('sp_sign_in='))!;
    expect(ticket).toMatch(/HttpOnly/);
    expect(ticket).toMatch(/Max-Age=300/);
    expect(ticket).toMatch(/Path=\/api\/auth/);
    expect((await client.get('/api/auth/user')).status).toBe(401);
    // The ticket is kept hashed in the database, not as sent.
    const value = ticket.split(';')[0].split('=')[1];
    expect(JSON.stringify(await statement(t.db, 'select * from auth_challenges').all())).not.toContain(value);

    toMidStep();
    const second = await client.post('/api/auth/login/second-factor', { code: codeAt(secret, serverNow()) });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: user.id, email: user.email });
    expect(client.cookie).toMatch(/^sp_session=/);
    expect(client.signInCookie).toBe('');
    expect((await client.get('/api/auth/user')).body).toMatchObject({ id: user.id });
    const audit = (await auditOf(user.id)).slice(-2);
    expect(audit.map((row) => row.action)).toEqual(['auth.login_password_checked', 'auth.login']);
    expect(JSON.parse(audit[1].details!)).toEqual({ secondFactor: 'totp' });
  });

  it('accepts a code one step either side of now and refuses one two steps away', async () => {
    const { user, secret } = await withTotp();
    const client = t.client();
    await passwordStep(client, user.email);
    toMidStep();
    const tooOld = await client.post('/api/auth/login/second-factor', { code: codeAt(secret, serverNow() - 2 * STEP) });
    expect(tooOld.status).toBe(401);
    expect(tooOld.body).toEqual({ code: 'unauthenticated', message: M.invalidCode });
    const tooNew = await client.post('/api/auth/login/second-factor', { code: codeAt(secret, serverNow() + 2 * STEP) });
    expect(tooNew.status).toBe(401);
    const previous = await client.post('/api/auth/login/second-factor', { code: codeAt(secret, serverNow() - STEP) });
    expect(previous.status).toBe(200);

    advance(3 * STEP);
    const again = t.client();
    await passwordStep(again, user.email);
    const next = await again.post('/api/auth/login/second-factor', { code: codeAt(secret, serverNow() + STEP) });
    expect(next.status).toBe(200);
  });

  it('refuses a code used once already, and any code of an earlier step than one used', async () => {
    const { user, secret } = await withTotp();
    toMidStep();
    const code = codeAt(secret, serverNow());
    const first = t.client();
    await passwordStep(first, user.email);
    expect((await first.post('/api/auth/login/second-factor', { code })).status).toBe(200);
    const replay = t.client();
    await passwordStep(replay, user.email);
    const refused = await replay.post('/api/auth/login/second-factor', { code });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe(M.invalidCode);
    const earlier = await replay.post('/api/auth/login/second-factor', { code: codeAt(secret, serverNow() - STEP) });
    expect(earlier.status).toBe(401);
    const failed = (await auditOf(user.id)).filter((row) => row.action === 'auth.login_failed');
    expect(failed.map((row) => JSON.parse(row.details!))).toEqual([{ step: 'totp' }, { step: 'totp' }]);
  });

  it('takes each recovery code once, and only with a ticket', async () => {
    const { user, recoveryCodes } = await withTotp();
    const noTicket = await t.client().post('/api/auth/login/second-factor', { recoveryCode: recoveryCodes[0] });
    expect(noTicket.status).toBe(401);
    expect(noTicket.body.message).toBe(M.ticketExpired);

    const first = t.client();
    await passwordStep(first, user.email);
    // Typed in capitals and without the dash, as people do.
    const used = await first.post('/api/auth/login/second-factor', {
      recoveryCode: recoveryCodes[0].replace('-', '').toUpperCase(),
    });
    expect(used.status).toBe(200);
    const second = t.client();
    await passwordStep(second, user.email);
    const again = await second.post('/api/auth/login/second-factor', { recoveryCode: recoveryCodes[0] });
    expect(again.status).toBe(401);
    expect(again.body.message).toBe(M.invalidRecoveryCode);
    expect((await second.post('/api/auth/login/second-factor', { recoveryCode: recoveryCodes[1] })).status).toBe(200);
    expect((await second.get('/api/auth/two-factor')).body.recoveryCodesLeft).toBe(8);
  });

  it('lets a ticket live five minutes and be spent once', async () => {
    const { user, recoveryCodes } = await withTotp();
    const client = t.client();
    await passwordStep(client, user.email);
    const ticket = client.signInCookie;
    advance(5 * 60_000 + 1000);
    const late = await client.post('/api/auth/login/second-factor', { recoveryCode: recoveryCodes[0] });
    expect(late.status).toBe(401);
    expect(late.body).toEqual({ code: 'unauthenticated', message: M.ticketExpired });

    await passwordStep(client, user.email);
    const reused = t.client();
    reused.signInCookie = client.signInCookie;
    expect((await client.post('/api/auth/login/second-factor', { recoveryCode: recoveryCodes[0] })).status).toBe(200);
    expect((await reused.post('/api/auth/login/second-factor', { recoveryCode: recoveryCodes[1] })).status).toBe(401);
    expect(ticket).not.toBe('');
  });

  it('answers a wrong password and an unknown e-mail alike for an account with a second factor', async () => {
    const { user } = await withTotp();
    const wrong = await passwordStep(t.client(), user.email, 'Wrong!Pass1');
    const unknown = await passwordStep(t.client(), 'nobody-2fa@test.example', 'Wrong!Pass1');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ code: 'unauthenticated', message: MESSAGES.invalidCredentials });
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.getSetCookie().some((c) => c.startsWith('sp_sign_in='))).toBe(false);
  });

  it('counts wrong codes and wrong passwords against the same account limit', async () => {
    const { user, secret } = await withTotp();
    const client = t.client();
    await passwordStep(client, user.email);
    for (let i = 0; i < LIMITS.loginFailuresPerAccount; i += 1) {
      expect((await client.post('/api/auth/login/second-factor', { code: '000000' })).status).toBe(401);
    }
    toMidStep();
    const locked = await client.post('/api/auth/login/second-factor', { code: codeAt(secret, serverNow()) });
    expect(locked.status).toBe(429);
    expect(locked.body.message).toBe('Too many failed sign-in attempts. Please try again in 15 minutes.');
    expect((await passwordStep(t.client(), user.email)).status).toBe(429);

    advance(LIMITS.loginFailureWindowMs + 1000);
    // Two wrong passwords, then a right one: its ticket has three tries left, not five.
    for (let i = 0; i < 2; i += 1) expect((await passwordStep(client, user.email, 'Wrong!Pass1')).status).toBe(401);
    expect((await passwordStep(client, user.email)).status).toBe(200);
    for (let i = 0; i < 3; i += 1) {
      expect((await client.post('/api/auth/login/second-factor', { code: '000000' })).status).toBe(401);
    }
    expect((await client.post('/api/auth/login/second-factor', { code: '000000' })).status).toBe(429);
  });

  it('counts wrong codes against the address limit across accounts, and the password step feels it', async () => {
    const perAccount = LIMITS.loginFailuresPerAccount;
    const accounts = [];
    for (let i = 0; i <= LIMITS.loginFailuresPerAddress / perAccount; i += 1) accounts.push(await withTotp());
    const statuses: number[] = [];
    for (const { user } of accounts.slice(0, -1)) {
      const client = t.client();
      expect((await passwordStep(client, user.email)).status).toBe(200);
      for (let i = 0; i < perAccount; i += 1) {
        statuses.push((await client.post('/api/auth/login/second-factor', { code: '000000' })).status);
      }
    }
    expect(statuses).toEqual(Array.from({ length: LIMITS.loginFailuresPerAddress }, () => 401));
    const last = await passwordStep(t.client(), accounts.at(-1)!.user.email);
    expect(last.status).toBe(429);
  });
});

describe('removing the app and new recovery codes', () => {
  it('removes the authenticator app only with the password; the password alone signs in again', async () => {
    const { user, client } = await withTotp();
    const wrong = await client.post('/api/auth/two-factor/totp/remove', { password: 'Wrong!Pass1' });
    expect(wrong.status).toBe(403);
    expect(wrong.body.message).toBe(M.wrongPassword);
    const ok = await client.post('/api/auth/two-factor/totp/remove', { password: TEST_PASSWORD });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ totp: false, recoveryCodesLeft: 0 });
    expect((await passwordStep(t.client(), user.email)).body).toMatchObject({ id: user.id });
    expect((await auditOf(user.id)).map((row) => row.action)).toContain('auth.totp_removed');
    expect((await client.post('/api/auth/two-factor/totp/remove', {})).status).toBe(400);
  });

  it('makes new recovery codes with the password; the old ones stop working', async () => {
    const { user, client, recoveryCodes } = await withTotp();
    const fresh = await client.post('/api/auth/two-factor/recovery-codes', { password: TEST_PASSWORD });
    expect(fresh.status).toBe(200);
    expect(fresh.body.recoveryCodes).toHaveLength(10);
    const other = t.client();
    await passwordStep(other, user.email);
    expect((await other.post('/api/auth/login/second-factor', { recoveryCode: recoveryCodes[0] })).status).toBe(401);
    const ok = await other.post('/api/auth/login/second-factor', { recoveryCode: codesOf(fresh.body)[0] });
    expect(ok.status).toBe(200);
  });
});
