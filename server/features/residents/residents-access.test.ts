import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResidentView } from '../../../schema/residents';
import type { PullResponse, ResidentDoc } from '../../../schema/sync';
import { ADMIN, startTestServer, type TestClient, type TestServer } from '../../test/test-server';

let t: TestServer;
let admin: TestClient;
let giles: ResidentView;
let other: ResidentView;

const DAY = 86_400_000;

beforeAll(async () => {
  t = await startTestServer();
  admin = t.client();
  await admin.post('/api/auth/login', { email: ADMIN.email, password: ADMIN.password });
  giles = await createResident('Grace Giles', ['Giles House']);
  other = await createResident('Olive Other', ['Test Care Ltd']);
});
afterAll(async () => {
  await t.close();
});

async function createResident(name: string, houses: string[]): Promise<ResidentView> {
  const form = new FormData();
  form.append('name', name);
  form.append('houseTags', JSON.stringify(houses));
  const res = await admin.postForm('/api/residents', form);
  expect(res.status).toBe(201);
  return res.body as unknown as ResidentView;
}

/** A signed-in worker of a type, working in Giles House. */
async function worker(accountType: 'agency' | 'bank' | 'employee') {
  const signed = await t.signedIn({ accountType, accessEndsAt: accountType === 'employee' ? null : Date.now() + DAY });
  await t.setHouses(signed.user.id, ['Giles House']);
  return signed;
}

const pull = async (client: TestClient, query = '') =>
  (await client.get(`/api/sync/residents/pull?limit=1000${query}`)).body as unknown as PullResponse<ResidentDoc>;
const liveNames = (docs: ResidentDoc[]) => docs.filter((d) => !d._deleted).map((d) => d.name);

describe('residents of agency and bank staff (decision 147)', () => {
  it('shows agency staff only the residents of their houses over REST; others are not found', async () => {
    const { client } = await worker('agency');
    const list = (await client.get('/api/residents')).body as unknown as ResidentView[];
    expect(list.map((r) => r.name)).toEqual(['Grace Giles']);
    expect((await client.get(`/api/residents/${giles.id}`)).status).toBe(200);
    for (const path of [`/api/residents/${other.id}`, `/api/residents/${other.id}/history`]) {
      const res = await client.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ code: 'not_found' });
    }
    const form = new FormData();
    form.append('medication', 'Changed by someone who may not see it');
    expect((await client.sendForm('PUT', `/api/residents/${other.id}`, form)).status).toBe(404);
  });

  it('still shows employees every resident, and bank staff only their houses', async () => {
    const { client: employee } = await worker('employee');
    const all = (await employee.get('/api/residents')).body as unknown as ResidentView[];
    expect(all.map((r) => r.name)).toEqual(['Grace Giles', 'Olive Other']);
    const { client: bank } = await worker('bank');
    expect(liveNames((await pull(bank)).documents)).toEqual(['Grace Giles']);
  });

  it("pulls the other houses' residents as empty tombstones", async () => {
    const { client } = await worker('agency');
    const { documents } = await pull(client);
    expect(liveNames(documents)).toEqual(['Grace Giles']);
    expect(documents.find((d) => d.id === other.id)).toMatchObject({ _deleted: true, name: '', medication: '' });
    expect(JSON.stringify(documents)).not.toContain('Olive');
  });

  it('brings newly visible residents and tombstones in the next pull when houses or type change', async () => {
    const { user, client } = await worker('agency');
    const first = await pull(client);
    const since = (p: PullResponse<ResidentDoc>) => `&seq=${p.checkpoint.seq}&id=${p.checkpoint.id}`;

    const moved = await admin.put(`/api/admin/users/${user.id}/houses`, { houses: ['Test Care Ltd'] });
    expect(moved.status).toBe(200);
    const second = await pull(client, since(first));
    expect(second.documents.map((d) => [d.name || d.id, d._deleted])).toEqual(
      expect.arrayContaining([
        [giles.id, true],
        ['Olive Other', false],
      ]),
    );

    const edited = await admin.patch(`/api/admin/users/${user.id}/edit`, {
      ...{ email: user.email, firstName: user.firstName, lastName: user.lastName, role: 'staff' },
      ...{ type: 'employee', accessEndsAt: null },
    });
    expect(edited.status).toBe(200);
    const third = await pull(client, since(second));
    expect(liveNames(third.documents)).toEqual(['Grace Giles']);
  });
});
