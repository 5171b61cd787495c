import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESIDENT_MESSAGES, type ResidentVersionView, type ResidentView } from '../../../schema/residents';
import type { PullResponse, ResidentDoc, ResidentViewDoc } from '../../../schema/sync';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { deleteUserRow } from '../users/users.queries';
import { statement } from '../../db/client';

let t: TestServer;
let staff: TestClient;
let staffUser: { id: string; firstName: string; lastName: string };
let colleague: TestClient;
let colleagueUser: { id: string; firstName: string; lastName: string };
let admin: TestClient;

beforeAll(async () => {
  t = await startTestServer();
  ({ client: staff, user: staffUser } = await t.signedIn({ firstName: 'Sam', lastName: 'Carer' }));
  ({ client: colleague, user: colleagueUser } = await t.signedIn({ firstName: 'Alex', lastName: 'Nurse' }));
  ({ client: admin } = await t.signedIn({ role: 'admin', firstName: 'Ada', lastName: 'Manager' }));
});
afterAll(async () => {
  await t.close();
});

/** The resident form of docs/api-residents.md: text fields, houseTags as a JSON string, an optional photo. */
function residentForm(fields: Record<string, string>, photo?: { name: string; bytes: BlobPart }) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  if (photo) form.append('photo', new File([photo.bytes], photo.name));
  return form;
}

async function createResident(client: TestClient, fields: Record<string, string> = {}) {
  const res = await client.postForm('/api/residents', residentForm({ name: 'Margaret Hale', ...fields }));
  expect(res.status).toBe(201);
  return res.body as unknown as ResidentView;
}

/** A phone photo with camera and GPS metadata. */
function phonePhoto() {
  return sharp({ create: { width: 30, height: 20, channels: 3, background: '#446688' } })
    .withExif({ IFD0: { Make: 'PhoneCo', Model: 'Snapper 9' }, IFD3: { GPSLatitudeRef: 'N' } })
    .jpeg()
    .toBuffer();
}

type AuditRow = { action: string; actor_id: string; target_type: string; target_id: string; details: string | null };
const auditFor = async (residentId: string) =>
  (await statement(
    t.db,
    'SELECT action, actor_id, target_type, target_id, details FROM audit_log WHERE target_id = ? ORDER BY id',
  ).all([residentId])) as AuditRow[];

