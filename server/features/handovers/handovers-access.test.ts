import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandoverPage, HandoverReport, HandoverView } from '../../../schema/handovers';
import type { HandoverDoc, PullResponse } from '../../../schema/sync';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';

const HOUSE = 'Apps House';
const OTHER = 'Giles House';
const list = (house: string) => `/api/houses/${encodeURIComponent(house)}/handovers`;
const DAY = 24 * 60 * 60 * 1000;

/** A response's body as the type the API documents: the test client reads JSON without a type. */
const bodyOf = <T>(res: { body: unknown }): T => res.body as T;

let t: TestServer;
let mine: HandoverView;
let theirs: HandoverView;
let hiddenMine: HandoverView;

beforeAll(async () => {
  // Announcing (SYNC_DELIVERY=announce): a stream hears of a note only when its user may pull it.
  t = await startTestServer({ TIME_ZONE: 'UTC', SYNC_DELIVERY: 'announce' });
  const here = await t.signedIn();
  const there = await t.signedIn();
  await t.setHouses(here.user.id, [HOUSE]);
  await t.setHouses(there.user.id, [OTHER]);
  mine = bodyOf<HandoverView>(await here.client.post(list(HOUSE), { shift: 'Day', content: 'Mr B slept well' }));
  theirs = bodyOf<HandoverView>(await there.client.post(list(OTHER), { shift: 'Day', content: 'Ms C had a fall' }));
  hiddenMine = bodyOf<HandoverView>(await here.client.post(list(HOUSE), { shift: 'Day', content: 'Wrong house' }));
  const { client: boss } = await t.signedIn({ role: 'admin' });
  expect((await boss.post(`/api/handovers/${hiddenMine.id}/hide`)).status).toBe(200);
});
afterAll(async () => {
  await t.close();
});

/** An administrator of the given account type working in Apps House. */
async function adminOfType(type: 'agency' | 'bank' | 'employee') {
  const accessEndsAt = type === 'employee' ? null : t.server.deps.now() + 5 * DAY;
  const { client, user } = await t.signedIn({ role: 'admin', accountType: type, accessEndsAt });
  await t.setHouses(user.id, [HOUSE]);
  return { client, user };
}

async function pulledIds(client: TestClient): Promise<{ live: string[]; gone: string[] }> {
  const res = await client.get('/api/sync/handovers/pull?seq=0&id=');
  expect(res.status).toBe(200);
  const docs = bodyOf<PullResponse<HandoverDoc>>(res).documents;
  return {
    live: docs.filter((d) => !d._deleted).map((d) => d.id),
    gone: docs.filter((d) => d._deleted).map((d) => d.id),
  };
}

