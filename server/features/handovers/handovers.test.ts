import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HANDOVER_MESSAGES,
  HANDOVER_VIEW_IDS_MAX,
  type HandoverPage,
  type HandoverReads,
  type HandoverView,
} from '../../../schema/handovers';
import type { HandoverDoc, PullResponse, ResidentViewDoc } from '../../../schema/sync';
import { loadConfig } from '../../config';
import { startTestServer, TEST_PASSWORD, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

const HOUSE = 'Apps House';
const OTHER = 'Giles House';
const list = (house: string) => `/api/houses/${encodeURIComponent(house)}/handovers`;

let t: TestServer;
let writer: TestClient;
let writerId: string;
let reader: TestClient;
let readerId: string;
let outsider: TestClient;
let admin: TestClient;
let adminId: string;
let nowhere: TestClient;
const emails = new Map<TestClient, string>();

/** Signs every client in again: moving the clock past the idle rule ends their sessions. */
async function signInAgain() {
  for (const [client, email] of emails) await client.post('/api/auth/login', { email, password: TEST_PASSWORD });
}

beforeAll(async () => {
  t = await startTestServer();
  let user;
  const keep = (client: TestClient, email: string) => emails.set(client, email);
  ({ client: writer, user } = await t.signedIn({ firstName: 'Wendy', lastName: 'Writer' }));
  writerId = user.id;
  ({ client: reader, user } = await t.signedIn({ firstName: 'Rita', lastName: 'Reader' }));
  readerId = user.id;
  ({ client: outsider, user } = await t.signedIn({ firstName: 'Otto', lastName: 'Other' }));
  await t.setHouses(user.id, [OTHER]);
  keep(outsider, user.email);
  ({ client: admin, user } = await t.signedIn({ role: 'admin', firstName: 'Ada', lastName: 'Manager' }));
  adminId = user.id;
  ({ client: nowhere } = await t.signedIn({ firstName: 'Nina', lastName: 'New' }));
  await t.setHouses(writerId, [HOUSE]);
  await t.setHouses(readerId, [HOUSE]);
  for (const [client, id] of [
    [writer, writerId],
    [reader, readerId],
    [admin, adminId],
  ] as const) {
    emails.set(
      client,
      ((await statement(t.db, 'SELECT email FROM users WHERE id = ?').get([id])) as { email: string }).email,
    );
  }
});
afterAll(async () => {
  await t.close();
});

async function write(content = 'Mr B slept well; fluids encouraged', extra: Record<string, unknown> = {}) {
  const res = await writer.post(list(HOUSE), { shift: 'Day', content, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as unknown as HandoverView;
}

type AuditRow = { action: string; actor_id: string; details: string | null };
const auditFor = async (id: string) =>
  (await statement(t.db, 'SELECT action, actor_id, details FROM audit_log WHERE target_id = ? ORDER BY id').all([
    id,
  ])) as AuditRow[];

async function pull(client: TestClient, seq = 0, id = '') {
  const res = await client.get(`/api/sync/handovers/pull?seq=${seq}&id=${encodeURIComponent(id)}`);
  expect(res.status).toBe(200);
  return res.body as unknown as PullResponse<HandoverDoc>;
}

describe('shift settings', () => {
  it('reads SHIFTS as names and start times, by start time', () => {
    const config = loadConfig({ SHIFTS: 'Night 22:00, Early 06:30,Late 14:00' });
    expect(config.shifts).toEqual([
      { name: 'Early', startMinute: 390 },
      { name: 'Late', startMinute: 840 },
      { name: 'Night', startMinute: 1320 },
    ]);
    expect(loadConfig({}).shifts.map((s) => s.name)).toEqual(['Day', 'Evening', 'Night']);
  });

  it('refuses a bad SHIFTS with a message naming the setting and the problem', () => {
    expect(() => loadConfig({ SHIFTS: 'Day 7am' })).toThrow(/SHIFTS: "Day 7am" must be a shift name and a start time/);
    expect(() => loadConfig({ SHIFTS: 'Day 07:00,day 19:00' })).toThrow(/SHIFTS: the shift "day" is named twice/);
    expect(() => loadConfig({ SHIFTS: 'Day 07:00,Late 07:00' })).toThrow(/SHIFTS: two shifts start at 07:00/);
    expect(() => loadConfig({ SHIFTS: 'Day 24:00' })).toThrow(/SHIFTS/);
    expect(() => loadConfig({ SHIFTS: ' , ' })).toThrow(/SHIFTS: must name at least one shift/);
  });
});

describe('writing and listing', () => {
  it('lists a house newest first with its shifts, to its staff and admins, and pages with a cursor', async () => {
    const first = await write('First note');
    const second = await write('Second note');
    const page = (await reader.get(`${list(HOUSE)}?limit=1`)).body as unknown as HandoverPage;
    expect(page.shifts).toEqual(['Day', 'Evening', 'Night']);
    expect(page.shifts).toContain(page.currentShift);
    expect(page.items.map((n) => n.id)).toEqual([second.id]);
    expect(page.items[0].author).toEqual({ id: writerId, firstName: 'Wendy', lastName: 'Writer' });
    const next = (await reader.get(`${list(HOUSE)}?limit=1&cursor=${page.nextCursor}`)).body as unknown as HandoverPage;
    expect(next.items.map((n) => n.id)).toEqual([first.id]);
    expect((await admin.get(`${list(HOUSE)}?limit=1`)).body.items).toHaveLength(1);
    expect((await reader.get(`${list(HOUSE)}?cursor=nonsense`)).status).toBe(400);
  });

  it('answers 404 to staff of another house, for the list and every call on a note', async () => {
    const note = await write();
    for (const res of [
      await outsider.get(list(HOUSE)),
      await outsider.post(list(HOUSE), { shift: 'Day', content: 'x' }),
      await outsider.get(`/api/handovers/${note.id}`),
      await outsider.get(`/api/handovers/${note.id}/reads`),
      await outsider.post(`/api/handovers/${note.id}/read`),
      await outsider.post(`/api/handovers/${note.id}/addenda`, { content: 'x' }),
      await outsider.patch(`/api/handovers/${note.id}`, { content: 'x' }),
      await outsider.post(`/api/handovers/${note.id}/hide`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('not_found');
    }
    expect((await auditFor(note.id)).map((a) => a.action)).toEqual(['handover.created']);
  });

  it('gives a staff member in no house an empty list with the reason', async () => {
    const res = await nowhere.get(list(HOUSE));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ items: [], reason: HANDOVER_MESSAGES.noHouse });
    expect((await nowhere.get(list('No Such House'))).status).toBe(404);
  });

  it('checks the shift, the content and that mentioned residents are active residents of the house', async () => {
    const bad = await writer.post(list(HOUSE), { shift: 'Brunch', content: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('shift must be one of: Day, Evening, Night');
    expect((await writer.post(list(HOUSE), { shift: 'Day', content: '   ' })).status).toBe(400);
    const mine = await writer.post('/api/residents', { name: 'Mary Ives', houseTags: [HOUSE] });
    const theirs = await writer.post('/api/residents', { name: 'Tom Gale', houseTags: [OTHER] });
    expect(mine.status).toBe(201);
    const refused = await writer.post(list(HOUSE), { shift: 'Day', content: 'x', residentIds: [theirs.body.id] });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(HANDOVER_MESSAGES.unknownResident);
    const named = await write('Mary settled', { residentIds: [mine.body.id] });
    expect(named.residentIds).toEqual([mine.body.id]);
  });

  it('lets an admin read but not write the notes of a house they do not work in', async () => {
    const res = await admin.post(list(HOUSE), { shift: 'Day', content: 'x' });
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(HANDOVER_MESSAGES.writeForbidden);
  });

  it('stores a retried create with the same id once, and refuses the id for another note', async () => {
    const id = randomUUID();
    const a = await writer.post(list(HOUSE), { id, shift: 'Night', content: 'Lost answer' });
    const b = await writer.post(list(HOUSE), { id, shift: 'Night', content: 'Lost answer' });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.id).toBe(id);
    expect(await statement(t.db, 'SELECT count(*) AS n FROM handovers WHERE id = ?').get([id])).toEqual({ n: 1 });
    expect((await reader.post(list(HOUSE), { id, shift: 'Night', content: 'Mine' })).status).toBe(409);
  });
});

describe('opening, reading, correcting and addenda', () => {
  it('audits every opening of a note and of its reads, and the create, without the words', async () => {
    const note = await write('Private words');
    expect((await reader.get(`/api/handovers/${note.id}`)).status).toBe(200);
    expect((await reader.get(`/api/handovers/${note.id}/reads`)).status).toBe(200);
    const entries = await auditFor(note.id);
    expect(entries.map((a) => [a.action, a.actor_id])).toEqual([
      ['handover.created', writerId],
      ['handover.viewed', readerId],
      ['handover.viewed', readerId],
    ]);
    expect(entries.map((a) => a.details ?? '').join()).not.toContain('Private words');
  });

  it('marks a note read once, with the device time bounded, and shows read by n of those on shift', async () => {
    const note = await write();
    const members = note.onShiftCount;
    expect(note).toMatchObject({ readCount: 0, readAt: null });
    const future = Date.now() + 3_600_000;
    const first = await reader.post(`/api/handovers/${note.id}/read`, { writtenAt: future });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ readCount: 1, onShiftCount: members });
    const readAt = first.body.readAt as string;
    expect(Date.parse(readAt)).toBeLessThanOrEqual(Date.now());
    const again = await reader.post(`/api/handovers/${note.id}/read`, { writtenAt: 5 });
    expect(again.body.readAt).toBe(readAt);
    await admin.post(`/api/handovers/${note.id}/read`);
    const reads = (await writer.get(`/api/handovers/${note.id}/reads`)).body as unknown as HandoverReads;
    expect(reads.readCount).toBe(1);
    expect(reads.onShift.find((r) => r.user.id === readerId)?.readAt).toBe(readAt);
    expect(reads.onShift.some((r) => r.user.id === writerId)).toBe(false);
    expect(reads.others.map((r) => r.user.id)).toEqual([adminId]);
    expect((await auditFor(note.id)).filter((a) => a.action === 'handover.read')).toHaveLength(2);
  });

  it('lets the author correct a note in its first hour only, then only addenda', async () => {
    const note = await write('Tea at 4');
    expect((await reader.patch(`/api/handovers/${note.id}`, { content: 'x' })).status).toBe(403);
    const fixed = await writer.patch(`/api/handovers/${note.id}`, { content: 'Tea at 5' });
    expect(fixed.status).toBe(200);
    expect(fixed.body).toMatchObject({ content: 'Tea at 5' });
    expect(fixed.body.correctedAt).not.toBeNull();
    expect((await writer.patch(`/api/handovers/${note.id}`, {})).status).toBe(400);
    t.advance(61 * 60 * 1000);
    await signInAgain();
    const late = await writer.patch(`/api/handovers/${note.id}`, { content: 'Tea at 6' });
    expect(late.status).toBe(409);
    expect(late.body.message).toBe(HANDOVER_MESSAGES.correctionWindow);
    const id = randomUUID();
    const added = await writer.post(`/api/handovers/${note.id}/addenda`, { id, content: 'Tea moved to 6' });
    expect(added.status).toBe(201);
    await writer.post(`/api/handovers/${note.id}/addenda`, { id, content: 'Tea moved to 6' });
    const shown = (await reader.get(`/api/handovers/${note.id}`)).body as unknown as HandoverView;
    expect(shown.content).toBe('Tea at 5');
    expect(shown.addenda.map((a) => [a.id, a.content])).toEqual([[id, 'Tea moved to 6']]);
    expect((await auditFor(note.id)).map((a) => a.action)).toEqual([
      'handover.created',
      'handover.corrected',
      'handover.addendum',
      'handover.viewed',
    ]);
    expect(JSON.parse((await auditFor(note.id))[1].details ?? '{}')).toEqual({ fields: ['content'] });
  });

  it('lets an admin hide a note: kept and marked for admins, gone for staff, audited', async () => {
    const note = await write('Wrong house');
    expect((await reader.post(`/api/handovers/${note.id}/hide`)).status).toBe(403);
    const hidden = await admin.post(`/api/handovers/${note.id}/hide`);
    expect(hidden.status).toBe(200);
    expect(hidden.body.hidden).toBe(true);
    expect((await reader.get(`/api/handovers/${note.id}`)).status).toBe(404);
    const staffIds = ((await reader.get(`${list(HOUSE)}?limit=100`)).body as unknown as HandoverPage).items.map(
      (n) => n.id,
    );
    expect(staffIds).not.toContain(note.id);
    const adminItems = ((await admin.get(`${list(HOUSE)}?limit=100`)).body as unknown as HandoverPage).items;
    expect(adminItems.find((n) => n.id === note.id)?.hidden).toBe(true);
    expect((await auditFor(note.id)).map((a) => a.action)).toContain('handover.hidden');
  });
});

describe('report', () => {
  it('gives admins per house and day the notes and the share read, guarded against formulas', async () => {
    const { user } = await t.signedIn({ firstName: '=HYPERLINK("x")', lastName: 'Sneaky' });
    await t.setHouses(user.id, [OTHER]);
    const day = new Date().toISOString().slice(0, 10);
    expect((await reader.get(`/api/handovers/report.csv?from=${day}&to=${day}`)).status).toBe(403);
    expect((await admin.get(`/api/handovers/report.csv?from=${day}&to=2000-01-01`)).status).toBe(400);
    expect((await admin.get(`/api/handovers/report.csv?from=${day}&to=${day}&house=Nowhere`)).status).toBe(404);
    const res = await admin.get(
      `/api/handovers/report.csv?house=${encodeURIComponent(HOUSE)}&from=2000-01-01&to=2000-12-31`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.text.trim().split('\r\n')).toHaveLength(1);
    const all = await admin.get(`/api/handovers/report.csv?from=2020-01-01&to=2020-12-31`);
    expect(all.text.split('\r\n')[0]).toBe(
      '"House","Day","Notes written","Reads by the next shift","Expected reads","Share read"',
    );
  });

  it('counts the reads of the next shift against those expected, with house names guarded against formulas', async () => {
    // The tenth house carries the organisation's name, the one house name a provider types.
    const t2 = await startTestServer({ TIME_ZONE: 'UTC', ORG_NAME: '=SUM(1+1) Care' });
    try {
      const house = '=SUM(1+1) Care';
      const { client: w, user: wu } = await t2.signedIn();
      const { client: r, user: ru } = await t2.signedIn();
      const { client: o, user: ou } = await t2.signedIn();
      const { client: a } = await t2.signedIn({ role: 'admin' });
      for (const id of [wu.id, ru.id, ou.id]) await t2.setHouses(id, [house]);
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) {
        const res = await w.post(list(house), { shift: 'Day', content: `Note ${i}` });
        expect(res.status).toBe(201);
        ids.push(res.body.id as string);
      }
      await r.post(`/api/handovers/${ids[0]}/read`);
      await r.post(`/api/handovers/${ids[1]}/read`);
      await o.post(`/api/handovers/${ids[0]}/read`);
      await w.post(`/api/handovers/${ids[0]}/read`); // the author's own read is not the next shift's
      const day = new Date().toISOString().slice(0, 10);
      const res = await a.get(`/api/handovers/report.csv?from=${day}&to=${day}`);
      expect(res.status).toBe(200);
      expect(res.text).toBe(
        '"House","Day","Notes written","Reads by the next shift","Expected reads","Share read"\r\n' +
          `"'=SUM(1+1) Care","${day}","2","3","4","75%"\r\n`,
      );
    } finally {
      await t2.close();
    }
  });
});

describe('the report as JSON', () => {
  it('answers the figures of the CSV per house and day, to admins only', async () => {
    const t3 = await startTestServer({ TIME_ZONE: 'UTC' });
    try {
      const { client: w, user: wu } = await t3.signedIn();
      const { client: r, user: ru } = await t3.signedIn();
      const { client: sole, user: su } = await t3.signedIn();
      const { client: a } = await t3.signedIn({ role: 'admin' });
      await t3.setHouses(wu.id, [HOUSE]);
      await t3.setHouses(ru.id, [HOUSE]);
      await t3.setHouses(su.id, ['Tudor Way']);
      const first = await w.post(list(HOUSE), { shift: 'Day', content: 'One' });
      await w.post(list(HOUSE), { shift: 'Night', content: 'Two' });
      await r.post(`/api/handovers/${first.body.id as string}/read`);
      const hidden = await w.post(list(HOUSE), { shift: 'Night', content: 'Wrong house' });
      await a.post(`/api/handovers/${hidden.body.id as string}/hide`);
      // Nobody else works in Tudor Way: no read is expected, so no share.
      await sole.post(list('Tudor Way'), { shift: 'Day', content: 'Nobody else here' });
      const day = new Date().toISOString().slice(0, 10);
      const path = `/api/handovers/report?from=${day}&to=${day}`;

      const res = await a.get(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        from: day,
        to: day,
        house: null,
        rows: expect.arrayContaining([
          { house: HOUSE, day, notes: 2, reads: 1, expected: 2, percent: 50 },
          { house: 'Tudor Way', day, notes: 1, reads: 0, expected: 0, percent: null },
        ]),
      });
      const csv = await a.get(`/api/handovers/report.csv?from=${day}&to=${day}`);
      expect(csv.text).toContain(`"${HOUSE}","${day}","2","1","2","50%"`);
      const one = await a.get(`${path}&house=${encodeURIComponent(HOUSE)}`);
      expect(one.body).toMatchObject({ house: HOUSE, rows: [{ house: HOUSE, notes: 2 }] });

      expect((await w.get(path)).status).toBe(403);
      expect((await w.get(path)).body.message).toBe(HANDOVER_MESSAGES.reportForbidden);
      expect((await a.get(`${path}&house=Nowhere`)).status).toBe(404);
      const backwards = await a.get(`/api/handovers/report?from=${day}&to=2000-01-01`);
      expect(backwards.status).toBe(400);
      expect(backwards.body.details).toEqual([{ path: 'to', message: HANDOVER_MESSAGES.reportRange }]);
      expect((await t3.client().get(path)).status).toBe(401);
    } finally {
      await t3.close();
    }
  });
});