const photoFiles = () => {
  const dir = path.join(t.dataDir, 'resident-photos');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

describe('residents calls', () => {
  it('answer 401 to a signed-out visitor, every one of them', async () => {
    const { id } = await createResident(staff);
    const visitor = t.client();
    const calls: [string, string][] = [
      ['GET', '/api/residents'],
      ['POST', '/api/residents'],
      ['GET', `/api/residents/${id}`],
      ['PUT', `/api/residents/${id}`],
      ['POST', `/api/residents/${id}/archive`],
      ['GET', `/api/residents/${id}/history`],
      ['GET', '/api/residents/photos/0123456789abcdef0123456789abcdef.jpg'],
      ['GET', '/api/sync/residents/pull'],
    ];
    for (const [method, url] of calls) {
      const res = await visitor.request(method, url, method === 'GET' ? undefined : {});
      expect(res.status, `${method} ${url}`).toBe(401);
    }
  });

  it('let a staff member add a resident with houses as a JSON string, and list it with who added it', async () => {
    const res = await staff.postForm(
      '/api/residents',
      residentForm({
        name: '  Joan Smith ',
        likeToBeCall: 'Joanie',
        dateOfBirth: '1941-03-09',
        medication: 'Paracetamol 500mg at breakfast',
        interestsHappyPlace: 'The garden',
        houseTags: JSON.stringify(['Giles House', 'Test Care Ltd']),
      }),
    );
    expect(res.status).toBe(201);
    const created = res.body as unknown as ResidentView;
    expect(created).toMatchObject({
      name: 'Joan Smith',
      likeToBeCall: 'Joanie',
      dateOfBirth: '1941-03-09',
      photoUrl: null,
      medication: 'Paracetamol 500mg at breakfast',
      communicationPreferences: '',
      houseTags: ['Giles House', 'Test Care Ltd'],
      createdByUser: { id: staffUser.id, firstName: 'Sam', lastName: 'Carer' },
    });
    const list = (await colleague.get('/api/residents')).body as unknown as ResidentView[];
    expect(list.find((r) => r.id === created.id)).toEqual(created);
  });

  it('refuse a form without a Full Name, with the reason and no internals', async () => {
    const res = await staff.postForm('/api/residents', residentForm({ likeToBeCall: 'Bob' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'validation_failed',
      message: RESIDENT_MESSAGES.nameRequired,
      details: [{ path: 'name', message: RESIDENT_MESSAGES.nameRequired }],
    });
    const blank = await staff.postForm('/api/residents', residentForm({ name: '   ' }));
    expect(blank.body.message).toBe(RESIDENT_MESSAGES.nameRequired);
  });

  it.each([
    [{ houseTags: '[not json' }, RESIDENT_MESSAGES.houseTagsJson],
    [{ houseTags: '"Giles House"' }, RESIDENT_MESSAGES.houseTagsJson],
    [{ houseTags: '["Nowhere Manor"]' }, 'Unknown house: Nowhere Manor'],
    [{ dateOfBirth: '09/03/1941' }, RESIDENT_MESSAGES.invalidDate],
    [{ dateOfBirth: '1941-02-30' }, RESIDENT_MESSAGES.invalidDate],
    [{ dateOfBirth: '2999-01-01' }, RESIDENT_MESSAGES.futureDate],
    [{ medication: 'x'.repeat(5001) }, RESIDENT_MESSAGES.textTooLong('Medication')],
  ])('refuse %o with a clear 400', async (fields, message) => {
    const res = await staff.postForm('/api/residents', residentForm({ name: 'Someone', ...fields }));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
    expect(res.text).not.toMatch(/at .*\.ts/);
  });

  it('re-encode a photo without its metadata and serve it to signed-in staff only, never to the HTTP cache', async () => {
    const original = await phonePhoto();
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const res = await staff.postForm(
      '/api/residents',
      residentForm({ name: 'Photo Person' }, { name: 'me.jpg', bytes: original }),
    );
    expect(res.status).toBe(201);
    const { photoUrl } = res.body as unknown as ResidentView;
    expect(photoUrl).toMatch(/^\/api\/residents\/photos\/[0-9a-f]{32}\.jpg$/);
    const served = await colleague.download(photoUrl!);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toBe('private, no-store');
    const meta = await sharp(served.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.width).toBe(30);
    expect(served.bytes.includes(Buffer.from('Snapper'))).toBe(false);
    expect((await t.client().download(photoUrl!)).status).toBe(401);
    expect((await staff.download('/api/residents/photos/..%2F..%2Fapp.db')).status).toBe(404);
  });

  it.each([
    ['a PDF', 'care-plan.pdf', Buffer.from('%PDF-1.4\n%\u00e2\u00e3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF')],
    ['a text file named as a picture', 'photo.png', Buffer.from('<html><script>alert(1)</script></html>')],
  ])('refuse %s as a photo and store nothing', async (_what, name, bytes) => {
    const before = photoFiles().length;
    const res = await staff.postForm('/api/residents', residentForm({ name: 'No Photo' }, { name, bytes }));
    expect(res.status).toBe(415);
    expect(res.body.message).toBe(RESIDENT_MESSAGES.photoNotImage);
    expect(photoFiles().length).toBe(before);
  });

  it('let a colleague edit: fields sent change, fields left out stay, and the history says who changed what', async () => {
    const created = await createResident(staff, { medication: 'None', likeToBeCall: 'Maggie' });
    const res = await colleague.sendForm(
      'PUT',
      `/api/residents/${created.id}`,
      residentForm({ medication: 'Aspirin 75mg', houseTags: '["Apps House"]' }),
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ medication: 'Aspirin 75mg', likeToBeCall: 'Maggie', houseTags: ['Apps House'] });

    const history = (await staff.get(`/api/residents/${created.id}/history`)).body as unknown as ResidentVersionView[];
    expect(history.map((v) => [v.version, v.action])).toEqual([
      [2, 'update'],
      [1, 'create'],
    ]);
    expect(history[0].changedBy).toEqual({ id: colleagueUser.id, firstName: 'Alex', lastName: 'Nurse' });
    expect(history[0].changes).toEqual([
      { field: 'medication', from: 'None', to: 'Aspirin 75mg' },
      { field: 'houseTags', from: [], to: ['Apps House'] },
    ]);
    expect(history[1].changedBy.id).toBe(staffUser.id);
    expect(history[1].changes.map((c) => c.field)).toEqual(['name', 'likeToBeCall', 'medication']);
    const previous = (await statement(
      t.db,
      'SELECT previous FROM resident_versions WHERE resident_id = ? AND version = 2',
    ).get([created.id])) as { previous: string };
    expect(JSON.parse(previous.previous)).toMatchObject({ medication: 'None', houseTags: [] });
  });

  it('keep the history append-only, yet let an editor’s account be deleted (the version forgets who)', async () => {
    const editor = await t.signedIn({ firstName: 'Leaving', lastName: 'Soon' });
    const created = await createResident(staff);
    const edit = await editor.client.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ medication: 'X' }));
    expect(edit.status).toBe(200);
    // The triggers refuse on either engine (PostgreSQL's in its migration 0001).
    const change = statement(t.db, "UPDATE resident_versions SET changes = '[]' WHERE resident_id = ?");
    await expect(change.run([created.id])).rejects.toThrow(/append-only/);
    const remove = statement(t.db, 'DELETE FROM resident_versions WHERE resident_id = ?');
    await expect(remove.run([created.id])).rejects.toThrow(/append-only/);
    await deleteUserRow(t.db, editor.user.id);
    const history = (await staff.get(`/api/residents/${created.id}/history`)).body as unknown as ResidentVersionView[];
    expect(history).toHaveLength(2);
    expect(history[0].changes).toEqual([{ field: 'medication', from: '', to: 'X' }]);
  });

  it('record no version for an edit that changes nothing, and clear a field sent empty', async () => {
    const created = await createResident(staff, { medication: 'None' });
    await staff.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ name: 'Margaret Hale' }));
    expect(((await staff.get(`/api/residents/${created.id}/history`)).body as unknown as unknown[]).length).toBe(1);
    const res = await staff.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ medication: '' }));
    expect(res.body.medication).toBe('');
  });

  it('replace a photo on edit, keep the old file for the history, and remove it on request', async () => {
    const created = await createResident(staff);
    const first = await staff.sendForm(
      'PUT',
      `/api/residents/${created.id}`,
      residentForm(
        {},
        {
          name: 'a.png',
          bytes: await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
            .png()
            .toBuffer(),
        },
      ),
    );
    const firstUrl = first.body.photoUrl as string;
    expect(firstUrl).toMatch(/\.png$/);
    const second = await staff.sendForm(
      'PUT',
      `/api/residents/${created.id}`,
      residentForm({}, { name: 'b.jpg', bytes: await phonePhoto() }),
    );
    expect(second.body.photoUrl).not.toBe(firstUrl);
    expect((await staff.download(firstUrl)).status).toBe(200);
    const removed = await staff.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ removePhoto: 'true' }));
    expect(removed.body.photoUrl).toBeNull();
  });

  it('store a photo sent again with the same key once, even when both arrive at once (decision 123)', async () => {
    const created = await createResident(staff);
    const photoKey = randomUUID();
    const send = async () =>
      staff.sendForm(
        'PUT',
        `/api/residents/${created.id}`,
        residentForm({ photoKey, baseUpdatedAt: created.updatedAt }, { name: 'p.jpg', bytes: await phonePhoto() }),
      );
    const filesBefore = photoFiles().length;
    const [first, second] = await Promise.all([send(), send()]);
    const third = await send();
    for (const res of [first, second, third]) expect(res.status).toBe(200);
    const photoUrl = first.body.photoUrl as string;
    expect(photoUrl).toMatch(/\.jpg$/);
    expect([second.body.photoUrl, third.body.photoUrl]).toEqual([photoUrl, photoUrl]);
    const versions = (await staff.get(`/api/residents/${created.id}/history`)).body as unknown as unknown[];
    expect(versions).toHaveLength(2);
    expect((await auditFor(created.id)).filter((row) => row.action === 'resident.update')).toHaveLength(1);
    expect(photoFiles().length).toBe(filesBefore + 1);
    // Another photo with another key is a new version; a key that is not a UUID is refused.
    const other = await staff.sendForm(
      'PUT',
      `/api/residents/${created.id}`,
      residentForm({ photoKey: randomUUID() }, { name: 'q.jpg', bytes: await phonePhoto() }),
    );
    expect(other.body.photoUrl).not.toBe(photoUrl);
    const bad = await staff.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ photoKey: 'again' }));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('photoKey must be a UUID');
  });

  it("serve no one an archived resident's photos, current or replaced, nor a photo no profile refers to", async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123' } })
      .png()
      .toBuffer();
    const created = await staff.postForm(
      '/api/residents',
      residentForm({ name: 'Archived Person' }, { name: 'old.png', bytes: png }),
    );
    const oldUrl = created.body.photoUrl as string;
    const id = created.body.id as string;
    const edited = await staff.sendForm(
      'PUT',
      `/api/residents/${id}`,
      residentForm({}, { name: 'new.jpg', bytes: await phonePhoto() }),
    );
    const newUrl = edited.body.photoUrl as string;
    expect((await staff.download(oldUrl)).status).toBe(200);
    expect((await staff.download(newUrl)).status).toBe(200);
    expect((await admin.post(`/api/residents/${id}/archive`)).status).toBe(200);
    for (const url of [oldUrl, newUrl]) {
      expect((await staff.download(url)).status).toBe(404);
      expect((await admin.download(url)).status).toBe(404);
    }
    // The files stay on the server as the record (decision 53).
    expect(photoFiles()).toEqual(expect.arrayContaining([oldUrl, newUrl].map((url) => url.split('/').pop())));
    const stray = 'fedcba9876543210fedcba9876543210.png';
    fs.writeFileSync(path.join(t.dataDir, 'resident-photos', stray), png);
    expect((await staff.download(`/api/residents/photos/${stray}`)).status).toBe(404);
  });

  it('refuse an edit of an unknown resident and an invalid edit', async () => {
    expect((await staff.sendForm('PUT', '/api/residents/nope', residentForm({ name: 'X' }))).status).toBe(404);
    const created = await createResident(staff);
    const res = await staff.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ name: '' }));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(RESIDENT_MESSAGES.nameRequired);
  });

  it('refuse a staff member who tries to archive (403), and let an administrator archive', async () => {
    const created = await createResident(staff);
    const refused = await staff.post(`/api/residents/${created.id}/archive`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(RESIDENT_MESSAGES.archiveForbidden);
    expect(
      ((await staff.get('/api/residents')).body as unknown as ResidentView[]).some((r) => r.id === created.id),
    ).toBe(true);

    expect((await admin.post(`/api/residents/${created.id}/archive`)).status).toBe(200);
    const list = (await staff.get('/api/residents')).body as unknown as ResidentView[];
    expect(list.some((r) => r.id === created.id)).toBe(false);
    expect((await admin.post(`/api/residents/${created.id}/archive`)).status).toBe(409);
    expect((await staff.get(`/api/residents/${created.id}`)).status).toBe(404);
    expect((await staff.get(`/api/residents/${created.id}/history`)).status).toBe(404);
    expect((await staff.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ name: 'Back' }))).status).toBe(
      404,
    );
    expect((await admin.post('/api/residents/unknown/archive')).status).toBe(404);
  });

  it('let a System Administrator archive too', async () => {
    const { client: sysadmin } = await t.signedIn({ role: 'system_admin' });
    const created = await createResident(staff);
    expect((await sysadmin.post(`/api/residents/${created.id}/archive`)).status).toBe(200);
  });

  it('refuse deactivated and pending accounts', async () => {
    const { client, user } = await t.signedIn();
    expect((await client.get('/api/residents')).status).toBe(200);
    await statement(t.db, 'UPDATE users SET is_active = FALSE WHERE id = ?').run([user.id]);
    expect((await client.get('/api/residents')).status).toBe(401);
    expect((await client.postForm('/api/residents', residentForm({ name: 'X' }))).status).toBe(401);

    const pending = await t.buildUser({ isActive: false, pendingApproval: true });
    const pendingClient = t.client();
    const signIn = await pendingClient.post('/api/auth/login', { email: pending.email, password: 'Str0ng!Passw0rd' });
    expect(signIn.status).toBe(403);
    expect((await pendingClient.get('/api/residents')).status).toBe(401);
  });

  it('write every change and every opening of a full profile to the audit log, without the health data', async () => {
    const created = await createResident(staff, { medication: 'Secret dose' });
    await colleague.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ medication: 'Other dose' }));
    expect((await colleague.get(`/api/residents/${created.id}`)).status).toBe(200);
    await admin.post(`/api/residents/${created.id}/archive`);
    const rows = await auditFor(created.id);
    expect(rows.map((r) => [r.action, r.actor_id, r.target_type])).toEqual([
      ['resident.create', staffUser.id, 'resident'],
      ['resident.update', colleagueUser.id, 'resident'],
      ['resident.view', colleagueUser.id, 'resident'],
      ['resident.archive', expect.any(String), 'resident'],
    ]);
    expect(JSON.parse(rows[1].details!)).toEqual({ fields: ['medication'] });
    expect(rows.map((r) => r.details ?? '').join()).not.toMatch(/dose/);
  });
});

