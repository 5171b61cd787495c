import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcknowledgeBodySchema, ALERT_MESSAGES, type AlertReport, type EmergencyAlert } from '../../../schema/alerts';
import type { PostView } from '../../../schema/posts';
import type { AcknowledgementDoc, PostDoc, PullResponse, PushResponse, SyncCheckpoint } from '../../../schema/sync';
import { startPushReceiver, type PushReceiver } from '../../test/push-receiver';
import { parseInput } from '../../lib/http';
import { actorOf, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { acknowledgeAlert, sendDueReminders } from './alerts.service';
import { statement } from '../../db/client';

let t: TestServer;
let receiver: PushReceiver;

beforeAll(async () => {
  receiver = await startPushReceiver();
  t = await startTestServer({ PUSH_ALLOW_HOSTS: receiver.origin });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const alertsOf = async (client: TestClient) =>
  (await client.get('/api/alerts/unacknowledged')).body as unknown as EmergencyAlert[];
const alertIdsOf = async (client: TestClient) => (await alertsOf(client)).map((a) => a.id);

/** A fresh server per scenario where "everyone" must be a known set of people. */
async function withFreshServer(run: (s: TestServer) => Promise<void>, env: Record<string, string> = {}) {
  const fresh = await startTestServer(env);
  try {
    await run(fresh);
  } finally {
    await fresh.close();
  }
}

async function pullAcks(client: TestClient, checkpoint?: SyncCheckpoint) {
  const query = checkpoint ? `?seq=${checkpoint.seq}&id=${encodeURIComponent(checkpoint.id)}` : '';
  const res = await client.get(`/api/sync/acknowledgements/pull${query}`);
  expect(res.status).toBe(200);
  return res.body as unknown as PullResponse<AcknowledgementDoc>;
}

async function pushAcks(client: TestClient, rows: unknown[]) {
  const res = await client.post('/api/sync/acknowledgements/push', rows);
  expect(res.status).toBe(200);
  return (res.body as unknown as PushResponse<AcknowledgementDoc>).conflicts;
}

describe('access to the alert and bell calls', () => {
  it.each([
    ['POST', '/api/posts/x/acknowledge'],
    ['GET', '/api/alerts/unacknowledged'],
    ['GET', '/api/alerts/x/report'],
    ['GET', '/api/alerts/x/report.csv'],
    ['GET', '/api/notifications/unviewed-count'],
    ['POST', '/api/notifications/mark-viewed', { postIds: [] }],
  ])('%s %s answers 401 when signed out', async (method, url, body?: unknown) => {
    const res = await t.client().request(method, url, method === 'POST' ? (body ?? {}) : undefined);
    expect(res.status).toBe(401);
  });
});

describe('the audience of an urgent post', () => {
  it('is every active colleague but the author when no house is chosen', async () => {
    await withFreshServer(async (s) => {
      const author = await s.signedIn({ role: 'admin', firstName: 'Ada', lastName: 'Author' });
      const staff = await s.signedIn();
      const sysadmin = await s.signedIn({ role: 'system_admin' });
      const inactive = await s.buildUser({ isActive: false });
      const pending = await s.buildUser({ isActive: false, pendingApproval: true });
      const res = await author.client.post('/api/posts', { content: 'Water off at 3pm', isUrgent: true });
      expect(res.status).toBe(201);
      expect(res.body.audienceHouses).toEqual([]);
      const id = res.body.id as string;
      expect(await alertsOf(staff.client)).toEqual([
        {
          id,
          category: 'company_announcement',
          createdAt: res.body.createdAt,
          content: 'Water off at 3pm',
          author: { firstName: 'Ada', lastName: 'Author' },
        },
      ]);
      expect(await alertIdsOf(sysadmin.client)).toEqual([id]);
      expect(await alertIdsOf(author.client)).toEqual([]);
      const rows = await statement(s.db, 'SELECT user_id AS "userId" FROM acknowledgements WHERE post_id = ?').all([
        id,
      ]);
      const audience = (rows as { userId: string }[]).map((r) => r.userId);
      expect(audience).not.toContain(inactive.id);
      expect(audience).not.toContain(pending.id);
      expect(audience).not.toContain(author.user.id);
    });
  });

  it('is the members of the chosen houses, sent as a repeated multipart field', async () => {
    const author = await t.signedIn({ role: 'admin' });
    const giles = await t.signedIn();
    const both = await t.signedIn();
    const lodges = await t.signedIn();
    await t.setHouses(giles.user.id, ['Giles House']);
    await t.setHouses(both.user.id, ['Giles House', 'Tudor Way']);
    await t.setHouses(lodges.user.id, ['The Lodges']);
    const form = new FormData();
    form.append('content', 'Lift broken at Tudor Way');
    form.append('isUrgent', 'true');
    form.append('audienceHouses', 'Tudor Way');
    form.append('audienceHouses', 'Giles House');
    const res = await author.client.postForm('/api/posts', form);
    expect(res.status).toBe(201);
    expect(res.body.audienceHouses).toEqual(['Tudor Way', 'Giles House']);
    const id = res.body.id as string;
    expect(await alertIdsOf(giles.client)).toContain(id);
    expect(await alertIdsOf(both.client)).toContain(id);
    expect(await alertIdsOf(lodges.client)).not.toContain(id);
    const feed = (await lodges.client.get('/api/posts?limit=100')).body as unknown as PostView[];
    // Everyone still sees the post in the feed; only the audience is alerted.
    expect(feed.find((p) => p.id === id)).toMatchObject({
      isUrgent: true,
      audienceHouses: ['Tudor Way', 'Giles House'],
    });
  });

  it('must name known houses, and is cleared on a post that is not urgent', async () => {
    const { client } = await t.signedIn();
    const unknown = await client.post('/api/posts', { content: 'Hi', isUrgent: true, audienceHouses: ['Nowhere'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe('Unknown house: Nowhere');
    const ordinary = await client.post('/api/posts', { content: 'Hi', audienceHouses: ['Giles House'] });
    expect(ordinary.status).toBe(201);
    expect(ordinary.body.audienceHouses).toEqual([]);
  });

  it('follows edits: made urgent it alerts, narrowed it withdraws the unacknowledged, made ordinary or deleted it ends', async () => {
    const author = await t.signedIn({ role: 'admin' });
    const acked = await t.signedIn();
    const pendingGiles = await t.signedIn();
    const lodges = await t.signedIn();
    await t.setHouses(acked.user.id, ['Westminster Croft']);
    await t.setHouses(pendingGiles.user.id, ['Hanover Drive']);
    await t.setHouses(lodges.user.id, ['Westminster Croft']);
    const created = await author.client.post('/api/posts', { content: 'Storm warning' });
    const id = created.body.id as string;
    expect(await alertIdsOf(lodges.client)).not.toContain(id);

    const urgent = await author.client.patch(`/api/posts/${id}`, {
      content: 'Storm warning',
      isUrgent: true,
      audienceHouses: ['Hanover Drive', 'Westminster Croft'],
    });
    expect(urgent.status).toBe(200);
    for (const c of [acked, pendingGiles, lodges]) expect(await alertIdsOf(c.client)).toContain(id);
    expect((await acked.client.post(`/api/posts/${id}/acknowledge`)).status).toBe(200);

    await author.client.patch(`/api/posts/${id}`, { content: 'Storm warning', audienceHouses: ['Hanover Drive'] });
    expect(await alertIdsOf(lodges.client)).not.toContain(id);
    expect(await alertIdsOf(pendingGiles.client)).toContain(id);
    const report = (await author.client.get(`/api/alerts/${id}/report`)).body as unknown as AlertReport;
    expect(report.totals).toEqual({ audience: 2, acknowledged: 1, pending: 1 }); // the acknowledgement stays

    await author.client.patch(`/api/posts/${id}`, { content: 'Storm warning', isUrgent: false });
    expect(await alertIdsOf(pendingGiles.client)).not.toContain(id);
    await author.client.patch(`/api/posts/${id}`, { content: 'Storm warning', isUrgent: true });
    expect(await alertIdsOf(pendingGiles.client)).toContain(id);
    await author.client.delete(`/api/posts/${id}`);
    expect(await alertIdsOf(pendingGiles.client)).not.toContain(id);
  });

  it('follows an audience edited through sync as through REST, by the author or an admin only', async () => {
    const author = await t.signedIn();
    const colleague = await t.signedIn();
    const admin = await t.signedIn({ role: 'admin' });
    const apps = await t.signedIn();
    const main = await t.signedIn();
    await t.setHouses(apps.user.id, ['Apps House']);
    await t.setHouses(main.user.id, ['Main Road']);
    const id = (await author.client.post('/api/posts', { content: 'Gas smell', isUrgent: true })).body.id as string;
    expect(await alertIdsOf(apps.client)).toContain(id);
    expect(await alertIdsOf(main.client)).toContain(id);
    const masterOf = async (client: TestClient) => {
      const res = await client.get('/api/sync/posts/pull?limit=1000');
      return (res.body as unknown as PullResponse<PostDoc>).documents.find((d) => d.id === id)!;
    };
    const pushPost = async (client: TestClient, changes: Partial<PostDoc>) => {
      const master = await masterOf(client);
      const res = await client.post('/api/sync/posts/push', [
        { newDocumentState: { ...master, ...changes }, assumedMasterState: master },
      ]);
      expect(res.status).toBe(200);
      return { master, conflicts: (res.body as unknown as PushResponse<PostDoc>).conflicts };
    };

    // The author (a staff member) narrows the alert to one house: the other house's unacknowledged alert goes.
    expect((await pushPost(author.client, { audienceHouses: ['Apps House'] })).conflicts).toEqual([]);
    expect((await masterOf(author.client)).audienceHouses).toEqual(['Apps House']);
    expect(await alertIdsOf(apps.client)).toContain(id);
    expect(await alertIdsOf(main.client)).not.toContain(id);

    // A colleague who is neither the author nor an admin is refused and gets the unchanged master back.
    const refused = await pushPost(colleague.client, { audienceHouses: ['Main Road'] });
    expect(refused.conflicts).toEqual([refused.master]);
    expect(await alertIdsOf(main.client)).not.toContain(id);

    // An unknown house is refused too.
    const unknown = await pushPost(author.client, { audienceHouses: ['Nowhere'] });
    expect(unknown.conflicts).toEqual([unknown.master]);

    // An admin moves it to the other house.
    expect((await pushPost(admin.client, { audienceHouses: ['Main Road'] })).conflicts).toEqual([]);
    expect(await alertIdsOf(main.client)).toContain(id);
    expect(await alertIdsOf(apps.client)).not.toContain(id);

    // Made ordinary, whatever audience the document still carries: the audience is cleared and the alert ends.
    expect((await pushPost(author.client, { isUrgent: false, audienceHouses: ['Main Road'] })).conflicts).toEqual([]);
    expect((await masterOf(author.client)).audienceHouses).toEqual([]);
    expect(await alertIdsOf(main.client)).not.toContain(id);
  });
});

describe('POST /api/posts/{id}/acknowledge', () => {
  it('stores who and when once, logs it, and takes the alert off the list', async () => {
    const post = await t.buildAlert({ content: 'Check the fire doors' });
    const { user, client } = await t.signedIn();
    // Made before this user existed: the alert went to those who were staff then.
    expect(await alertIdsOf(client)).not.toContain(post.id);
    const alert = await t.buildAlert({ content: 'Second alert' });
    expect(await alertIdsOf(client)).toContain(alert.id);
    t.advance(90_000);
    const first = await client.post(`/api/posts/${alert.id}/acknowledge`);
    expect(first.status).toBe(200);
    // Without a written time from the device, it was made when it arrived.
    expect(first.body).toEqual({
      postId: alert.id,
      acknowledgedAt: expect.any(String),
      writtenAt: first.body.acknowledgedAt,
    });
    const again = await client.post(`/api/posts/${alert.id}/acknowledge`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await alertIdsOf(client)).not.toContain(alert.id);
    const audit = (await statement(
      t.db,
      `SELECT actor_id AS "actorId", target_id AS "targetId", details FROM audit_log WHERE action = 'alert.acknowledged' AND actor_id = ?`,
    ).all([user.id])) as { actorId: string; targetId: string; details: string }[];
    expect(audit).toHaveLength(1);
    expect(audit[0].targetId).toBe(alert.id);
    expect(JSON.parse(audit[0].details).secondsToAcknowledge).toBeGreaterThanOrEqual(90);
  });

  it('answers 404 for an ordinary post, an unknown or deleted post, and an alert the user is not addressed by', async () => {
    const { user, client } = await t.signedIn();
    await t.setHouses(user.id, ['Main Road']);
    const ordinary = await t.buildPost();
    const elsewhere = await t.buildAlert({ audienceHouses: JSON.stringify(['Apps House']) });
    const { client: author } = await t.signedIn({ role: 'admin' });
    const toDelete = (await author.post('/api/posts', { content: 'Soon gone', isUrgent: true })).body.id as string;
    await author.delete(`/api/posts/${toDelete}`);
    for (const id of [ordinary.id, randomUUID(), toDelete, elsewhere.id]) {
      const res = await client.post(`/api/posts/${id}/acknowledge`);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe(ALERT_MESSAGES.alertNotFound);
    }
    expect((await client.post(`/api/posts/${'x'.repeat(101)}/acknowledge`)).status).toBe(400);
  });
});

describe('GET /api/alerts/unacknowledged', () => {
  it('lists the user’s open alerts newest first', async () => {
    const { client } = await t.signedIn();
    const older = await t.buildAlert({ createdAt: Date.now() - 60_000, content: 'older' });
    const newer = await t.buildAlert({ createdAt: Date.now(), content: 'newer' });
    const ids = await alertIdsOf(client);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
  });
});

describe('the notification bell', () => {
  it('counts the user’s urgent posts not yet seen; marking viewed takes only the user’s own and answers the count', async () => {
    await withFreshServer(async (s) => {
      const { client } = await s.signedIn();
      expect((await client.get('/api/notifications/unviewed-count')).body).toEqual({ count: 0 });
      const a = await s.buildAlert();
      const b = await s.buildAlert();
      const c = await s.buildAlert();
      const ordinary = await s.buildPost();
      expect((await client.get('/api/notifications/unviewed-count')).body).toEqual({ count: 3 });
      const res = await client.post('/api/notifications/mark-viewed', {
        postIds: [a.id, ordinary.id, randomUUID(), a.id],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: 2 });
      expect((await client.post(`/api/posts/${b.id}/acknowledge`)).status).toBe(200);
      expect((await client.get('/api/notifications/unviewed-count')).body).toEqual({ count: 1 });
      // Viewing is not acknowledging: the modal still lists the viewed alert.
      expect(await alertIdsOf(client)).toEqual(expect.arrayContaining([a.id, c.id]));
    });
  });

  it.each([
    ['a body without postIds', {}, ALERT_MESSAGES.postIdsList],
    ['postIds that is not a list', { postIds: 'all' }, ALERT_MESSAGES.postIdsList],
    ['more than 100 ids', { postIds: Array.from({ length: 101 }, () => randomUUID()) }, ALERT_MESSAGES.tooManyPostIds],
  ])('refuses %s (400)', async (_label, body, message) => {
    const { client } = await t.signedIn();
    const res = await client.post('/api/notifications/mark-viewed', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });
});

describe('the acknowledgement report', () => {
  it('lists the audience by house with times, for admins only', async () => {
    await withFreshServer(async (s) => {
      const author = await s.signedIn({ role: 'admin', firstName: 'Ada', lastName: 'Author' });
      const quick = await s.signedIn({ firstName: 'Quinn', lastName: 'Quick' });
      const slow = await s.signedIn({ firstName: 'Sol', lastName: 'Slow' });
      const none = await s.signedIn({ firstName: 'Nia', lastName: 'Nohouse' });
      await s.setHouses(quick.user.id, ['Apps House', 'Giles House']);
      await s.setHouses(slow.user.id, ['Giles House']);
      const created = await author.client.post('/api/posts', {
        content: 'Gas leak',
        category: 'buildings_maintenance',
        isUrgent: true,
      });
      const id = created.body.id as string;
      s.advance(30_000);
      await quick.client.post(`/api/posts/${id}/acknowledge`);
      s.advance(90_000);
      await slow.client.post(`/api/posts/${id}/acknowledge`);

      expect((await quick.client.get(`/api/alerts/${id}/report`)).status).toBe(403);
      expect((await quick.client.get(`/api/alerts/${id}/report.csv`)).status).toBe(403);
      const res = await author.client.get(`/api/alerts/${id}/report`);
      expect(res.status).toBe(200);
      const report = res.body as unknown as AlertReport;
      expect(report.post).toEqual({
        id,
        category: 'buildings_maintenance',
        createdAt: created.body.createdAt,
        author: { firstName: 'Ada', lastName: 'Author' },
        audienceHouses: [],
      });
      // The first administrator (from ADMIN_EMAIL) is in the audience too, in no house.
      expect(report.totals).toEqual({ audience: 4, acknowledged: 2, pending: 2 });
      expect(report.groups.map((g) => [g.house, g.members.map((m) => m.firstName), g.acknowledged, g.pending])).toEqual(
        [
          ['Apps House', ['Quinn'], 1, 0],
          ['Giles House', ['Quinn', 'Sol'], 2, 0],
          ['No house assigned', ['Nia', 'System'], 0, 2],
        ],
      );
      const [quickRow] = report.groups[0].members;
      expect(quickRow).toEqual({
        userId: quick.user.id,
        firstName: 'Quinn',
        lastName: 'Quick',
        houses: ['Apps House', 'Giles House'],
        isActive: true,
        alertedAt: expect.any(String),
        acknowledgedAt: expect.any(String),
        receivedAt: expect.any(String),
        secondsToAcknowledge: 30,
        remindedAt: null,
      });
      expect(report.groups[1].members[1].secondsToAcknowledge).toBe(120);
      expect(report.groups[2].members[0]).toMatchObject({ userId: none.user.id, acknowledgedAt: null });

      const sysadmin = (await s.signedIn({ role: 'system_admin' })).client;
      expect((await sysadmin.get(`/api/alerts/${id}/report`)).status).toBe(200);
      const ordinary = await s.buildPost();
      expect((await author.client.get(`/api/alerts/${ordinary.id}/report`)).status).toBe(404);
      expect((await author.client.get(`/api/alerts/${randomUUID()}/report.csv`)).status).toBe(404);
    });
  });

  it('exports CSV as an attachment whose cells cannot run as spreadsheet formulas', async () => {
    await withFreshServer(async (s) => {
      const author = await s.signedIn({ role: 'admin' });
      await s.buildUser({ firstName: '=HYPERLINK("http://evil.example","x")', lastName: '+1+1' });
      await s.buildUser({ firstName: '@SUM(A1)', lastName: '-2, "quoted"' });
      const id = (await author.client.post('/api/posts', { content: 'Alert', isUrgent: true })).body.id as string;
      const res = await author.client.get(`/api/alerts/${id}/report.csv`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="alert-${id}-acknowledgements.csv"`);
      const lines = res.text.trimEnd().split('\r\n');
      expect(lines[0]).toBe(
        '"House","First name","Last name","Houses","Active","Alerted at","Acknowledged at","Seconds to acknowledge","Reminded at","Received at"',
      );
      expect(res.text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")","'+1+1"`);
      expect(res.text).toContain(`"'@SUM(A1)","'-2, ""quoted"""`);
      expect(lines.slice(1).every((line) => line.startsWith('"No house assigned",'))).toBe(true);
      expect(lines).toHaveLength(4); // the two, and the first administrator
      // Streamed as it is written (decision 130), so its length is not known up front.
      expect(res.headers.get('content-length')).toBeNull();
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
    });
  });
});

describe('reminders', () => {
  it('pushes one reminder to each member who has not acknowledged 15 minutes after the alert, never twice', async () => {
    await withFreshServer(
      async (s) => {
        const author = await s.signedIn({ role: 'admin', firstName: 'Ada' });
        const waiting = await s.signedIn();
        const done = await s.signedIn();
        for (const [name, who] of [
          ['waiting', waiting],
          ['done', done],
        ] as const) {
          await who.client.post('/api/push/subscribe', receiver.subscription(`reminder-${name}`));
        }
        const id = (await author.client.post('/api/posts', { content: 'Alert', isUrgent: true })).body.id as string;
        await receiver.waitFor('reminder-waiting');
        await receiver.waitFor('reminder-done');
        await done.client.post(`/api/posts/${id}/acknowledge`);

        s.advance(14 * 60_000);
        expect(await s.server.reminders.check()).toBe(0);
        s.advance(60_000);
        // The waiting member and the first administrator (who has no device).
        expect(await s.server.reminders.check()).toBe(2);
        const pushes = await receiver.waitFor('reminder-waiting', 2);
        expect(pushes[1].payload).toEqual({
          title: 'Emergency alert not acknowledged',
          body: 'Please open Staff Portal and acknowledge the urgent message from Ada.',
          tag: `urgent-${id}`,
          data: { type: 'reminder', postId: id, urgent: true },
        });
        const report = (await author.client.get(`/api/alerts/${id}/report`)).body as unknown as AlertReport;
        const member = report.groups.flatMap((g) => g.members).find((m) => m.userId === waiting.user.id);
        expect(member?.remindedAt).toEqual(expect.any(String));
        for (let i = 0; i < 3; i += 1) {
          s.advance(20 * 60_000);
          expect(await s.server.reminders.check()).toBe(0);
        }
        await s.settlePushes();
        expect(receiver.of('reminder-waiting')).toHaveLength(2);
        expect(receiver.of('reminder-done')).toHaveLength(1);
      },
      { PUSH_ALLOW_HOSTS: receiver.origin },
    );
  });

  it('pushes each reminder once when two checks run at the same moment, as two servers without the lock would', async () => {
    await withFreshServer(
      async (s) => {
        const author = await s.signedIn({ role: 'admin', firstName: 'Ada' });
        const members = [await s.signedIn(), await s.signedIn()];
        for (const [i, member] of members.entries()) {
          await member.client.post('/api/push/subscribe', receiver.subscription(`twice-${i}`));
        }
        await author.client.post('/api/posts', { content: 'Alert', isUrgent: true });
        for (const i of members.keys()) await receiver.waitFor(`twice-${i}`);

        const check = () => sendDueReminders(s.server.deps);
        await s.settlePushes();
        // Before the time there is nothing to send; the pair also readies two connections, so that on PostgreSQL too
        // the pair below reads the due rows at the same moment.
        expect(await Promise.all([check(), check()])).toEqual([0, 0]);
        s.advance(15 * 60_000);
        const sent = await Promise.all([check(), check()]);
        await s.settlePushes();
        for (const i of members.keys()) {
          expect(receiver.of(`twice-${i}`).map((push) => push.payload.data.type)).toEqual(['urgent', 'reminder']);
        }
        // The two members and the first administrator (who has no device), each counted by one of the checks.
        expect(sent[0] + sent[1]).toBe(3);
      },
      { PUSH_ALLOW_HOSTS: receiver.origin },
    );
  });
});

describe('sync: acknowledgements', () => {
  it('pulls only the user’s own alert list', async () => {
    const alert = await t.buildAlert();
    const { user, client } = await t.signedIn();
    const mine = await t.buildAlert();
    const { documents } = await pullAcks(client);
    expect(documents.every((d) => d.userId === user.id)).toBe(true);
    expect(documents.map((d) => d.postId)).toContain(mine.id);
    expect(documents.map((d) => d.postId)).not.toContain(alert.id);
    expect(documents.find((d) => d.postId === mine.id)).toEqual({
      id: `${mine.id}:${user.id}`,
      postId: mine.id,
      userId: user.id,
      createdAt: expect.any(Number),
      acknowledgedAt: null,
      writtenAt: null,
      viewedAt: null,
      _deleted: false,
    });
  });

  it('acknowledges a queued offline acknowledgement once, at the server’s time, and marks viewed', async () => {
    const { user, client } = await t.signedIn();
    const alert = await t.buildAlert();
    const other = await t.buildAlert();
    const { documents } = await pullAcks(client);
    const master = documents.find((d) => d.postId === alert.id)!;
    const acked = { ...master, acknowledgedAt: 1 };
    expect(await pushAcks(client, [{ newDocumentState: acked, assumedMasterState: master }])).toEqual([]);
    expect(await alertIdsOf(client)).not.toContain(alert.id);
    const stored = (await pullAcks(client)).documents.find((d) => d.postId === alert.id)!;
    // The same queued row sent again changes nothing: it gets the stored document back.
    expect(await pushAcks(client, [{ newDocumentState: acked, assumedMasterState: master }])).toEqual([stored]);
    expect(stored.acknowledgedAt).toBeGreaterThan(1_000_000);
    expect(stored.viewedAt).toBe(stored.acknowledgedAt);
    const count = await statement(
      t.db,
      "SELECT count(*) AS n FROM audit_log WHERE action = 'alert.acknowledged' AND actor_id = ?",
    ).get([user.id]);
    expect(count).toEqual({ n: 1 });

    const otherMaster = (await pullAcks(client)).documents.find((d) => d.postId === other.id)!;
    const before = (await client.get('/api/notifications/unviewed-count')).body.count as number;
    expect(
      await pushAcks(client, [{ newDocumentState: { ...otherMaster, viewedAt: 5 }, assumedMasterState: otherMaster }]),
    ).toEqual([]);
    expect((await client.get('/api/notifications/unviewed-count')).body).toEqual({ count: before - 1 });
  });

  it('refuses withdrawing an acknowledgement, someone else’s document and a document the server never made', async () => {
    const { user, client } = await t.signedIn();
    const victim = await t.signedIn();
    const alert = await t.buildAlert();
    await client.post(`/api/posts/${alert.id}/acknowledge`);
    const master = (await pullAcks(client)).documents.find((d) => d.postId === alert.id)!;
    expect(
      await pushAcks(client, [{ newDocumentState: { ...master, acknowledgedAt: null }, assumedMasterState: master }]),
    ).toEqual([master]);
    expect(
      await pushAcks(client, [{ newDocumentState: { ...master, _deleted: true }, assumedMasterState: master }]),
    ).toEqual([master]);

    const theirs = { ...master, id: `${alert.id}:${victim.user.id}`, userId: victim.user.id, acknowledgedAt: 1 };
    expect(await pushAcks(client, [{ newDocumentState: theirs, assumedMasterState: null }])).toEqual([
      { ...theirs, _deleted: true },
    ]);
    expect(await alertIdsOf(victim.client)).toContain(alert.id);

    const ordinary = await t.buildPost();
    const invented = { ...master, id: `${ordinary.id}:${user.id}`, postId: ordinary.id };
    expect(await pushAcks(client, [{ newDocumentState: invented, assumedMasterState: null }])).toEqual([
      { ...invented, _deleted: true },
    ]);
  });

  it('tells only the member’s own streams about their alert list', async () => {
    const member = await t.signedIn();
    const other = await t.signedIn();
    const alert = await t.buildAlert();
    const streams = [await member.client.openStream(), await other.client.openStream()];
    try {
      await Promise.all(streams.map((s) => s.next('RESYNC')));
      const seen = streams.map((s) => s.events.length);
      await member.client.post(`/api/posts/${alert.id}/acknowledge`);
      const event = await streams[0].next('change', seen[0]);
      // Only the member's own document travels in it (decision 131).
      expect(JSON.parse(event.data)).toMatchObject({
        collection: 'acknowledgements',
        documents: [{ postId: alert.id, acknowledgedAt: expect.any(Number) }],
      });
      expect(JSON.parse(event.data).documents).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(streams[1].events.slice(seen[1])).toEqual([]);
    } finally {
      streams.forEach((s) => s.close());
    }
  });
});

describe('the time an acknowledgement was made', () => {
  const MIN = 60_000;
  const ms = (iso: string) => new Date(iso).getTime();
  const meta = { ip: '127.0.0.1', userAgent: null };

  it('is bounded by the alert reaching the user and by the arrival, at service level', async () => {
    const { user, client } = await t.signedIn();
    const alerts = [await t.buildAlert(), await t.buildAlert(), await t.buildAlert(), await t.buildAlert()];
    const { documents } = await pullAcks(client);
    const alertedAt = (postId: string) => documents.find((d) => d.postId === postId)!.createdAt;
    const at = alertedAt(alerts[0].id) + 5 * MIN;
    const deps = { ...t.server.deps, now: () => at };
    const acknowledge = (postId: string, writtenAt: unknown) =>
      acknowledgeAlert(deps, actorOf(user), postId, meta, parseInput(AcknowledgeBodySchema, { writtenAt }).writtenAt);
    const offline = await acknowledge(alerts[0].id, at - 2 * MIN);
    expect(ms(offline.writtenAt)).toBe(at - 2 * MIN);
    expect(ms(offline.acknowledgedAt)).toBe(at);
    expect(ms((await acknowledge(alerts[1].id, alertedAt(alerts[1].id) - MIN)).writtenAt)).toBe(
      alertedAt(alerts[1].id),
    );
    expect(ms((await acknowledge(alerts[2].id, at + MIN)).writtenAt)).toBe(at);
    expect(ms((await acknowledge(alerts[3].id, undefined)).writtenAt)).toBe(at);
    // Acknowledging again answers the first times.
    expect(await acknowledge(alerts[0].id, at - 4 * MIN)).toEqual(offline);
  });

  it('made offline at T and received at T + 2 minutes is reported at T, through sync and REST', async () => {
    await withFreshServer(async (s) => {
      const author = await s.signedIn({ role: 'admin' });
      const offline = await s.signedIn({ firstName: 'Olive' });
      const online = await s.signedIn({ firstName: 'Omar' });
      const id = (await author.client.post('/api/posts', { content: 'Fire door', isUrgent: true })).body.id as string;
      const master = (await pullAcks(offline.client)).documents.find((d) => d.postId === id)!;
      // Tapped 40 s after the alert reached the phone, offline; the push gets through two minutes later.
      const tapped = master.createdAt + 40_000;
      s.advance(40_000 + 2 * MIN);
      const acked = { ...master, acknowledgedAt: tapped, writtenAt: tapped, viewedAt: tapped };
      expect(await pushAcks(offline.client, [{ newDocumentState: acked, assumedMasterState: master }])).toEqual([]);
      const stored = (await pullAcks(offline.client)).documents.find((d) => d.postId === id)!;
      expect(stored.writtenAt).toBe(tapped);
      expect(stored.acknowledgedAt! - tapped).toBeGreaterThanOrEqual(2 * MIN);
      // REST takes the same optional time; a time before the alert reached the user counts from that moment.
      const rest = await online.client.post(`/api/posts/${id}/acknowledge`, { writtenAt: 5 });
      expect(rest.status).toBe(200);
      const report = (await author.client.get(`/api/alerts/${id}/report`)).body as unknown as AlertReport;
      const members = report.groups.flatMap((g) => g.members);
      const olive = members.find((m) => m.userId === offline.user.id)!;
      expect(olive.acknowledgedAt).toBe(new Date(tapped).toISOString());
      expect(olive.secondsToAcknowledge).toBe(40);
      expect(olive.receivedAt).toBe(new Date(stored.acknowledgedAt!).toISOString());
      const omar = members.find((m) => m.userId === online.user.id)!;
      expect(omar.acknowledgedAt).toBe(omar.alertedAt);
      expect(omar.secondsToAcknowledge).toBe(0);
      const csv = (await author.client.get(`/api/alerts/${id}/report.csv`)).text;
      expect(csv).toContain(`"${new Date(tapped).toISOString()}","40",`);
      // The audit entry counts from the same time.
      const audit = (await statement(
        s.db,
        "SELECT details FROM audit_log WHERE action = 'alert.acknowledged' AND actor_id = ?",
      ).get([offline.user.id])) as { details: string };
      expect(JSON.parse(audit.details)).toEqual({ secondsToAcknowledge: 40 });
    });
  });

  it('takes no body at POST /api/posts/{id}/acknowledge as the arrival, and refuses a body that is not JSON', async () => {
    const { client } = await t.signedIn();
    const alert = await t.buildAlert();
    const bad = await client.request('POST', `/api/posts/${alert.id}/acknowledge`, '{not json', {
      'content-type': 'application/json',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('The request body is not valid JSON');
    const res = await client.request('POST', `/api/posts/${alert.id}/acknowledge`);
    expect(res.status).toBe(200);
    expect(res.body.writtenAt).toBe(res.body.acknowledgedAt);
  });
});