describe('handover notes of an agency or bank administrator (decision 151)', () => {
  it('shows an agency or bank admin their houses notes, hidden ones marked, and 404 for another house, by REST', async () => {
    for (const type of ['agency', 'bank'] as const) {
      const { client } = await adminOfType(type);
      const page = bodyOf<HandoverPage>(await client.get(list(HOUSE)));
      expect(page.items.map((n) => n.id)).toEqual(expect.arrayContaining([mine.id, hiddenMine.id]));
      expect((await client.get(`/api/handovers/${hiddenMine.id}`)).body).toMatchObject({ hidden: true });
      const other = await client.get(list(OTHER));
      expect(other.status, type).toBe(404);
      expect(other.body).toMatchObject({ code: 'not_found', message: 'House not found' });
      for (const path of [`/api/handovers/${theirs.id}`, `/api/handovers/${theirs.id}/reads`]) {
        expect((await client.get(path)).status, path).toBe(404);
      }
      expect((await client.post(`/api/handovers/${theirs.id}/read`)).status).toBe(404);
      expect((await client.post(`/api/handovers/${theirs.id}/hide`)).status).toBe(404);
      expect((await client.post(list(OTHER), { shift: 'Day', content: 'Not mine' })).status).toBe(404);
    }
  });

  it('pulls only their houses notes, and an employee admin still pulls every house', async () => {
    const agency = await adminOfType('agency');
    const employee = await adminOfType('employee');
    const limited = await pulledIds(agency.client);
    expect(limited.live).toEqual(expect.arrayContaining([mine.id, hiddenMine.id]));
    expect([...limited.live, ...limited.gone]).not.toContain(theirs.id);
    expect((await pulledIds(employee.client)).live).toEqual(expect.arrayContaining([mine.id, theirs.id]));
  });

  it('sends tombstones of other houses notes when an admin becomes agency staff, and the notes back as an employee', async () => {
    const { client, user } = await adminOfType('employee');
    const { client: sysadmin } = await t.signedIn({ role: 'system_admin' });
    const first = bodyOf<PullResponse<HandoverDoc>>(await client.get('/api/sync/handovers/pull?seq=0&id='));
    expect(first.documents.find((d) => d.id === theirs.id)).toMatchObject({ _deleted: false });
    const fields = { email: user.email, firstName: user.firstName, lastName: user.lastName, role: 'admin' };
    const end = new Date(t.server.deps.now() + 5 * DAY).toISOString();
    const toAgency = await sysadmin.patch(`/api/admin/users/${user.id}/edit`, {
      ...fields,
      type: 'agency',
      accessEndsAt: end,
    });
    expect(toAgency.status).toBe(200);
    const after = await client.get(
      `/api/sync/handovers/pull?seq=${first.checkpoint.seq}&id=${encodeURIComponent(first.checkpoint.id)}`,
    );
    const docs = bodyOf<PullResponse<HandoverDoc>>(after).documents;
    expect(docs.find((d) => d.id === theirs.id)).toMatchObject({ _deleted: true, content: '' });
    expect(docs.find((d) => d.id === mine.id)).toBeUndefined();
    expect((await client.get(`/api/handovers/${theirs.id}`)).status).toBe(404);

    const back = await sysadmin.patch(`/api/admin/users/${user.id}/edit`, { ...fields, type: 'employee' });
    expect(back.status).toBe(200);
    expect((await client.get(`/api/handovers/${theirs.id}`)).status).toBe(200);
    expect((await pulledIds(client)).live).toContain(theirs.id);
  });

  it('tells an agency admin stream of notes of their houses only', async () => {
    const agency = await adminOfType('agency');
    const there = await t.signedIn();
    await t.setHouses(there.user.id, [OTHER]);
    const stream = await agency.client.openStream();
    try {
      await stream.next('RESYNC');
      expect((await there.client.post(list(OTHER), { shift: 'Night', content: 'Quiet' })).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(stream.events.slice(1)).toEqual([]);
      const here = await t.signedIn();
      await t.setHouses(here.user.id, [HOUSE]);
      expect((await here.client.post(list(HOUSE), { shift: 'Night', content: 'Quiet here' })).status).toBe(201);
      const event = await stream.next('change', 1);
      expect(JSON.parse(event.data)).toEqual({ collection: 'handovers' });
    } finally {
      stream.close();
    }
  });

  it('reports to an agency or bank admin their houses only, and 404 for another named house', async () => {
    const { client } = await adminOfType('bank');
    const day = new Date(t.server.deps.now()).toISOString().slice(0, 10);
    const res = await client.get(`/api/handovers/report?from=${day}&to=${day}`);
    expect(res.status).toBe(200);
    const houses = new Set(bodyOf<HandoverReport>(res).rows.map((r) => r.house));
    expect([...houses]).toEqual([HOUSE]);
    const csv = await client.get(`/api/handovers/report.csv?from=${day}&to=${day}`);
    expect(csv.text).not.toContain(OTHER);
    const other = await client.get(`/api/handovers/report?from=${day}&to=${day}&house=${encodeURIComponent(OTHER)}`);
    expect(other.status).toBe(404);
    const { client: employee } = await adminOfType('employee');
    const all = bodyOf<HandoverReport>(await employee.get(`/api/handovers/report?from=${day}&to=${day}`));
    expect(new Set(all.rows.map((r) => r.house))).toEqual(new Set([HOUSE, OTHER]));
  });
});