describe('residents sync', () => {
  async function pull<T>(client: TestClient, collection: string, seq = 0, id = '') {
    const res = await client.get(`/api/sync/${collection}/pull?seq=${seq}&id=${encodeURIComponent(id)}`);
    expect(res.status).toBe(200);
    return res.body as unknown as PullResponse<T>;
  }

  it('pulls active residents and sends an archived one as a tombstone without content', async () => {
    const first = await pull<ResidentDoc>(colleague, 'residents');
    const kept = await createResident(staff, { medication: 'Kept dose', houseTags: '["Giles House"]' });
    const gone = await createResident(staff, { medication: 'Gone dose' });
    await admin.post(`/api/residents/${gone.id}/archive`);
    const page = await pull<ResidentDoc>(colleague, 'residents', first.checkpoint.seq, first.checkpoint.id);
    const byId = new Map(page.documents.map((d) => [d.id, d]));
    expect(byId.get(kept.id)).toMatchObject({
      name: 'Margaret Hale',
      medication: 'Kept dose',
      houseTags: ['Giles House'],
      createdBy: staffUser.id,
      _deleted: false,
    });
    expect(byId.get(gone.id)).toMatchObject({
      _deleted: true,
      name: '',
      medication: '',
      photoUrl: null,
      createdBy: null,
    });
  });

  it('refuses a resident created or archived through a push: both are done online from the Residents page', async () => {
    const created = await createResident(staff);
    const [doc] = (await pull<ResidentDoc>(staff, 'residents')).documents.filter((d) => d.id === created.id);
    const fresh = { ...doc, id: randomUUID(), name: 'Pushed Person' };
    const add = await staff.post('/api/sync/residents/push', [{ newDocumentState: fresh, assumedMasterState: null }]);
    expect(add.body).toEqual({ conflicts: [{ ...fresh, _deleted: true }] });
    const archive = await staff.post('/api/sync/residents/push', [
      { newDocumentState: { ...doc, _deleted: true }, assumedMasterState: doc },
    ]);
    expect(archive.body).toEqual({ conflicts: [doc] });
    expect(await statement(t.db, 'SELECT count(*) AS n FROM residents WHERE name = ?').get(['Pushed Person'])).toEqual({
      n: 0,
    });
    expect((await staff.get(`/api/residents/${created.id}/history`)).body).toHaveLength(1);
  });

  it('records a profile opened on a device once, in the audit log with the server time, and hands it back as a tombstone', async () => {
    const resident = await createResident(staff);
    const view = { id: randomUUID(), residentId: resident.id, viewedAt: Date.now() - 3_600_000 };
    const push = () =>
      colleague.post('/api/sync/residentViews/push', [{ newDocumentState: { ...view, _deleted: false } }]);
    expect((await push()).body).toEqual({ conflicts: [] });
    const again = await push();
    expect(again.body).toEqual({ conflicts: [{ ...view, _deleted: true }] });
    const views = (await auditFor(resident.id)).filter((r) => r.action === 'resident.view');
    expect(views).toHaveLength(1);
    expect(views[0].actor_id).toBe(colleagueUser.id);
    expect(JSON.parse(views[0].details!)).toEqual({ viewedAt: new Date(view.viewedAt).toISOString(), via: 'app' });

    const mine = await pull<ResidentViewDoc>(colleague, 'residentViews');
    expect(mine.documents).toContainEqual({ ...view, _deleted: true });
    const theirs = await pull<ResidentViewDoc>(staff, 'residentViews');
    expect(theirs.documents.some((d) => d.id === view.id)).toBe(false);
  });

  it('still records an offline view of a resident archived meanwhile, and refuses one of an unknown resident', async () => {
    const resident = await createResident(staff);
    await admin.post(`/api/residents/${resident.id}/archive`);
    const late = { id: randomUUID(), residentId: resident.id, viewedAt: Date.now() };
    expect((await colleague.post('/api/sync/residentViews/push', [{ newDocumentState: late }])).body).toEqual({
      conflicts: [],
    });
    expect((await auditFor(resident.id)).some((r) => r.action === 'resident.view')).toBe(true);

    const unknown = { id: randomUUID(), residentId: 'no-such-resident', viewedAt: Date.now() };
    const res = await colleague.post('/api/sync/residentViews/push', [{ newDocumentState: unknown }]);
    expect(res.body).toEqual({ conflicts: [{ ...unknown, _deleted: true }] });
    const bad = { id: 'not-a-uuid', residentId: resident.id, viewedAt: -1 };
    expect(
      (await colleague.post('/api/sync/residentViews/push', [{ newDocumentState: bad }])).body.conflicts,
    ).toHaveLength(1);
  });

  it('refuses a view whose time no date can hold, and records the rest of its batch', async () => {
    const resident = await createResident(staff);
    const bad = { id: randomUUID(), residentId: resident.id, viewedAt: Number.MAX_SAFE_INTEGER, _deleted: false };
    const good = { id: randomUUID(), residentId: resident.id, viewedAt: Date.now(), _deleted: false };
    const res = await colleague.post('/api/sync/residentViews/push', [
      { newDocumentState: bad },
      { newDocumentState: good },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ conflicts: [{ ...bad, _deleted: true }] });
    const views = (await auditFor(resident.id)).filter((r) => r.action === 'resident.view');
    expect(views.map((r) => JSON.parse(r.details!).viewedAt)).toEqual([new Date(good.viewedAt).toISOString()]);
  });

  it('tells open streams when a resident changes', async () => {
    const stream = await colleague.openStream();
    await stream.next('RESYNC');
    const seen = stream.events.length;
    const created = await createResident(staff);
    expect(await stream.change('residents', seen)).toMatchObject({ documents: [{ id: created.id }] });
    stream.close();
  });
});