describe('sync', () => {
  const doc = (over: Partial<HandoverDoc> = {}): HandoverDoc => ({
    id: randomUUID(),
    house: HOUSE,
    shift: 'Evening',
    authorId: null,
    content: 'Written offline',
    residentIds: [],
    createdAt: 0,
    writtenAt: Date.now() - 60_000,
    updatedAt: 0,
    correctedAt: null,
    addenda: [],
    reads: [],
    readAt: null,
    hidden: false,
    _deleted: false,
    ...over,
  });
  const push = (
    client: TestClient,
    rows: { newDocumentState: HandoverDoc; assumedMasterState?: HandoverDoc | null }[],
  ) => client.post('/api/sync/handovers/push', rows);

  it('pulls a house notes only for its staff and admins; another house pulls nothing of it', async () => {
    const note = await write('Pulled');
    const ids = async (client: TestClient) =>
      (await pull(client)).documents.filter((d) => !d._deleted).map((d) => d.id);
    expect(await ids(reader)).toContain(note.id);
    expect(await ids(admin)).toContain(note.id);
    expect(await ids(outsider)).not.toContain(note.id);
    expect((await pull(outsider)).documents.map((d) => d.id)).not.toContain(note.id);
  });

  it('creates, marks read and appends addenda through push, each once when a lost answer is retried', async () => {
    const created = doc();
    const rows = [{ newDocumentState: created, assumedMasterState: null }];
    expect((await push(writer, rows)).body).toEqual({ conflicts: [] });
    // The answer was lost: the same rows again.
    const retry = await push(writer, rows);
    expect(retry.status).toBe(200);
    expect(await statement(t.db, 'SELECT count(*) AS n FROM handovers WHERE id = ?').get([created.id])).toEqual({
      n: 1,
    });
    const master = (await pull(reader)).documents.find((d) => d.id === created.id)!; // pushed just above
    expect(master).toMatchObject({ authorId: writerId, content: 'Written offline', shift: 'Evening' });
    const addendum = { id: randomUUID(), authorId: null, content: 'Later: all quiet', createdAt: 0, writtenAt: 0 };
    const readRow = {
      newDocumentState: { ...master, readAt: Date.now(), addenda: [addendum] },
      assumedMasterState: master,
    };
    expect((await push(reader, [readRow])).body).toEqual({ conflicts: [] });
    expect((await push(reader, [readRow])).body).toEqual({ conflicts: [] });
    const after = (await pull(writer)).documents.find((d) => d.id === created.id)!; // it exists
    expect(after.reads.map((r) => r.userId)).toEqual([readerId]);
    expect(after.addenda.map((a) => [a.id, a.authorId, a.content])).toEqual([
      [addendum.id, readerId, 'Later: all quiet'],
    ]);
    expect((await auditFor(created.id)).map((a) => a.action)).toEqual([
      'handover.created',
      'handover.addendum',
      'handover.read',
    ]);
  });

  it('refuses a push about another house note as if it did not exist, applying nothing', async () => {
    const note = await write('Not yours');
    const master = (await pull(reader)).documents.find((d) => d.id === note.id)!; // written above
    const pushed = { ...master, readAt: Date.now() };
    const res = await push(outsider, [{ newDocumentState: pushed, assumedMasterState: master }]);
    // Answered with its own document as a tombstone, never the stored note (docs/sync.md, "Who pulls what").
    expect(res.body.conflicts).toEqual([{ ...pushed, _deleted: true }]);
    const created = await push(outsider, [{ newDocumentState: doc({ house: HOUSE }), assumedMasterState: null }]);
    expect((created.body.conflicts as HandoverDoc[])[0]._deleted).toBe(true);
    expect((await auditFor(note.id)).map((a) => a.action)).toEqual(['handover.created']);
  });

  it('sends staff a tombstone when a note is hidden, and admins the note marked hidden', async () => {
    const note = await write('Hide me');
    const from = (await pull(reader)).checkpoint;
    await admin.post(`/api/handovers/${note.id}/hide`);
    const staffSide = (await pull(reader, from.seq, from.id)).documents.find((d) => d.id === note.id);
    expect(staffSide).toMatchObject({ _deleted: true, content: '', house: '' });
    const adminSide = (await pull(admin)).documents.find((d) => d.id === note.id);
    expect(adminSide).toMatchObject({ _deleted: false, hidden: true, content: 'Hide me' });
  });

  it('sends tombstones of a house notes when the user leaves it, and the notes when they join one', async () => {
    const { client: mover, user } = await t.signedIn({ firstName: 'Mo', lastName: 'Ver' });
    const { client: sysadmin } = await t.signedIn({ role: 'system_admin' });
    const houses = (list: string[]) => sysadmin.put(`/api/admin/users/${user.id}/houses`, { houses: list });
    const note = await write('Before the move');
    expect((await houses([HOUSE])).status).toBe(200);
    const joined = await pull(mover);
    expect(joined.documents.find((d) => d.id === note.id)).toMatchObject({ _deleted: false });
    expect((await houses([OTHER])).status).toBe(200);
    const left = await pull(mover, joined.checkpoint.seq, joined.checkpoint.id);
    expect(left.documents.find((d) => d.id === note.id)).toMatchObject({ _deleted: true, content: '' });
    expect((await mover.get(`/api/handovers/${note.id}`)).status).toBe(404);
  });
});

