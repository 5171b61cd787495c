import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertReport, EmergencyAlert } from '../../../schema/alerts';
import {
  CONFIRM_MESSAGES,
  type ConfirmationOverviewItem,
  type ConfirmationReport,
  type OutstandingConfirmation,
} from '../../../schema/confirmations';
import type { PostView } from '../../../schema/posts';
import type { AcknowledgementDoc, PostDoc, PullResponse, PushResponse } from '../../../schema/sync';
import { localDayAndHour } from '../../lib/time-zone';
import { newPostDoc } from '../../test/sync-docs';
import { startPushReceiver, type PushReceiver } from '../../test/push-receiver';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';
import { sendDueConfirmReminders } from './confirmations.service';

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

async function withFreshServer(run: (s: TestServer) => Promise<void>, env: Record<string, string> = {}) {
  const fresh = await startTestServer(env);
  try {
    await run(fresh);
  } finally {
    await fresh.close();
  }
}

const outstandingOf = async (client: TestClient) =>
  (await client.get('/api/confirmations/outstanding')).body as unknown as OutstandingConfirmation[];

/** An admin's post that asks the given houses (none: all staff) to confirm it; answers its view. */
async function confirmPostBy(client: TestClient, body: Record<string, unknown> = {}) {
  const res = await client.post('/api/posts', { content: 'New fire procedure', requiresConfirmation: true, ...body });
  expect(res.status).toBe(201);
  return res.body as unknown as PostView;
}

const auditCount = async (s: TestServer, userId: string, postId: string) =>
  (await statement(
    s.db,
    "SELECT count(*) AS n FROM audit_log WHERE action = 'post.confirmed' AND actor_id = ? AND target_id = ?",
  ).get([userId, postId])) as { n: number };

describe('access to the confirmation calls', () => {
  it.each([
    ['POST', '/api/posts/x/confirm'],
    ['GET', '/api/posts/x/confirmations'],
    ['GET', '/api/posts/x/confirmations.csv'],
    ['GET', '/api/confirmations/outstanding'],
    ['GET', '/api/confirmations'],
  ])('%s %s answers 401 when signed out', async (method, url) => {
    const res = await t.client().request(method, url, method === 'POST' ? {} : undefined);
    expect(res.status).toBe(401);
  });

  it('lets only administrators require confirmation, on a new post or an edit (403 for staff)', async () => {
    const staff = await t.signedIn();
    const created = await staff.client.post('/api/posts', { content: 'Read me', requiresConfirmation: true });
    expect(created.status).toBe(403);
    expect(created.body).toEqual({ code: 'forbidden', message: 'Only administrators can require confirmation' });
    const own = (await staff.client.post('/api/posts', { content: 'Mine' })).body as unknown as PostView;
    expect(own.requiresConfirmation).toBe(false);
    const edited = await staff.client.patch(`/api/posts/${own.id}`, { content: 'Mine', requiresConfirmation: true });
    expect(edited.status).toBe(403);
    expect(edited.body.message).toBe(CONFIRM_MESSAGES.adminsOnly);
    const report = await staff.client.get(`/api/posts/${own.id}/confirmations`);
    expect(report.status).toBe(403);
    expect((await staff.client.get('/api/confirmations')).status).toBe(403);
    expect((await staff.client.get(`/api/posts/${own.id}/confirmations.csv`)).status).toBe(403);
  });

  it('refuses a due date that is not a real day, and an unknown overview filter (400)', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    for (const confirmBy of ['2026-02-30', 'tomorrow', 20261231]) {
      const res = await admin.client.post('/api/posts', { content: 'x', requiresConfirmation: true, confirmBy });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(CONFIRM_MESSAGES.confirmByDate);
    }
    expect((await admin.client.get('/api/confirmations?overdue=yes')).status).toBe(400);
    expect((await admin.client.get('/api/confirmations?house=Nowhere')).body.message).toBe('Unknown house: Nowhere');
  });
});