describe('resident edits from devices, merged field by field (decision 120)', () => {
  const device = (id: string) => ({ 'x-sync-device': id });

  /** The resident as a device pulled it. */
  async function pulledDoc(client: TestClient, id: string): Promise<ResidentDoc> {
    const page = (await client.get('/api/sync/residents/pull?limit=1000')).body as unknown as PullResponse<ResidentDoc>;
    return page.documents.find((d) => d.id === id)!;
  }

  const push = (client: TestClient, rows: unknown[], deviceId = 'device-one') =>
    client.request('POST', '/api/sync/residents/push', rows, device(deviceId));

  const history = async (id: string) =>
    (await staff.get(`/api/residents/${id}/history`)).body as unknown as ResidentVersionView[];

  it('keeps both edits of different fields, each as its own version under its author, and tells the later writer', async () => {
    const created = await createResident(staff, { interestsHappyPlace: 'Gardens', medication: 'None' });
    const seen = await pulledDoc(staff, created.id);
    // A colleague changes Interests first (another device, online)...
    const theirs = await push(colleague, [
      { newDocumentState: { ...seen, interestsHappyPlace: 'Gardens and birds' }, assumedMasterState: seen },
    ]);
    expect(theirs.body).toEqual({ conflicts: [] });
    // ...then this device's offline edit of Medication arrives, made from the version before.
    const mine = await push(staff, [
      { newDocumentState: { ...seen, medication: 'Paracetamol' }, assumedMasterState: seen },
    ]);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({
      conflicts: [],
      merges: { [created.id]: { mine: ['medication'], theirs: ['interestsHappyPlace'], both: [] } },
    });
    expect(await pulledDoc(colleague, created.id)).toMatchObject({
      interestsHappyPlace: 'Gardens and birds',
      medication: 'Paracetamol',
    });
    const versions = await history(created.id);
    expect(versions.map((v) => [v.version, v.action, v.changedBy.id, v.changes])).toEqual([
      [3, 'update', staffUser.id, [{ field: 'medication', from: 'None', to: 'Paracetamol' }]],
      [2, 'update', colleagueUser.id, [{ field: 'interestsHappyPlace', from: 'Gardens', to: 'Gardens and birds' }]],
      [1, 'create', staffUser.id, expect.any(Array)],
    ]);
    const updates = (await auditFor(created.id)).filter((r) => r.action === 'resident.update');
    expect(updates.map((r) => [r.actor_id, JSON.parse(r.details!)])).toEqual([
      [colleagueUser.id, { fields: ['interestsHappyPlace'] }],
      [staffUser.id, { fields: ['medication'], mergedWith: ['interestsHappyPlace'] }],
    ]);
    expect(updates.map((r) => r.details).join()).not.toMatch(/Paracetamol|birds/);
  });

  it('gives a field both writers changed to the later one, says so, and keeps the earlier value in the history', async () => {
    const created = await createResident(staff, { communicationPreferences: 'Speak slowly' });
    const seen = await pulledDoc(staff, created.id);
    await push(colleague, [
      { newDocumentState: { ...seen, communicationPreferences: 'Uses a picture board' }, assumedMasterState: seen },
    ]);
    const later = await push(staff, [
      {
        newDocumentState: { ...seen, communicationPreferences: 'Speak slowly, face to face', likeToBeCall: 'Maggie' },
        assumedMasterState: seen,
      },
    ]);
    expect(later.body).toMatchObject({
      merges: {
        [created.id]: {
          mine: ['likeToBeCall', 'communicationPreferences'],
          theirs: ['communicationPreferences'],
          both: ['communicationPreferences'],
        },
      },
    });
    expect(await pulledDoc(staff, created.id)).toMatchObject({
      communicationPreferences: 'Speak slowly, face to face',
      likeToBeCall: 'Maggie',
    });
    const [newest, earlier] = await history(created.id);
    expect(newest.changes).toContainEqual({
      field: 'communicationPreferences',
      from: 'Uses a picture board',
      to: 'Speak slowly, face to face',
    });
    expect(earlier.changedBy.id).toBe(colleagueUser.id);
  });

  it('stores an edit once when its answer was lost and it is pushed again, and keeps a change made back since', async () => {
    const created = await createResident(staff, { medication: 'None' });
    const seen = await pulledDoc(staff, created.id);
    const row = { newDocumentState: { ...seen, medication: 'Ibuprofen' }, assumedMasterState: seen };
    expect((await push(staff, [row], 'device-lost')).body).toEqual({ conflicts: [] });
    expect((await push(staff, [row], 'device-lost')).body).toEqual({ conflicts: [] });
    expect(await history(created.id)).toHaveLength(2);
    // The user then changed it back before hearing the answer: RxDB still assumes the first state.
    const back = { newDocumentState: { ...seen, medication: 'None' }, assumedMasterState: seen };
    expect((await push(staff, [back], 'device-lost')).body).toEqual({ conflicts: [] });
    expect(await pulledDoc(staff, created.id)).toMatchObject({ medication: 'None' });
    expect(await history(created.id)).toHaveLength(3);
  });

  it('ignores the photo and server-owned fields in a push, and refuses invalid fields with the stored version', async () => {
    const created = await createResident(staff);
    const seen = await pulledDoc(staff, created.id);
    const sneaky = {
      ...seen,
      photoUrl: '/api/residents/photos/0123456789abcdef0123456789abcdef.jpg',
      createdBy: colleagueUser.id,
      createdAt: 1,
      medication: 'Checked',
    };
    expect((await push(colleague, [{ newDocumentState: sneaky, assumedMasterState: seen }])).body).toEqual({
      conflicts: [],
    });
    const stored = await pulledDoc(staff, created.id);
    expect(stored).toMatchObject({
      photoUrl: null,
      createdBy: staffUser.id,
      createdAt: seen.createdAt,
      medication: 'Checked',
    });
    const invalid = await push(colleague, [
      { newDocumentState: { ...stored, name: '   ', houseTags: ['Nowhere House'] }, assumedMasterState: stored },
    ]);
    expect(invalid.body).toEqual({ conflicts: [stored] });
    const unknownHouse = await push(colleague, [
      { newDocumentState: { ...stored, houseTags: ['Nowhere House'] }, assumedMasterState: stored },
    ]);
    expect(unknownHouse.body).toEqual({ conflicts: [stored] });
    expect(await history(created.id)).toHaveLength(2);
  });

  it('refuses an edit of an archived resident (the device gets the tombstone) and a signed-out or deactivated pusher', async () => {
    const created = await createResident(staff, { medication: 'Kept' });
    const seen = await pulledDoc(staff, created.id);
    await admin.post(`/api/residents/${created.id}/archive`);
    const late = await push(staff, [{ newDocumentState: { ...seen, medication: 'Late' }, assumedMasterState: seen }]);
    expect(late.body).toEqual({
      conflicts: [expect.objectContaining({ id: created.id, _deleted: true, medication: '' })],
    });

    const other = await createResident(staff, { medication: 'Stays' });
    const otherDoc = await pulledDoc(staff, other.id);
    const row = { newDocumentState: { ...otherDoc, medication: 'Changed' }, assumedMasterState: otherDoc };
    expect((await push(t.client(), [row])).status).toBe(401);
    const { client: leaving, user } = await t.signedIn();
    await statement(t.db, 'UPDATE users SET is_active = FALSE WHERE id = ?').run([user.id]);
    expect((await push(leaving, [row])).status).toBe(401);
    expect(await pulledDoc(staff, other.id)).toMatchObject({ medication: 'Stays' });
    expect((await auditFor(other.id)).filter((r) => r.action === 'resident.update')).toEqual([]);
  });

  it('tells every open stream when a pushed edit changes a resident', async () => {
    const created = await createResident(staff);
    const seen = await pulledDoc(staff, created.id);
    const stream = await colleague.openStream();
    await stream.next('RESYNC');
    const before = stream.events.length;
    await push(staff, [{ newDocumentState: { ...seen, medication: 'Streamed' }, assumedMasterState: seen }]);
    expect(await stream.change('residents', before)).toMatchObject({
      documents: [{ id: created.id, medication: 'Streamed' }],
    });
    stream.close();
  });

  it('merges a REST edit made from an older version the same way, and answers what someone else changed', async () => {
    const created = await createResident(staff, { interestsHappyPlace: 'Music', medication: 'None' });
    const openedAt = created.updatedAt;
    await colleague.sendForm('PUT', `/api/residents/${created.id}`, residentForm({ interestsHappyPlace: 'Jazz' }));
    // The whole form, as the dialog opened at the first version holds it, with one field changed.
    const form = residentForm({
      name: 'Margaret Hale',
      interestsHappyPlace: 'Music',
      medication: 'Aspirin',
      baseUpdatedAt: openedAt,
    });
    const res = await staff.sendForm('PUT', `/api/residents/${created.id}`, form);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      interestsHappyPlace: 'Jazz',
      medication: 'Aspirin',
      merge: { mine: ['medication'], theirs: ['interestsHappyPlace'], both: [] },
    });
    expect(await history(created.id)).toHaveLength(3);

    const bad = await staff.sendForm(
      'PUT',
      `/api/residents/${created.id}`,
      residentForm({ baseUpdatedAt: 'yesterday' }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed' });
    const tooEarly = residentForm({ medication: 'X', baseUpdatedAt: new Date(0).toISOString() });
    expect((await staff.sendForm('PUT', `/api/residents/${created.id}`, tooEarly)).status).toBe(400);
  });
});

