import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DirectoryUserDoc, PullResponse } from '../../../schema/sync';
import { sweepExpired } from '../auth/auth.service';
import { updateUser } from '../users/users.queries';
import { ADMIN, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';
import { sendAccessDigest } from './access.service';
import { expireAccounts } from './admin.service';

let t: TestServer;
let admin: TestClient;

beforeAll(async () => {
  t = await startTestServer();
});
// Tests move the clock by days, which ends sessions: sign the admin in afresh for each test.
beforeEach(async () => {
  admin = t.client();
  await admin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
});
afterAll(async () => {
  await t.close();
});

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
let serial = 0;
const newcomer = (extra: Record<string, unknown>) => ({
  email: `worker${(serial += 1)}@test.example`,
  firstName: 'Agnes',
  lastName: 'Agency',
  userType: 'staff',
  ...extra,
});

describe('agency and bank staff', () => {
  it('gives agency staff an access end within 7 days and bank staff within 92; employees have none', async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ type: 'agency' }, 'Agency access must end within 7 days'],
      [{ type: 'agency', accessEndsAt: ahead(8 * DAY) }, 'Agency access must end within 7 days'],
      [{ type: 'bank', accessEndsAt: ahead(93 * DAY) }, 'Bank access must end within 92 days'],
      [{ type: 'agency', accessEndsAt: ahead(-HOUR) }, 'The access end date must be in the future'],
      [{ type: 'employee', accessEndsAt: ahead(DAY) }, 'Only bank and agency staff have an access end date'],
      [{ type: 'contractor' }, 'Type must be employee, bank or agency'],
      [{ type: 'agency', accessEndsAt: 'next Friday' }, 'accessEndsAt must be a date and time such as'],
    ];
    for (const [extra, message] of refusals) {
      const res = await admin.post('/api/admin/users', newcomer(extra));
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(JSON.stringify(res.body)).toContain(message);
    }
    const end = ahead(3 * DAY);
    const agency = await admin.post('/api/admin/users', newcomer({ type: 'agency', accessEndsAt: end }));
    expect(agency.status).toBe(201);
    expect(agency.body).toMatchObject({ type: 'agency', accessEndsAt: end, isActive: true });
    const bank = await admin.post('/api/admin/users', newcomer({ type: 'bank', accessEndsAt: null }));
    expect(bank.body).toMatchObject({ type: 'bank', accessEndsAt: null });
    const employee = await admin.post('/api/admin/users', newcomer({}));
    expect(employee.body).toMatchObject({ type: 'employee', accessEndsAt: null });
    const audit = (await statement(
      t.db,
      "select details from audit_log where action = 'admin.user_created' and target_id = ?",
    ).get([agency.body.id])) as { details: string };
    expect(JSON.parse(audit.details)).toMatchObject({ type: 'agency', accessEndsAt: end });
  });

  it('lets an admin extend an agency worker, within the limit, and keeps an unchanged end as it is', async () => {
    const created = await admin.post('/api/admin/users', newcomer({ type: 'agency', accessEndsAt: ahead(DAY) }));
    const id = created.body.id as string;
    const fields = { email: created.body.email, firstName: 'Agnes', lastName: 'Agency', role: 'staff' };
    const later = ahead(6 * DAY);
    const extended = await admin.patch(`/api/admin/users/${id}/edit`, { ...fields, accessEndsAt: later });
    expect(extended.status).toBe(200);
    expect(extended.body.accessEndsAt).toBe(later);
    const tooLong = await admin.patch(`/api/admin/users/${id}/edit`, { ...fields, accessEndsAt: ahead(9 * DAY) });
    expect(tooLong.status).toBe(400);
    const renamed = await admin.patch(`/api/admin/users/${id}/edit`, { ...fields, lastName: 'Agency-Smith' });
    expect(renamed.body).toMatchObject({ type: 'agency', accessEndsAt: later, lastName: 'Agency-Smith' });
    const hired = await admin.patch(`/api/admin/users/${id}/edit`, { ...fields, type: 'employee', accessEndsAt: null });
    expect(hired.body).toMatchObject({ type: 'employee', accessEndsAt: null });
  });

  it('ends access on time: deactivated, signed out, stream closed, push forgotten, audited as the server', async () => {
    const { user, client } = await t.signedIn({ accountType: 'agency', accessEndsAt: Date.now() + 10 * MINUTE });
    const colleague = await t.signedIn();
    const stream = await client.openStream();
    await stream.next('RESYNC');
    const subscriptions = statement(t.db, 'select count(*) as n from push_subscriptions where user_id = ?');
    await statement(
      t.db,
      'insert into push_subscriptions (id, user_id, endpoint, p256dh, auth, created_at) values (?, ?, ?, ?, ?, ?)',
    ).run(['sub-1', user.id, 'https://fcm.googleapis.com/fcm/send/x', 'key', 'auth', Date.now()]);
    expect(await subscriptions.get([user.id])).toEqual({ n: 1 });
    expect(await t.server.accessExpiry.check()).toBe(0);
    expect((await client.get('/api/auth/user')).status).toBe(200);
    t.advance(10 * MINUTE + 1);
    expect(await t.server.accessExpiry.check()).toBe(1);
    await stream.ended;
    expect((await client.get('/api/auth/user')).status).toBe(401);
    const again = await t.client().post('/api/auth/login', { email: user.email, password: 'Str0ng!Passw0rd' });
    expect(again.status).not.toBe(200);
    expect((await colleague.client.get('/api/auth/user')).status).toBe(200);
    expect(await subscriptions.get([user.id])).toEqual({ n: 0 });
    const listed = await admin.get('/api/admin/users');
    expect((listed.body as unknown as { id: string; isActive: boolean }[]).find((u) => u.id === user.id)).toMatchObject(
      {
        isActive: false,
      },
    );
    const audit = (await statement(
      t.db,
      `select actor_id as "actorId", details from audit_log where action = 'user.access_expired' and target_id = ?`,
    ).all([user.id])) as { actorId: string | null; details: string }[];
    expect(audit).toHaveLength(1);
    expect(audit[0].actorId).toBeNull();
    expect(JSON.parse(audit[0].details)).toMatchObject({ type: 'agency' });
    // Once is enough: a later check finds nothing more to end.
    expect(await t.server.accessExpiry.check()).toBe(0);
  });
});