describe('a post that requires confirmation', () => {
  it('asks only its audience; another house never sees the request (404) and no alert shows', async () => {
    const admin = await t.signedIn({ role: 'admin', firstName: 'Ada', lastName: 'Admin' });
    const inHouse = await t.signedIn();
    const elsewhere = await t.signedIn();
    await t.setHouses(inHouse.user.id, ['Apps House']);
    await t.setHouses(elsewhere.user.id, ['Flora Innes House']);
    const post = await confirmPostBy(admin.client, { audienceHouses: ['Apps House'], confirmBy: '2030-01-31' });
    expect(post).toMatchObject({
      requiresConfirmation: true,
      confirmBy: '2030-01-31',
      confirmedAt: null,
      isUrgent: false,
      audienceHouses: ['Apps House'],
    });
    expect(await outstandingOf(inHouse.client)).toEqual([
      {
        postId: post.id,
        category: 'company_announcement',
        content: 'New fire procedure',
        author: { firstName: 'Ada', lastName: 'Admin' },
        requestedAt: expect.any(String),
        confirmBy: '2030-01-31',
      },
    ]);
    expect(await outstandingOf(elsewhere.client)).toEqual([]);
    const refused = await elsewhere.client.post(`/api/posts/${post.id}/confirm`);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ code: 'not_found', message: CONFIRM_MESSAGES.notFound });
    // Not urgent: no EMERGENCY ALERT, nothing in the bell.
    const alerts = (await inHouse.client.get('/api/alerts/unacknowledged')).body as unknown as EmergencyAlert[];
    expect(alerts.map((a) => a.id)).not.toContain(post.id);
    expect((await inHouse.client.get('/api/notifications/unviewed-count')).body).toEqual({ count: 0 });
    expect((await inHouse.client.post(`/api/posts/${post.id}/acknowledge`)).status).toBe(404);
  });

  it('confirms once: the same answer again, the viewer’s confirmedAt on the post, one audit entry', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const reader = await t.signedIn();
    const post = await confirmPostBy(admin.client);
    const first = await reader.client.post(`/api/posts/${post.id}/confirm`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ postId: post.id, confirmedAt: expect.any(String) });
    t.advance(5_000);
    const again = await reader.client.post(`/api/posts/${post.id}/confirm`, { writtenAt: Date.now() + 10_000 });
    expect(again.body).toEqual(first.body);
    expect(await auditCount(t, reader.user.id, post.id)).toEqual({ n: 1 });
    expect(await outstandingOf(reader.client)).toEqual([]);
    const page = (await reader.client.get('/api/posts?limit=50')).body as unknown as PostView[];
    expect(page.find((p) => p.id === post.id)?.confirmedAt).toBe(first.body.confirmedAt);
    // Someone else's view of the same post carries their own (none).
    const adminPage = (await admin.client.get('/api/posts?limit=50')).body as unknown as PostView[];
    expect(adminPage.find((p) => p.id === post.id)?.confirmedAt).toBeNull();
    // A post that does not require confirmation: 404.
    const plain = (await admin.client.post('/api/posts', { content: 'Plain' })).body as unknown as PostView;
    expect((await reader.client.post(`/api/posts/${plain.id}/confirm`)).status).toBe(404);
  });

  it('bounds the device’s time: never before the request reached the user, never after arrival', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const early = await t.signedIn();
    const late = await t.signedIn();
    const post = await confirmPostBy(admin.client);
    const requestedAt = (await outstandingOf(early.client))[0].requestedAt;
    t.advance(60_000);
    const before = await early.client.post(`/api/posts/${post.id}/confirm`, { writtenAt: 1_000 });
    expect(before.body.confirmedAt).toBe(requestedAt);
    const sent = t.server.deps.now();
    const ahead = sent + 3_600_000;
    const after = await late.client.post(`/api/posts/${post.id}/confirm`, { writtenAt: ahead });
    const confirmed = Date.parse(after.body.confirmedAt as string);
    expect(confirmed).toBeGreaterThanOrEqual(sent);
    expect(confirmed).toBeLessThanOrEqual(t.server.deps.now());
    const audit = (await statement(
      t.db,
      "SELECT details FROM audit_log WHERE action = 'post.confirmed' AND actor_id = ?",
    ).get([early.user.id])) as { details: string };
    expect(JSON.parse(audit.details)).toEqual({ confirmedAt: requestedAt, secondsToConfirm: 0 });
  });

  it('is confirmed through sync as through REST, and a re-push after a lost answer changes nothing', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const { user, client } = await t.signedIn();
    const post = await confirmPostBy(admin.client);
    const pulled = (await client.get('/api/sync/acknowledgements/pull'))
      .body as unknown as PullResponse<AcknowledgementDoc>;
    const master = pulled.documents.find((d) => d.postId === post.id)!;
    expect(master).toMatchObject({ id: `${post.id}:${user.id}`, acknowledgedAt: null, _deleted: false });
    const tapped = master.createdAt + 1;
    const row = {
      newDocumentState: { ...master, acknowledgedAt: tapped, writtenAt: tapped },
      assumedMasterState: master,
    };
    const push = async () => {
      const res = await client.post('/api/sync/acknowledgements/push', [row]);
      expect(res.status).toBe(200);
      return (res.body as unknown as PushResponse<AcknowledgementDoc>).conflicts;
    };
    expect(await push()).toEqual([]);
    const pulledAgain = await client.get('/api/sync/acknowledgements/pull');
    const stored = (pulledAgain.body as unknown as PullResponse<AcknowledgementDoc>).documents.find(
      (d) => d.postId === post.id,
    )!;
    expect(stored.writtenAt).toBe(tapped);
    // The same queued row sent again (its answer was lost) changes nothing: it gets the stored document back.
    expect(await push()).toEqual([stored]);
    expect(await auditCount(t, user.id, post.id)).toEqual({ n: 1 });
    expect(await outstandingOf(client)).toEqual([]);
    const again = await client.post(`/api/posts/${post.id}/confirm`);
    expect(again.body).toEqual({ postId: post.id, confirmedAt: new Date(tapped).toISOString() });
  });

  it('when urgent too: one acknowledgement in the alert is the confirmation, and confirming ends the alert', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const acknowledger = await t.signedIn();
    const confirmer = await t.signedIn();
    const post = await confirmPostBy(admin.client, { isUrgent: true });
    const alertIds = async (c: TestClient) =>
      ((await c.get('/api/alerts/unacknowledged')).body as unknown as EmergencyAlert[]).map((a) => a.id);
    expect(await alertIds(acknowledger.client)).toContain(post.id);
    expect((await acknowledger.client.post(`/api/posts/${post.id}/acknowledge`)).status).toBe(200);
    expect(await outstandingOf(acknowledger.client)).toEqual([]);
    expect(await auditCount(t, acknowledger.user.id, post.id)).toEqual({ n: 1 });
    expect((await confirmer.client.post(`/api/posts/${post.id}/confirm`)).status).toBe(200);
    expect(await alertIds(confirmer.client)).not.toContain(post.id);
    const report = (await admin.client.get(`/api/alerts/${post.id}/report`)).body as unknown as AlertReport;
    expect(report.totals.acknowledged).toBeGreaterThanOrEqual(2);
  });

  it('withdraws open requests when the audience narrows or confirmation is no longer required; confirmations stay', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const stays = await t.signedIn();
    const moved = await t.signedIn();
    const confirmed = await t.signedIn();
    await t.setHouses(stays.user.id, ['Apps House']);
    await t.setHouses(moved.user.id, ['Flora Innes House']);
    await t.setHouses(confirmed.user.id, ['Flora Innes House']);
    const post = await confirmPostBy(admin.client, { audienceHouses: ['Apps House', 'Flora Innes House'] });
    await confirmed.client.post(`/api/posts/${post.id}/confirm`);
    const narrowed = await admin.client.patch(`/api/posts/${post.id}`, {
      content: post.content,
      audienceHouses: ['Apps House'],
    });
    expect(narrowed.status).toBe(200);
    expect(await outstandingOf(moved.client)).toEqual([]);
    expect((await moved.client.post(`/api/posts/${post.id}/confirm`)).status).toBe(404);
    const pulled = (await moved.client.get('/api/sync/acknowledgements/pull'))
      .body as unknown as PullResponse<AcknowledgementDoc>;
    expect(pulled.documents.find((d) => d.postId === post.id)?._deleted).toBe(true);
    const report = (await admin.client.get(`/api/posts/${post.id}/confirmations`))
      .body as unknown as ConfirmationReport;
    expect(report.groups.flatMap((g) => g.members).map((m) => m.userId)).toContain(confirmed.user.id);
    expect(report.groups.flatMap((g) => g.members).map((m) => m.userId)).not.toContain(moved.user.id);

    await admin.client.patch(`/api/posts/${post.id}`, { content: post.content, requiresConfirmation: false });
    expect(await outstandingOf(stays.client)).toEqual([]);
    expect((await admin.client.get(`/api/posts/${post.id}/confirmations`)).status).toBe(404);
    const view = (await admin.client.patch(`/api/posts/${post.id}`, { content: post.content })).body;
    expect(view).toMatchObject({ requiresConfirmation: false, confirmBy: null, audienceHouses: [] });
  });

  it('keeps its audience when a device that knows nothing of confirmations edits it through sync', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const member = await t.signedIn();
    await t.setHouses(member.user.id, ['Apps House']);
    const post = await confirmPostBy(admin.client, { audienceHouses: ['Apps House'] });
    const pulled = (await admin.client.get(`/api/sync/posts/pull?limit=500`)).body as unknown as PullResponse<PostDoc>;
    const master = pulled.documents.find((d) => d.id === post.id)!;
    // Such a device's edit, kept through its update to version 5, carries neither field (decision 137).
    const { requiresConfirmation, confirmBy, ...known } = master;
    void confirmBy;
    expect(requiresConfirmation).toBe(true);
    const edit = { ...known, content: 'Edited on a phone', audienceHouses: [], updatedAt: master.updatedAt + 1 };
    const res = await admin.client.post('/api/sync/posts/push', [
      { newDocumentState: edit, assumedMasterState: master },
    ]);
    expect(res.body.conflicts).toEqual([]);
    const report = (await admin.client.get(`/api/posts/${post.id}/confirmations`))
      .body as unknown as ConfirmationReport;
    expect(report.post.audienceHouses).toEqual(['Apps House']);
    expect((await outstandingOf(member.client)).map((o) => o.postId)).toContain(post.id);
  });
});