describe('openings of a profile in the audit log: same-origin only, once in five minutes (decision 130)', () => {
  const FIVE_MINUTES = 5 * 60 * 1000;
  const sameOrigin = { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' };
  const open = (client: TestClient, id: string, headers: Record<string, string> = sameOrigin) =>
    client.request('GET', `/api/residents/${id}`, undefined, headers);
  const viewsOf = async (userId: string, residentId: string) =>
    (await auditFor(residentId)).filter((r) => r.action === 'resident.view' && r.actor_id === userId);
  const pushViews = (client: TestClient, residentId: string, viewedAts: number[]) => {
    const docs = viewedAts.map((viewedAt) => ({ id: randomUUID(), residentId, viewedAt, _deleted: false }));
    return client
      .post(
        '/api/sync/residentViews/push',
        docs.map((doc) => ({ newDocumentState: doc })),
      )
      .then((res) => ({ res, docs }));
  };
  const serverNow = () => t.server.deps.now();

  it('refuses a read a browser makes for another site (a link, an image), and writes nothing', async () => {
    const { client, user } = await t.signedIn({ firstName: 'Cross', lastName: 'Site' });
    const resident = await createResident(staff);
    const foreign: Record<string, string>[] = [
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
      { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
      { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate' },
      { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'cors' },
    ];
    for (const headers of foreign) {
      const res = await open(client, resident.id, headers);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ code: 'forbidden', message: 'Cross-site requests are not allowed' });
    }
    expect(await viewsOf(user.id, resident.id)).toEqual([]);
  });

  it('writes one entry for a same-origin read, a navigation the user made, and a client that is not a browser', async () => {
    const { client, user } = await t.signedIn({ firstName: 'Same', lastName: 'Origin' });
    for (const headers of [sameOrigin, { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' }, {}]) {
      const resident = await createResident(staff);
      const res = await open(client, resident.id, headers);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: resident.id, name: 'Margaret Hale' });
      const views = await viewsOf(user.id, resident.id);
      expect(views).toHaveLength(1);
      expect(JSON.parse(views[0].details!)).toEqual({ viewedAt: expect.any(String), via: 'api' });
    }
  });

  it('writes one entry for fifty reads in a row, its own for another person or resident, and a new one after five minutes', async () => {
    const [{ client: one, user: oneUser }, { client: two, user: twoUser }] = [
      await t.signedIn({ firstName: 'Fifty', lastName: 'Reads' }),
      await t.signedIn({ firstName: 'Other', lastName: 'Person' }),
    ];
    const first = await createResident(staff);
    const second = await createResident(staff);
    for (let i = 0; i < 50; i++) expect((await open(one, first.id)).status).toBe(200);
    expect(await viewsOf(oneUser.id, first.id)).toHaveLength(1);
    expect((await open(two, first.id)).status).toBe(200);
    expect((await open(one, second.id)).status).toBe(200);
    expect(await viewsOf(twoUser.id, first.id)).toHaveLength(1);
    expect(await viewsOf(oneUser.id, second.id)).toHaveLength(1);

    t.advance(FIVE_MINUTES - 10_000);
    expect((await open(one, first.id)).status).toBe(200);
    expect(await viewsOf(oneUser.id, first.id)).toHaveLength(1);
    t.advance(10_000);
    expect((await open(one, first.id)).status).toBe(200);
    expect(await viewsOf(oneUser.id, first.id)).toHaveLength(2);
  });

  it('accepts fifty views pushed from a device, audits one, and hands every one back so the device forgets it', async () => {
    const { client, user } = await t.signedIn({ firstName: 'Fifty', lastName: 'Pushes' });
    const { client: other, user: otherUser } = await t.signedIn({ firstName: 'Another', lastName: 'Pusher' });
    const resident = await createResident(staff);
    const other1 = await createResident(staff);
    const now = serverNow();
    const { res, docs } = await pushViews(
      client,
      resident.id,
      Array.from({ length: 50 }, (_, i) => now - 50 + i),
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ conflicts: [] });
    // One at a time too, as a device pushes each opening when it happens.
    for (let i = 0; i < 5; i++)
      expect((await pushViews(client, resident.id, [serverNow()])).res.body).toEqual({ conflicts: [] });
    expect(await viewsOf(user.id, resident.id)).toHaveLength(1);
    const stored = statement(t.db, 'SELECT count(*) AS n FROM resident_views WHERE user_id = ? AND resident_id = ?');
    expect(await stored.get([user.id, resident.id])).toEqual({ n: 55 });
    const pulled = await client.get('/api/sync/residentViews/pull?seq=0&id=');
    const back = new Set((pulled.body as unknown as PullResponse<ResidentViewDoc>).documents.map((d) => d.id));
    expect(docs.every((doc) => back.has(doc.id))).toBe(true);
    // A view pushed again (its answer lost) is still answered as recorded, and still writes nothing.
    const again = await client.post('/api/sync/residentViews/push', [{ newDocumentState: docs[0] }]);
    expect(again.body).toEqual({ conflicts: [{ ...docs[0], _deleted: true }] });

    await pushViews(other, resident.id, [serverNow()]);
    await pushViews(client, other1.id, [serverNow()]);
    expect(await viewsOf(otherUser.id, resident.id)).toHaveLength(1);
    expect(await viewsOf(user.id, other1.id)).toHaveLength(1);

    t.advance(FIVE_MINUTES);
    await pushViews(client, resident.id, [serverNow()]);
    expect(await viewsOf(user.id, resident.id)).toHaveLength(2);
  });

  it('compares a pushed view by when it was seen: an opening kept offline for hours is its own entry', async () => {
    const { client, user } = await t.signedIn({ firstName: 'Night', lastName: 'Shift' });
    const resident = await createResident(staff);
    expect((await open(client, resident.id)).status).toBe(200);
    const hoursAgo = serverNow() - 3 * 60 * 60 * 1000;
    // Seen offline three hours ago, twice within a minute, and pushed now: one entry, at its own time.
    await pushViews(client, resident.id, [hoursAgo, hoursAgo + 60_000]);
    // Seen a minute ago on the phone, just after the read above: the same opening, not written again.
    await pushViews(client, resident.id, [serverNow() - 60_000]);
    // A phone clock set in the future is held to the arrival, so it cannot step past the five minutes.
    await pushViews(client, resident.id, [serverNow() + 60 * 60 * 1000]);
    const views = await viewsOf(user.id, resident.id);
    expect(views.map((r) => JSON.parse(r.details!))).toEqual([
      { viewedAt: expect.any(String), via: 'api' },
      { viewedAt: new Date(hoursAgo).toISOString(), via: 'app' },
    ]);
  });
});