describe('two servers running the access jobs at the same moment, as they would without the lock', () => {
  it('ends each account once, with one audit entry each', async () => {
    const s = await startTestServer();
    try {
      const ending = [
        await s.buildUser({ accountType: 'agency', accessEndsAt: Date.now() + MINUTE }),
        await s.buildUser({ accountType: 'bank', accessEndsAt: Date.now() + MINUTE }),
      ];
      s.advance(2 * MINUTE);
      const ended = await Promise.all([expireAccounts(s.server.deps), expireAccounts(s.server.deps)]);
      for (const user of ending) {
        const audit = await statement(
          s.db,
          "select count(*) as n from audit_log where action = 'user.access_expired' and target_id = ?",
        ).get([user.id]);
        expect(audit).toEqual({ n: 1 });
        expect(await statement(s.db, 'select is_active as "isActive" from users where id = ?').get([user.id])).toEqual({
          isActive: 0,
        });
      }
      expect(ended[0] + ended[1]).toBe(2);
    } finally {
      await s.close();
    }
  });

  it('sends each System Administrator one access ending e-mail', async () => {
    const s = await startTestServer();
    try {
      await s.buildUser({ accountType: 'agency', firstName: 'Sooner', accessEndsAt: Date.now() + HOUR });
      const other = await s.buildUser({ role: 'system_admin' });
      const queued = await Promise.all([sendAccessDigest(s.server.deps), sendAccessDigest(s.server.deps)]);
      await s.server.outbox.settle();
      for (const email of [ADMIN.email, other.email]) {
        await s.smtp.waitFor(email);
        expect(s.smtp.to(email).filter((m) => m.subject === 'Staff Portal: access ending soon')).toHaveLength(1);
      }
      expect(queued[0] + queued[1]).toBe(2);
    } finally {
      await s.close();
    }
  });
});

describe('the directory of agency and bank staff (decision 147)', () => {
  it('carries each colleague type, and a change of type alone brings the colleague in the next pull', async () => {
    const { user, client } = await t.signedIn();
    const created = await admin.post('/api/admin/users', newcomer({ type: 'agency', accessEndsAt: ahead(DAY) }));
    const first = (await client.get('/api/sync/users/pull?limit=1000'))
      .body as unknown as PullResponse<DirectoryUserDoc>;
    expect(first.documents.find((doc) => doc.id === created.body.id)).toMatchObject({ type: 'agency' });
    expect(first.documents.find((doc) => doc.id === user.id)).toMatchObject({ type: 'employee' });

    await updateUser(t.db, created.body.id as string, { accountType: 'bank' });
    const { seq, id } = first.checkpoint;
    const next = (await client.get(`/api/sync/users/pull?seq=${seq}&id=${id}`))
      .body as unknown as PullResponse<DirectoryUserDoc>;
    expect(next.documents.map((doc) => [doc.id, doc.type])).toEqual([[created.body.id, 'bank']]);
  });
});