describe('posts requiring confirmation through sync', () => {
  const pullPost = async (client: TestClient, id: string) =>
    ((await client.get('/api/sync/posts/pull?limit=500')).body as unknown as PullResponse<PostDoc>).documents.find(
      (d) => d.id === id,
    )!;

  it('pulls requiresConfirmation and confirmBy with the post; an ordinary post has false and null', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const asked = await confirmPostBy(admin.client, { confirmBy: '2026-12-31', audienceHouses: ['Apps House'] });
    const plain = (await admin.client.post('/api/posts', { content: 'Just news' })).body as unknown as PostView;
    expect(await pullPost(admin.client, asked.id)).toMatchObject({
      requiresConfirmation: true,
      confirmBy: '2026-12-31',
      audienceHouses: ['Apps House'],
    });
    expect(await pullPost(admin.client, plain.id)).toMatchObject({ requiresConfirmation: false, confirmBy: null });
  });

  it('takes a post written offline that requires confirmation from an admin once, and refuses it from staff', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const member = await t.signedIn();
    const other = await t.signedIn();
    await t.setHouses(member.user.id, ['Apps House']);
    await t.setHouses(other.user.id, ['Flora Innes House']);
    const doc = newPostDoc({ requiresConfirmation: true, confirmBy: '2026-12-31', audienceHouses: ['Apps House'] });
    for (let i = 0; i < 2; i += 1) {
      const res = await admin.client.post('/api/sync/posts/push', [
        { newDocumentState: doc, assumedMasterState: null },
      ]);
      expect(res.body.conflicts).toEqual(i === 0 ? [] : [await pullPost(admin.client, doc.id)]);
    }
    expect((await outstandingOf(member.client)).map((o) => o.postId)).toEqual([doc.id]);
    expect((await outstandingOf(other.client)).map((o) => o.postId)).not.toContain(doc.id);

    const refused = newPostDoc({ requiresConfirmation: true });
    const res = await member.client.post('/api/sync/posts/push', [
      { newDocumentState: refused, assumedMasterState: null },
    ]);
    expect(res.body.conflicts).toEqual([{ ...refused, _deleted: true }]);
  });

  it('narrows the audience and removes the confirmation of a post that is not urgent through sync', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const stays = await t.signedIn();
    const leaves = await t.signedIn();
    await t.setHouses(stays.user.id, ['Apps House']);
    await t.setHouses(leaves.user.id, ['Flora Innes House']);
    const post = await confirmPostBy(admin.client, { audienceHouses: ['Apps House', 'Flora Innes House'] });
    const master = await pullPost(admin.client, post.id);
    const narrowed = { ...master, audienceHouses: ['Apps House'], updatedAt: master.updatedAt + 1 };
    const res = await admin.client.post('/api/sync/posts/push', [
      { newDocumentState: narrowed, assumedMasterState: master },
    ]);
    expect(res.body.conflicts).toEqual([]);
    expect((await outstandingOf(stays.client)).map((o) => o.postId)).toContain(post.id);
    expect((await outstandingOf(leaves.client)).map((o) => o.postId)).not.toContain(post.id);

    const next = await pullPost(admin.client, post.id);
    const removed = { ...next, requiresConfirmation: false, confirmBy: null, updatedAt: next.updatedAt + 1 };
    await admin.client.post('/api/sync/posts/push', [{ newDocumentState: removed, assumedMasterState: next }]);
    expect(await pullPost(admin.client, post.id)).toMatchObject({ requiresConfirmation: false, audienceHouses: [] });
    expect((await outstandingOf(stays.client)).map((o) => o.postId)).not.toContain(post.id);
  });
});