describe('openings on a device', () => {
  const FIVE_MINUTES = 5 * 60 * 1000;
  const opening = (handoverIds: string[], viewedAt: number, house = HOUSE) => ({
    id: randomUUID(),
    residentId: '',
    house,
    handoverIds,
    viewedAt,
    _deleted: false,
  });
  const pushViews = (client: TestClient, docs: ReturnType<typeof opening>[]) =>
    client.post(
      '/api/sync/residentViews/push',
      docs.map((newDocumentState) => ({ newDocumentState })),
    );
  const viewsOf = async (noteId: string, actorId: string) =>
    (await auditFor(noteId)).filter((a) => a.action === 'handover.viewed' && a.actor_id === actorId);
  const serverNow = () => t.server.deps.now();

  it('audits each note shown once per person in five minutes, by the time it was seen, and hands the opening back as a tombstone', async () => {
    const [a, b] = [await write('First'), await write('Second')];
    const seen = serverNow() - 20 * 60 * 1000;
    const first = opening([a.id, b.id], seen);
    expect((await pushViews(reader, [first])).body).toEqual({ conflicts: [] });
    for (const note of [a, b]) {
      expect((await viewsOf(note.id, readerId)).map((v) => JSON.parse(v.details ?? '{}'))).toEqual([
        { house: HOUSE, viewedAt: new Date(seen).toISOString(), via: 'app' },
      ]);
    }
    // Two minutes later (kept offline, sent later): the same span; six minutes later: a new entry.
    const soon = opening([b.id, a.id], seen + 2 * 60 * 1000);
    const later = opening([a.id], seen + FIVE_MINUTES + 60 * 1000);
    expect((await pushViews(reader, [soon, later])).body).toEqual({ conflicts: [] });
    expect(await viewsOf(a.id, readerId)).toHaveLength(2);
    expect(await viewsOf(b.id, readerId)).toHaveLength(1);
    // A retry of a recorded opening is answered as recorded and audits nothing more.
    expect((await pushViews(reader, [first])).body).toEqual({ conflicts: [{ ...first, _deleted: true }] });
    expect(await viewsOf(a.id, readerId)).toHaveLength(2);

    const mine = (await reader.get('/api/sync/residentViews/pull?seq=0&id='))
      .body as unknown as PullResponse<ResidentViewDoc>;
    expect(mine.documents).toContainEqual({ ...first, _deleted: true });
    const theirs = (await writer.get('/api/sync/residentViews/pull?seq=0&id='))
      .body as unknown as PullResponse<ResidentViewDoc>;
    expect(theirs.documents.some((d) => d.id === first.id)).toBe(false);
  });

  it('counts an opening through REST in the same five minutes', async () => {
    const note = await write('Opened online first');
    expect((await reader.get(`/api/handovers/${note.id}`)).status).toBe(200);
    expect((await pushViews(reader, [opening([note.id], serverNow() - 60 * 1000)])).body).toEqual({ conflicts: [] });
    expect((await viewsOf(note.id, readerId)).map((v) => JSON.parse(v.details ?? '{}').via)).toEqual(['api']);
  });

  it('refuses an opening naming a note the user may not see, alone in its batch', async () => {
    const note = await write('Only for Apps House');
    const now = serverNow();
    const foreign = opening([note.id], now, HOUSE);
    expect((await pushViews(outsider, [foreign])).body).toEqual({ conflicts: [{ ...foreign, _deleted: true }] });
    const unknown = opening([note.id, randomUUID()], now);
    const otherHouse = opening([note.id], now, OTHER);
    const good = opening([note.id], now);
    const res = await pushViews(reader, [unknown, otherHouse, good]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      conflicts: [
        { ...unknown, _deleted: true },
        { ...otherHouse, _deleted: true },
      ],
    });
    expect(await viewsOf(note.id, readerId)).toHaveLength(1);
    expect((await auditFor(note.id)).filter((a) => a.action === 'handover.viewed' && a.actor_id !== readerId)).toEqual(
      [],
    );
    const stored = statement(t.db, 'SELECT id FROM handover_views WHERE id IN (?, ?, ?, ?)');
    expect(await stored.all([foreign.id, unknown.id, otherHouse.id, good.id])).toEqual([{ id: good.id }]);
  });

  it('refuses an opening with no notes or more than a device sends at once', async () => {
    const note = await write();
    const empty = opening([], serverNow());
    const tooMany = opening(
      Array.from({ length: HANDOVER_VIEW_IDS_MAX + 1 }, () => note.id),
      serverNow(),
    );
    const res = await pushViews(reader, [empty, tooMany]);
    expect(res.body.conflicts).toHaveLength(2);
    expect(await viewsOf(note.id, readerId)).toEqual([]);
  });
});

describe('the live stream', () => {
  // Announcing (SYNC_DELIVERY=announce), every stream told would pull: a note is told to its readers only.
  it('tells the streams of the house staff and admins of a new note; another house hears nothing of it', async () => {
    const server = await startTestServer({ SYNC_DELIVERY: 'announce' });
    const member = await server.signedIn();
    const boss = await server.signedIn({ role: 'admin' });
    const stranger = await server.signedIn();
    await server.setHouses(member.user.id, [HOUSE]);
    await server.setHouses(stranger.user.id, [OTHER]);
    const streams = await Promise.all([member, boss, stranger].map((s) => s.client.openStream()));
    try {
      await Promise.all(streams.map((s) => s.next('RESYNC')));
      const res = await member.client.post(list(HOUSE), { shift: 'Night', content: 'Quiet night' });
      expect(res.status).toBe(201);
      for (const stream of streams.slice(0, 2)) {
        const event = await stream.next('change', 1);
        expect(JSON.parse(event.data)).toEqual({ collection: 'handovers' });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(streams[2].events.slice(1)).toEqual([]);
    } finally {
      streams.forEach((s) => s.close());
      await server.close();
    }
  });
});
