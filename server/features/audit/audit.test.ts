import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AUDIT_CSV_COLUMNS,
  AUDIT_MESSAGES,
  auditActionLabel,
  type AuditEntry,
  type AuditPage,
} from '../../../schema/audit';
import { csvLine } from '../../lib/csv';
import { TEST_PASSWORD, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;
let admin: TestClient;
let adminEmail: string;

beforeAll(async () => {
  t = await startTestServer();
});
// A fresh System Administrator each test: some tests move the clock past the idle limit.
beforeEach(async () => {
  const signedIn = await t.signedIn({ role: 'system_admin' });
  admin = signedIn.client;
  adminEmail = signedIn.user.email;
});
afterAll(async () => {
  await t.close();
});

const page = async (query = '', client = admin) => {
  const res = await client.get(`/api/admin/audit${query}`);
  expect(res.status).toBe(200);
  return res.body as unknown as AuditPage;
};

/** Parses the server's CSV (quoted cells, CRLF lines, no line breaks inside cells in these tests). */
function parseCsv(text: string): string[][] {
  return text
    .split('\r\n')
    .filter(Boolean)
    .map((line) => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1].replace(/""/g, '"')));
}

describe('GET /api/admin/audit', () => {
  it('lists sign-ins and failures newest first with the person, a readable label and the address', async () => {
    const user = await t.buildUser({ firstName: 'Olive', lastName: 'Auditee' });
    await t.client().post('/api/auth/login', { email: user.email, password: 'wrong-password' });
    t.advance(1000);
    await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    const { entries } = await page(`?actor=${user.id}`);
    expect(entries.map((e) => e.action)).toEqual(['auth.login', 'auth.login_failed']);
    expect(entries[0]).toMatchObject({
      actionLabel: 'Signed in',
      actor: { id: user.id, email: user.email, name: 'Olive Auditee' },
      ip: expect.any(String),
    });
    expect(entries[1].actionLabel).toBe('Sign-in failed');
    expect(Date.parse(entries[0].at)).toBeGreaterThan(Date.parse(entries[1].at));
  });

  it('names the user an admin action was about', async () => {
    const { user } = await t.signedIn({ firstName: 'Tara', lastName: 'Target' });
    await admin.patch(`/api/admin/users/${user.id}/status`, { isActive: false });
    const { entries } = await page('?action=admin.user_deactivated');
    expect(entries[0]).toMatchObject({
      actionLabel: 'User deactivated',
      actor: { email: adminEmail },
      target: { type: 'user', id: user.id, name: 'Tara Target' },
    });
  });

  it('filters by part of a name or e-mail, case-insensitively, and treats % and _ literally', async () => {
    const user = await t.buildUser({ firstName: 'Quentin', lastName: 'Zebedee', email: 'quentin.z@test.example' });
    await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect((await page('?actor=zebedee')).entries.every((e) => e.actor.id === user.id)).toBe(true);
    expect((await page('?actor=zebedee')).entries.length).toBeGreaterThan(0);
    expect((await page('?actor=QUENTIN.Z%40')).entries.every((e) => e.actor.email === user.email)).toBe(true);
    expect((await page('?actor=%25')).entries).toEqual([]);
    expect((await page('?actor=_')).entries.every((e) => `${e.actor.email}${e.actor.name}`.includes('_'))).toBe(true);
  });

  it('finds a visitor’s failed sign-in by the e-mail they typed', async () => {
    await t.client().post('/api/auth/login', { email: 'nobody-here@test.example', password: 'guess' });
    const { entries } = await page('?actor=nobody-here');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'auth.login_failed', actor: { id: null, name: null } });
  });

  it('filters by a date range: from inclusive, to exclusive', async () => {
    const user = await t.buildUser();
    await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    const day = 24 * 60 * 60 * 1000;
    t.advance(day);
    await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    // The clock moved a day: the admin's idle session is over, so a fresh System Administrator looks.
    admin = (await t.signedIn({ role: 'system_admin' })).client;
    const both = (await page(`?actor=${user.id}`)).entries;
    expect(both).toHaveLength(2);
    const [newer, older] = both.map((e) => Date.parse(e.at));
    const iso = (ms: number) => new Date(ms).toISOString();
    expect((await page(`?actor=${user.id}&from=${iso(newer)}`)).entries.map((e) => Date.parse(e.at))).toEqual([newer]);
    expect((await page(`?actor=${user.id}&to=${iso(newer)}`)).entries.map((e) => Date.parse(e.at))).toEqual([older]);
    const window = await page(`?actor=${user.id}&from=${iso(older - day / 2)}&to=${iso(older + day / 2)}`);
    expect(window.entries.map((e) => Date.parse(e.at))).toEqual([older]);
  });

  it('pages with a cursor without repeating or skipping entries', async () => {
    const user = await t.buildUser();
    for (let i = 0; i < 5; i += 1) {
      await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    }
    const seen: AuditEntry[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const next: AuditPage = await page(`?actor=${user.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(next.entries.length).toBeLessThanOrEqual(2);
      seen.push(...next.entries);
      cursor = next.nextCursor;
    }
    expect(seen).toHaveLength(5);
    expect(new Set(seen.map((e) => e.id)).size).toBe(5);
    const all = await page(`?actor=${user.id}`);
    expect(seen.map((e) => e.id)).toEqual(all.entries.map((e) => e.id));
  });

  it.each([
    ['a broken cursor', '?cursor=not-a-cursor', AUDIT_MESSAGES.badCursor],
    ['a date that is not ISO', '?from=yesterday', AUDIT_MESSAGES.badDate],
    [
      'a range that ends before it starts',
      '?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      AUDIT_MESSAGES.badRange,
    ],
    ['a page over 200', '?limit=500', undefined],
  ])('refuses %s with 400', async (_name, query, message) => {
    const res = await admin.get(`/api/admin/audit${query}`);
    expect(res.status).toBe(400);
    if (message) expect(res.body.message).toBe(message);
  });

  it.each(['staff', 'admin'] as const)('refuses a %s with 403', async (role) => {
    const { client } = await t.signedIn({ role });
    expect((await client.get('/api/admin/audit')).status).toBe(403);
    expect((await client.get('/api/admin/audit.csv')).status).toBe(403);
  });

  it('answers 401 when signed out', async () => {
    expect((await t.client().get('/api/admin/audit')).status).toBe(401);
    expect((await t.client().get('/api/admin/audit.csv')).status).toBe(401);
  });
});

describe('GET /api/admin/audit.csv', () => {
  it('downloads the filtered entries as CSV and audits the export', async () => {
    const user = await t.buildUser({ firstName: 'Cara', lastName: 'Csv' });
    await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    const res = await admin.get(`/api/admin/audit.csv?actor=${user.id}&action=auth.login`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual([...AUDIT_CSV_COLUMNS]);
    expect(rows).toHaveLength(2);
    expect(rows[1].slice(1, 6)).toEqual(['Signed in', 'auth.login', 'Cara Csv', user.email, user.id]);

    const exported = await page('?action=audit.exported&limit=1');
    expect(exported.entries[0]).toMatchObject({
      actionLabel: 'Audit log exported',
      actor: { email: adminEmail },
      details: { rows: 1, filters: { actor: user.id, action: 'auth.login' } },
    });
  });

  it('escapes cells a spreadsheet would run as formulas', async () => {
    const user = await t.buildUser({ firstName: '=HYPERLINK("http://evil.example","Click")', lastName: '+1' });
    await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    await t.client().post('/api/auth/login', { email: '+cmd@evil.example', password: 'x' });
    const res = await admin.get(`/api/admin/audit.csv?actor=${user.id}`);
    expect(res.text).toContain(`"'=HYPERLINK(""http://evil.example"",""Click"") +1"`);
    const visitor = parseCsv((await admin.get('/api/admin/audit.csv?actor=%2Bcmd%40evil.example')).text);
    expect(visitor[1][4]).toBe("'+cmd@evil.example");
    for (const row of [...parseCsv(res.text), ...visitor].slice(1)) {
      for (const cell of row) expect(cell).not.toMatch(/^[=+\-@]/);
    }
  });
});

describe('the audit log is append-only', () => {
  it('offers no call that edits or deletes an entry', async () => {
    const id = (await page('?limit=1')).entries[0].id;
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST'] as const) {
      for (const path of [`/api/admin/audit/${id}`, '/api/admin/audit']) {
        const res = await admin.request(method, path, method === 'DELETE' ? undefined : { action: 'x' });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect((await page('?limit=1')).entries[0].id).toBeGreaterThanOrEqual(id);
  });

  it('refuses UPDATE and DELETE in the database itself, so entries survive any code path', async () => {
    const before = (await statement(t.db, 'SELECT count(*) AS n FROM audit_log').get()) as { n: number };
    await expect(statement(t.db, "UPDATE audit_log SET action = 'tampered'").run()).rejects.toThrow(/append-only/);
    await expect(statement(t.db, 'DELETE FROM audit_log').run()).rejects.toThrow(/append-only/);
    expect(await statement(t.db, 'SELECT count(*) AS n FROM audit_log').get()).toEqual(before);
    expect(
      ((await statement(t.db, "SELECT count(*) AS n FROM audit_log WHERE action = 'tampered'").get()) as { n: number })
        .n,
    ).toBe(0);
  });
});

describe('a large CSV export (decision 130)', () => {
  it('answers another request while 50,000 entries are being exported, and exports every one exactly', async () => {
    const count = 50_000;
    const base = Date.UTC(2001, 0, 1);
    const entry = (i: number) => ({
      at: base + i * 1000,
      email: `=bulk${i}@test.example`,
      target: `post-${i}`,
      details: JSON.stringify({ n: i, note: '+formula' }),
    });
    // Written by the database itself in one statement, on either engine: the fastest way to 50,000 rows.
    await statement(
      t.db,
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < CAST(? AS integer))
       INSERT INTO audit_log (at, actor_id, actor_email, action, target_type, target_id, ip, details)
       SELECT CAST(? AS bigint) + i * 1000, NULL, '=bulk' || i || '@test.example', 'test.bulk', 'post', 'post-' || i,
              '127.0.0.1', '{"n":' || i || ',"note":"+formula"}'
       FROM n`,
    ).run([count, base]);
    const exportsBefore = (await page('?action=audit.exported&limit=200')).entries.length;

    const res = await fetch(`${t.url}/api/admin/audit.csv?action=test.bulk`, { headers: { cookie: admin.cookie } });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    chunks.push(first.value!);
    // Asked once the export has begun, and answered from the database before it ends: the export writes its own
    // audit entry after its last line, so none is there yet.
    const during = await page('?action=audit.exported&limit=200');
    expect(during.entries).toHaveLength(exportsBefore);
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const text = Buffer.concat(chunks).toString('utf8');

    let expected = csvLine(AUDIT_CSV_COLUMNS);
    for (let i = count - 1; i >= 0; i--) {
      const e = entry(i);
      expected += csvLine([
        new Date(e.at).toISOString(),
        auditActionLabel('test.bulk'),
        'test.bulk',
        null,
        e.email,
        null,
        'post',
        e.target,
        null,
        '127.0.0.1',
        e.details,
      ]);
    }
    expect(text.length).toBe(expected.length);
    expect(text === expected).toBe(true);
    const after = await page('?action=audit.exported&limit=1');
    expect(after.entries[0].details).toEqual({ rows: count, filters: { action: 'test.bulk' } });
  });
});