describe('the confirmation report and overview', () => {
  it('groups by house with percentages, and exports a CSV whose cells cannot run as formulas', async () => {
    await withFreshServer(async (s) => {
      const admin = await s.signedIn({ role: 'admin', firstName: 'Ada' });
      const a = await s.signedIn({ firstName: '=HYPERLINK("http://evil.example","x")', lastName: '+1+1' });
      const b = await s.signedIn({ firstName: 'Bo', lastName: 'Brown' });
      const c = await s.signedIn({ firstName: 'Cy', lastName: 'Cole' });
      await s.setHouses(a.user.id, ['Apps House']);
      await s.setHouses(b.user.id, ['Apps House', 'Flora Innes House']);
      await s.setHouses(c.user.id, ['Flora Innes House']);
      const post = await confirmPostBy(admin.client, {
        audienceHouses: ['Apps House', 'Flora Innes House'],
        confirmBy: '2020-01-01',
      });
      await b.client.post(`/api/posts/${post.id}/confirm`);
      const report = (await admin.client.get(`/api/posts/${post.id}/confirmations`))
        .body as unknown as ConfirmationReport;
      expect(report.totals).toEqual({ audience: 3, confirmed: 1, pending: 2, percent: 33 });
      expect(report.groups.map((g) => [g.house, g.audience, g.confirmed, g.percent])).toEqual([
        ['Apps House', 2, 1, 50],
        ['Flora Innes House', 2, 1, 50],
      ]);
      const bo = report.groups[0].members.find((m) => m.userId === b.user.id);
      expect(bo).toMatchObject({ confirmedAt: expect.any(String), receivedAt: expect.any(String), remindersSent: 0 });

      const res = await admin.client.get(`/api/posts/${post.id}/confirmations.csv`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="post-${post.id}-confirmations.csv"`);
      expect(res.headers.get('content-length')).toBeNull();
      const lines = res.text.trimEnd().split('\r\n');
      expect(lines[0]).toBe(
        '"House","First name","Last name","Houses","Active","Requested at","Confirmed at","Received at","Reminders sent"',
      );
      expect(lines).toHaveLength(5);
      expect(res.text).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")","'+1+1"`);
    });
  });

  it('lists every post requiring confirmation, by house and overdue only', async () => {
    await withFreshServer(async (s) => {
      const admin = await s.signedIn({ role: 'admin' });
      const apps = await s.signedIn();
      const flora = await s.signedIn();
      await s.setHouses(apps.user.id, ['Apps House']);
      await s.setHouses(flora.user.id, ['Flora Innes House']);
      const overdue = await confirmPostBy(admin.client, { audienceHouses: ['Apps House'], confirmBy: '2020-01-01' });
      const later = await confirmPostBy(admin.client, {
        audienceHouses: ['Flora Innes House'],
        confirmBy: '2099-01-01',
      });
      const done = await confirmPostBy(admin.client, {
        audienceHouses: ['Flora Innes House'],
        confirmBy: '2020-01-01',
      });
      await flora.client.post(`/api/posts/${done.id}/confirm`);
      await admin.client.post('/api/posts', { content: 'Not asked' });

      const all = (await admin.client.get('/api/confirmations')).body as unknown as ConfirmationOverviewItem[];
      expect(all.map((i) => [i.postId, i.percent, i.overdue])).toEqual([
        [done.id, 100, false],
        [later.id, 0, false],
        [overdue.id, 0, true],
      ]);
      const onlyOverdue = (await admin.client.get('/api/confirmations?overdue=1'))
        .body as unknown as ConfirmationOverviewItem[];
      expect(onlyOverdue.map((i) => i.postId)).toEqual([overdue.id]);
      const floraOnly = (await admin.client.get(`/api/confirmations?house=${encodeURIComponent('Flora Innes House')}`))
        .body as unknown as ConfirmationOverviewItem[];
      expect(floraOnly.map((i) => [i.postId, i.audience, i.confirmed])).toEqual([
        [done.id, 1, 1],
        [later.id, 1, 0],
      ]);
    });
  });

  it('lists the user’s outstanding posts with the earliest due first, undated last', async () => {
    const admin = await t.signedIn({ role: 'admin' });
    const reader = await t.signedIn();
    const undated = await confirmPostBy(admin.client);
    const late = await confirmPostBy(admin.client, { confirmBy: '2031-06-01' });
    const soon = await confirmPostBy(admin.client, { confirmBy: '2031-01-01' });
    const ids = (await outstandingOf(reader.client)).map((o) => o.postId);
    const mine = ids.filter((id) => [undated.id, late.id, soon.id].includes(id));
    expect(mine).toEqual([soon.id, late.id, undated.id]);
  });
});