describe('the daily e-mail of access ending soon (decision 147)', () => {
  it('lists accounts ending within 48 hours to System Administrators once a day, and sends nothing when none', async () => {
    const digest = t.server.accessDigest;
    // Accounts other tests made end within days: let them pass, and their access with them.
    t.advance(8 * DAY);
    await t.server.accessExpiry.check();
    expect(await digest.check()).toBe(0);
    expect(t.smtp.to(ADMIN.email).filter((m) => m.subject.includes('access ending soon'))).toHaveLength(0);

    const login = async () => {
      admin = t.client();
      await admin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
    };
    await login();
    const clock = () => t.server.deps.now();
    const at = (ms: number) => new Date(clock() + ms).toISOString();
    const soon = await admin.post('/api/admin/users', {
      ...newcomer({ type: 'agency', accessEndsAt: at(30 * HOUR) }),
      firstName: 'Sooner',
    });
    const later = await admin.post('/api/admin/users', {
      ...newcomer({ type: 'bank', accessEndsAt: at(60 * HOUR) }),
      firstName: 'Later',
    });
    const employee = await admin.post('/api/admin/users', { ...newcomer({}), firstName: 'Everyday' });
    expect([soon.status, later.status, employee.status]).toEqual([201, 201, 201]);
    const other = await t.buildUser({ role: 'system_admin' });

    expect(await digest.check()).toBe(2);
    const mail = await t.smtp.waitFor(ADMIN.email);
    expect(mail.subject).toBe('Staff Portal: access ending soon');
    const body = mail.raw.replace(/=\r?\n/g, '');
    expect(body).toContain('Sooner Agency (Agency staff): access ends');
    expect(body).not.toContain('Later');
    expect(body).not.toContain('Everyday');
    await t.smtp.waitFor(other.email);

    // The day sent is kept in the settings table: a second check that day, even after a restart, sends nothing.
    expect(await digest.check()).toBe(0);
    t.advance(DAY);
    expect(await digest.check()).toBe(2);
    const next = (await t.smtp.waitFor(ADMIN.email, 2)).raw.replace(/=\r?\n/g, '');
    expect(next).toContain('Sooner Agency (Agency staff)');
    expect(next).toContain('Later Agency (Bank staff)');
  });
});

// Last: it moves the clock by days.
describe('the device is told its access ended (decision 151)', () => {
  it('tells a device whose access ended so, apart from a deactivation or a sign-out, for as long as a session lasts', async () => {
    t.advance(8 * DAY);
    // Earlier tests' workers end first, so the check below ends only this test's.
    await t.server.accessExpiry.check();
    const now = t.server.deps.now();
    const { user, client } = await t.signedIn({ accountType: 'agency', accessEndsAt: now + MINUTE });
    const deactivated = await t.signedIn({ accountType: 'agency', accessEndsAt: now + 6 * DAY });
    const signedOut = await t.signedIn();
    t.advance(3 * DAY);
    expect(await t.server.accessExpiry.check()).toBe(1);
    for (const path of ['/api/auth/user', '/api/sync/users/pull?limit=10', '/api/sync/stream']) {
      const res = await client.get(path);
      expect(res.status, path).toBe(401);
      expect(res.body, path).toEqual({
        code: 'access_ended',
        message: 'Your access has ended. Ask an administrator if you still need it.',
      });
    }
    // Signing in again is refused as for any inactive account, not with the session's reason.
    const again = await t.client().post('/api/auth/login', { email: user.email, password: 'Str0ng!Passw0rd' });
    expect(again.body.code).not.toBe('access_ended');

    await admin.patch(`/api/admin/users/${deactivated.user.id}/status`, { isActive: false });
    await signedOut.client.post('/api/auth/logout');
    for (const other of [deactivated.client, signedOut.client]) {
      const res = await other.get('/api/auth/user');
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthenticated');
    }

    // Past a session's maximum age the reason is forgotten with the session it explained.
    t.advance(13 * HOUR);
    await sweepExpired(t.server.deps);
    const late = await client.get('/api/auth/user');
    expect(late.status).toBe(401);
    expect(late.body.code).toBe('unauthenticated');
  });
});