/** The instant at `hour`:30 on `day` in London. */
function londonAt(day: string, hour: number): number {
  const guess = Date.parse(`${day}T${String(hour).padStart(2, '0')}:30:00Z`);
  for (const shift of [0, -1, 1, -2, 2]) {
    const at = guess + shift * 3_600_000;
    const local = localDayAndHour(at, 'Europe/London');
    if (local.day === day && local.hour === hour) return at;
  }
  throw new Error(`no ${hour}:30 on ${day} in London`);
}

const addDays = (day: string, n: number) =>
  new Date(Date.parse(`${day}T12:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);

describe('confirmation reminders', () => {
  it('push on the due date, then once a day, never in quiet hours, at most 5, never to those who confirmed', async () => {
    await withFreshServer(
      async (s) => {
        const admin = await s.signedIn({ role: 'admin', firstName: 'Ada' });
        const waiting = await s.signedIn();
        const done = await s.signedIn();
        await waiting.client.post('/api/push/subscribe', receiver.subscription('confirm-waiting'));
        await done.client.post('/api/push/subscribe', receiver.subscription('confirm-done'));
        const due = addDays(localDayAndHour(s.server.deps.now(), 'Europe/London').day, 2);
        const post = await confirmPostBy(admin.client, { confirmBy: due });
        await done.client.post(`/api/posts/${post.id}/confirm`);
        const at = (day: string, hour: number) => s.advance(londonAt(day, hour) - s.server.deps.now());
        const check = () => s.server.confirmReminders.check();

        at(addDays(due, -1), 12);
        expect(await check()).toBe(0);
        at(due, 3);
        expect(await check()).toBe(0); // quiet hours
        at(due, 8);
        // The waiting member and the first System Administrator (who has no device).
        expect(await check()).toBe(2);
        at(due, 15);
        expect(await check()).toBe(0); // once a day
        at(due, 23);
        expect(await check()).toBe(0);
        at(addDays(due, 1), 6);
        expect(await check()).toBe(0); // quiet hours
        at(addDays(due, 1), 7);
        expect(await check()).toBe(2);
        for (let n = 2; n <= 4; n += 1) {
          at(addDays(due, n), 12);
          expect(await check()).toBe(2);
        }
        at(addDays(due, 5), 12);
        expect(await check()).toBe(0); // five sent
        await s.settlePushes();
        const reminders = () =>
          receiver
            .of('confirm-waiting')
            .filter((p) => (p.payload as { data: { type: string } }).data.type === 'confirm_reminder');
        expect(reminders()).toHaveLength(5);
        expect(reminders()[0].payload).toEqual({
          title: 'Please confirm you have read a post',
          body: 'A post from Ada asks you to confirm you have read it. Open Staff Portal to read and confirm.',
          tag: `confirm-${post.id}`,
          data: { type: 'confirm_reminder', postId: post.id },
        });
        const doneTypes = receiver.of('confirm-done').map((p) => (p.payload as { data: { type: string } }).data.type);
        expect(doneTypes).not.toContain('confirm_reminder');
      },
      { PUSH_ALLOW_HOSTS: receiver.origin },
    );
  });

  it('pushes each reminder once when two checks run at the same moment, as two servers without the lock would', async () => {
    await withFreshServer(
      async (s) => {
        const admin = await s.signedIn({ role: 'admin', firstName: 'Ada' });
        const members = [await s.signedIn(), await s.signedIn()];
        for (const [i, member] of members.entries()) {
          await member.client.post('/api/push/subscribe', receiver.subscription(`confirm-twice-${i}`));
        }
        const due = addDays(localDayAndHour(s.server.deps.now(), 'Europe/London').day, 2);
        await confirmPostBy(admin.client, { confirmBy: due });
        const at = (day: string, hour: number) => s.advance(londonAt(day, hour) - s.server.deps.now());
        const check = () => sendDueConfirmReminders(s.server.deps);
        await s.settlePushes();
        // Before the due date there is nothing to send; the pair also readies two connections, so that on PostgreSQL
        // too the pair below reads the due rows at the same moment.
        at(addDays(due, -1), 12);
        expect(await Promise.all([check(), check()])).toEqual([0, 0]);
        at(due, 12);
        const sent = await Promise.all([check(), check()]);
        await s.settlePushes();
        for (const i of members.keys()) {
          const types = receiver.of(`confirm-twice-${i}`).map((p) => p.payload.data.type);
          expect(types.filter((type) => type === 'confirm_reminder')).toHaveLength(1);
        }
        // The two members and the first System Administrator (who has no device), each counted by one of the checks.
        expect(sent[0] + sent[1]).toBe(3);
      },
      { PUSH_ALLOW_HOSTS: receiver.origin },
    );
  });

  it('reads the provider’s time zone from TIME_ZONE and refuses an unknown one', async () => {
    const { loadConfig } = await import('../../config');
    expect(loadConfig({}).timeZone).toBe('Europe/London');
    expect(loadConfig({ TIME_ZONE: 'Europe/Paris' }).timeZone).toBe('Europe/Paris');
    expect(() => loadConfig({ TIME_ZONE: 'Mars/Olympus' })).toThrow(
      'TIME_ZONE: must be a time zone name such as Europe/London',
    );
  });
});
