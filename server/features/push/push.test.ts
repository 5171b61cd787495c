import { createECDH, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH_MESSAGES } from '../../../schema/push';
import { ConfigError, loadConfig } from '../../config';
import { startServer } from '../../server';
import { decryptPushBody, startPushReceiver, type PushReceiver } from '../../test/push-receiver';
import { newPostDoc } from '../../test/sync-docs';
import { actorOf, startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import {
  chatPush,
  flushHeldPushes,
  PUSH_OPTIONS,
  pushToUsers,
  sendTestNotification,
  settlePushes,
} from './push.service';
import { inTransaction, statement } from '../../db/client';
import { listBursts } from './push.queries';

let t: TestServer;
let receiver: PushReceiver;
/** An allowed origin where nothing listens: a push service that cannot be reached. */
const UNREACHABLE = 'http://127.0.0.1:9';

beforeAll(async () => {
  receiver = await startPushReceiver();
  t = await startTestServer({ PUSH_ALLOW_HOSTS: `${receiver.origin}, ${UNREACHABLE}` });
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

let devices = 0;
/** A signed-in user whose browser subscribed to push; answers the device name its pushes arrive under. */
async function subscribed(overrides: Parameters<TestServer['signedIn']>[0] = {}) {
  const signed = await t.signedIn(overrides);
  devices += 1;
  const device = `device-${devices}`;
  const res = await signed.client.post('/api/push/subscribe', receiver.subscription(device));
  expect(res.status).toBe(201);
  return { ...signed, device };
}

const subscriptionsOf = async (userId: string) =>
  (
    (await statement(t.db, 'SELECT count(*) AS n FROM push_subscriptions WHERE user_id = ?').get([userId])) as {
      n: number;
    }
  ).n;

describe('access to the push calls', () => {
  it.each([
    ['GET', '/api/push/vapid-public-key'],
    ['GET', '/api/push/subscription-status'],
    ['POST', '/api/push/subscribe', { endpoint: 'https://push.example/x', keys: {} }],
    ['POST', '/api/push/unsubscribe', { endpoint: 'https://push.example/x' }],
    ['POST', '/api/test-notification/someone', {}],
  ])('%s %s answers 401 when signed out', async (method, url, body?: unknown) => {
    const res = await t.client().request(method, url, body);
    expect(res.status).toBe(401);
  });
});

describe('PUSH_ALLOW_HOSTS', () => {
  it('is a comma-separated list of origins, and anything else stops the server at start', () => {
    const config = loadConfig({ PUSH_ALLOW_HOSTS: 'http://127.0.0.1:4000/, https://push.test.example' });
    expect(config.pushAllowOrigins).toEqual(['http://127.0.0.1:4000', 'https://push.test.example']);
    expect(loadConfig({}).pushAllowOrigins).toEqual([]);
    expect(() => loadConfig({ PUSH_ALLOW_HOSTS: 'http://127.0.0.1:4000/push' })).toThrow(ConfigError);
    expect(() => loadConfig({ PUSH_ALLOW_HOSTS: 'localhost' })).toThrow(/PUSH_ALLOW_HOSTS/);
  });
});

describe('PUSH_SERVICE_HOSTS and PUSH_ALLOW_LOOPBACK', () => {
  it('default to the browsers’ push services and no loopback; a bad host stops the server at start', () => {
    const config = loadConfig({});
    expect(config.pushServiceHosts).toEqual([
      'fcm.googleapis.com',
      'updates.push.services.mozilla.com',
      '*.push.apple.com',
      '*.notify.windows.com',
    ]);
    expect(config.pushAllowLoopback).toBe(false);
    expect(loadConfig({ PUSH_SERVICE_HOSTS: ' Push.Example.org, *.push.example.net ' }).pushServiceHosts).toEqual([
      'push.example.org',
      '*.push.example.net',
    ]);
    expect(loadConfig({ PUSH_ALLOW_LOOPBACK: 'true' }).pushAllowLoopback).toBe(true);
    for (const bad of ['https://fcm.googleapis.com', 'fcm.googleapis.com:443', '*', '127.0.0.1', ',']) {
      expect(() => loadConfig({ PUSH_SERVICE_HOSTS: bad })).toThrow(/PUSH_SERVICE_HOSTS/);
    }
    expect(() => loadConfig({ PUSH_ALLOW_LOOPBACK: 'yes' })).toThrow(/PUSH_ALLOW_LOOPBACK/);
  });
});

describe('VAPID keys', () => {
  it('are made on first start, kept in the database and the same after a restart', async () => {
    const fresh = await startTestServer();
    try {
      const { client } = await fresh.signedIn();
      const res = await client.get('/api/push/vapid-public-key');
      expect(res.status).toBe(200);
      const { publicKey } = res.body as { publicKey: string };
      expect(Buffer.from(publicKey, 'base64url')).toHaveLength(65);
      const stored = await statement(fresh.db, "SELECT value FROM settings WHERE key = 'vapid_public_key'").get();
      expect(stored).toEqual({ value: publicKey });

      await fresh.server.close();
      // The same database again: on the PostgreSQL pass of the suite it is not in the data folder.
      const databaseUrl = fresh.server.deps.config.databaseUrl;
      const config = loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: fresh.dataDir,
        LOG_LEVEL: 'silent',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      });
      const again = await startServer(config, { clientDir: `${fresh.dataDir}/no-client` });
      try {
        const row = await statement(again.deps.db, "SELECT value FROM settings WHERE key = 'vapid_public_key'").get();
        expect(row).toEqual({ value: publicKey });
      } finally {
        await again.close();
      }
    } finally {
      await fresh.smtp.close();
      fs.rmSync(fresh.dataDir, { recursive: true, force: true });
    }
  });
});

describe('subscribe, status and unsubscribe', () => {
  it('stores a subscription and reports it by count only, never with its endpoint or keys', async () => {
    const { client } = await t.signedIn();
    const before = await client.get('/api/push/subscription-status');
    expect(before.body).toEqual({ hasSubscription: false, debug: { subscriptionCount: 0 } });
    const subscription = receiver.subscription('status-device');
    const res = await client.post('/api/push/subscribe', subscription);
    expect(res.status).toBe(201);
    const status = await client.get('/api/push/subscription-status');
    expect(status.body).toEqual({ hasSubscription: true, debug: { subscriptionCount: 1 } });
    for (const text of [res.text, status.text]) {
      expect(text).not.toContain(subscription.endpoint);
      expect(text).not.toContain(subscription.keys.p256dh);
      expect(text).not.toContain(subscription.keys.auth);
    }
    const off = await client.post('/api/push/unsubscribe', { endpoint: subscription.endpoint });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ hasSubscription: false, debug: { subscriptionCount: 0 } });
  });

  it.each([
    ['plain http outside the allow-list', { endpoint: 'http://push.example/x' }, PUSH_MESSAGES.endpointHttps],
    ['an address instead of a domain', { endpoint: 'https://10.0.0.1/x' }, PUSH_MESSAGES.endpointHttps],
    ['localhost', { endpoint: 'https://localhost/x' }, PUSH_MESSAGES.endpointHttps],
    ['not a URL', { endpoint: 'push me' }, PUSH_MESSAGES.endpointInvalid],
    ['a short p256dh key', { keys: { p256dh: 'abc', auth: 'A'.repeat(22) } }, PUSH_MESSAGES.p256dhInvalid],
    ['an auth secret that is not base64url', { keys: { auth: '!'.repeat(22) } }, PUSH_MESSAGES.authInvalid],
  ])('refuses %s (400)', async (_label, change: Record<string, unknown>, message) => {
    const { client } = await t.signedIn();
    const good = receiver.subscription('never-used');
    const body = {
      ...good,
      endpoint: 'https://fcm.googleapis.com/fcm/send/1',
      ...change,
      keys: { ...good.keys, ...(change.keys as object) },
    };
    const res = await client.post('/api/push/subscribe', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it.each([
    ['a host name of the local network', 'https://vm:9443/push/x'],
    ['a host that is not a push service', 'https://push.example/send/1'],
    ['a push service on another port', 'https://fcm.googleapis.com:8443/fcm/send/1'],
    ['a push service’s name inside another domain', 'https://fcm.googleapis.com.example.net/fcm/send/1'],
    ['a push service’s domain itself where only its subdomains are', 'https://push.apple.com/3/x'],
    ['credentials in the URL', 'https://user:pw@fcm.googleapis.com/fcm/send/1'],
    ['plain http to a push service', 'http://fcm.googleapis.com/fcm/send/1'],
  ])('refuses %s with a clear message (400)', async (_label, endpoint) => {
    const { client } = await t.signedIn();
    const res = await client.post('/api/push/subscribe', { ...receiver.subscription('never-used'), endpoint });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'validation_failed', message: PUSH_MESSAGES.endpointHttps });
  });

  it.each([
    ['Chrome', 'https://fcm.googleapis.com/fcm/send/abc'],
    ['Firefox', 'https://updates.push.services.mozilla.com/wpush/v2/abc'],
    ['Safari', 'https://web.push.apple.com/QAbc'],
    ['Edge on Windows', 'https://wns2-par02p.notify.windows.com/w/?token=abc'],
  ])('accepts the push service %s uses', async (_browser, endpoint) => {
    const { client } = await t.signedIn();
    const res = await client.post('/api/push/subscribe', { ...receiver.subscription('never-sent'), endpoint });
    expect(res.status).toBe(201);
    // Never left behind: a later push to everyone must not try to reach a real push service from a test.
    expect((await client.post('/api/push/unsubscribe', { endpoint })).status).toBe(200);
  });

  it('takes its push services from PUSH_SERVICE_HOSTS', async () => {
    const own = await startTestServer({ PUSH_SERVICE_HOSTS: 'push.example.org,*.push.example.net' });
    try {
      const { client } = await own.signedIn();
      const { keys } = receiver.subscription('configured');
      const post = (endpoint: string) => client.post('/api/push/subscribe', { endpoint, keys });
      expect((await post('https://push.example.org/x')).status).toBe(201);
      expect((await post('https://eu.push.example.net/x')).status).toBe(201);
      expect((await post('https://fcm.googleapis.com/fcm/send/x')).status).toBe(400);
    } finally {
      await own.close();
    }
  });

  it('accepts an https push service with padded keys', async () => {
    const { client } = await t.signedIn();
    const { keys } = receiver.subscription('padded');
    const res = await client.post('/api/push/subscribe', {
      endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
      keys: { p256dh: `${keys.p256dh}=`, auth: `${keys.auth}==` },
      expirationTime: null,
    });
    expect(res.status).toBe(201);
    // Never left behind: a later push to everyone must not try to reach a real push service from a test.
    expect(
      (await client.post('/api/push/unsubscribe', { endpoint: 'https://fcm.googleapis.com/fcm/send/abc' })).status,
    ).toBeLessThan(300);
  });

  it('moves an endpoint to whoever subscribes it last, and leaves someone else’s endpoint alone on unsubscribe', async () => {
    const first = await t.signedIn();
    const second = await t.signedIn();
    const subscription = receiver.subscription('shared-browser');
    await first.client.post('/api/push/subscribe', subscription);
    await second.client.post('/api/push/subscribe', subscription);
    expect([await subscriptionsOf(first.user.id), await subscriptionsOf(second.user.id)]).toEqual([0, 1]);
    await first.client.post('/api/push/unsubscribe', { endpoint: subscription.endpoint });
    expect(await subscriptionsOf(second.user.id)).toBe(1);
    expect((await first.client.post('/api/push/unsubscribe', {})).status).toBe(400);
  });

  it('keeps a user’s newest ten subscriptions', async () => {
    const { user, client } = await t.signedIn();
    for (let i = 0; i < 12; i += 1) {
      t.advance(1);
      await client.post('/api/push/subscribe', receiver.subscription(`many-${i}`));
    }
    const endpoints = (await statement(t.db, 'SELECT endpoint FROM push_subscriptions WHERE user_id = ?').all([
      user.id,
    ])) as { endpoint: string }[];
    expect(endpoints).toHaveLength(10);
    expect(endpoints.some((row) => row.endpoint.endsWith('/many-0'))).toBe(false);
    expect(endpoints.some((row) => row.endpoint.endsWith('/many-11'))).toBe(true);
  });
});

describe('POST /api/test-notification/{userId}', () => {
  it('sends the server’s own text to the signed-in user’s devices, whatever the client asks', async () => {
    const { user, client, device } = await subscribed();
    const res = await client.post(`/api/test-notification/${user.id}`, {
      title: 'Free money',
      body: 'Click here',
      urgent: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: 1 });
    const [push] = await receiver.waitFor(device);
    expect(push.payload).toEqual({
      title: 'Staff Portal',
      body: 'Push notifications are working on this device.',
      tag: 'test',
      data: { type: 'test' },
    });
  });

  it('refuses another user’s id (403)', async () => {
    const { client } = await t.signedIn();
    const other = await t.buildUser();
    const res = await client.post(`/api/test-notification/${other.id}`, {});
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(PUSH_MESSAGES.testOwnOnly);
  });

  it('allows three in ten minutes, then answers 429 until the window has passed', async () => {
    const { user, client } = await t.signedIn();
    for (let i = 0; i < 3; i += 1) expect((await client.post(`/api/test-notification/${user.id}`)).status).toBe(200);
    const limited = await client.post(`/api/test-notification/${user.id}`);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: 'rate_limited', message: PUSH_MESSAGES.testRateLimited(10) });
    expect(limited.headers.get('retry-after')).toBe('600');
    t.advance(10 * 60_000 + 1);
    expect((await client.post(`/api/test-notification/${user.id}`)).status).toBe(200);
  });

  it('counts the sends kept in the database, so the limit holds whichever server answers', async () => {
    const { user, client } = await t.signedIn();
    for (let i = 0; i < 2; i += 1) expect((await client.post(`/api/test-notification/${user.id}`)).status).toBe(200);
    // A second server on the same database: its own memory, the same rows.
    const second = { ...t.server.deps };
    expect((await sendTestNotification(second, actorOf(user), user.id)).sent).toBe(0);
    await expect(sendTestNotification(second, actorOf(user), user.id)).rejects.toThrow(
      PUSH_MESSAGES.testRateLimited(10),
    );
    expect((await client.post(`/api/test-notification/${user.id}`)).status).toBe(429);
  });
});

describe('the test receiver', () => {
  it('decrypts what web-push encrypts for a key pair, and refuses a body made for another secret', () => {
    const browser = createECDH('prime256v1');
    browser.generateKeys();
    const auth = randomBytes(16);
    const target = {
      endpoint: 'https://push.example/x',
      keys: { p256dh: browser.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
    };
    const vapidDetails = { subject: 'mailto:a@b.example', ...webpush.generateVAPIDKeys() };
    const { body } = webpush.generateRequestDetails(target, '{"hello":"world"}', {
      vapidDetails,
      contentEncoding: 'aes128gcm',
    });
    expect(decryptPushBody(body, browser, auth).toString()).toBe('{"hello":"world"}');
    expect(() => decryptPushBody(body, browser, randomBytes(16))).toThrow();
  });
});

describe('pushes and the transaction that asks for them', () => {
  const push = (deps: TestServer['server']['deps'], userId: string) =>
    pushToUsers(deps, [userId], chatPush('Sam', 'a-conversation'), PUSH_OPTIONS.chat);

  it('leave only once it has committed: a phone opened by one finds the change there', async () => {
    const recipient = await subscribed({ firstName: 'Rita' });
    await inTransaction(t.server.deps, async (deps) => {
      await push(deps, recipient.user.id);
      // Long enough for a send that did not wait to reach the receiver.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.of(recipient.device)).toEqual([]);
    });
    expect(await receiver.waitFor(recipient.device)).toHaveLength(1);
  });

  it('count their burst after the commit, outside the transaction that asked for them', async () => {
    const recipient = await subscribed({ firstName: 'Rhea' });
    const coalescing = {
      key: 'chat:after-commit',
      summary: { kind: 'chat', senderFirstName: 'Sam', conversationId: 'c2' },
    } as const;
    await inTransaction(t.server.deps, async (deps) => {
      await pushToUsers(deps, [recipient.user.id], chatPush('Sam', 'c2'), PUSH_OPTIONS.chat, coalescing);
      expect(await listBursts(deps.db, coalescing.key, [recipient.user.id])).toEqual([]);
    });
    await t.settlePushes();
    expect(await listBursts(t.server.deps.db, coalescing.key, [recipient.user.id])).toMatchObject([{ sent: 1 }]);
    expect(receiver.of(recipient.device)).toHaveLength(1);
  });

  it('never leave when it rolls back, nor when the savepoint they were asked in does', async () => {
    const recipient = await subscribed({ firstName: 'Rob' });
    await expect(
      inTransaction(t.server.deps, async (deps) => {
        await push(deps, recipient.user.id);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await inTransaction(t.server.deps, async (deps) => {
      await inTransaction(deps, async (deps) => {
        await push(deps, recipient.user.id);
        throw new Error('this row only');
      }).catch(() => undefined);
    });
    await t.settlePushes();
    expect(receiver.of(recipient.device)).toEqual([]);
  });
});

describe('the whole push path', () => {
  it('delivers a chat message to its recipient’s device, encrypted (RFC 8291) and signed (VAPID), without its content', async () => {
    const recipient = await subscribed({ firstName: 'Rita' });
    const sender = await subscribed({ firstName: 'Sam' });
    const conversation = await sender.client.post('/api/conversations', { participantId: recipient.user.id });
    const res = await sender.client.post(`/api/conversations/${conversation.body.id as string}/messages`, {
      content: 'Mrs B needs her inhaler',
    });
    expect(res.status).toBe(201);
    const [push] = await receiver.waitFor(recipient.device);
    expect(push.payload).toEqual({
      title: 'New message from Sam',
      body: 'Open Staff Portal to read it.',
      tag: `chat-${conversation.body.id as string}`,
      data: { type: 'chat', conversationId: conversation.body.id },
    });
    expect(JSON.stringify(push.payload)).not.toContain('inhaler');
    expect(push.headers.urgency).toBe('high');
    const { publicKey } = (await sender.client.get('/api/push/vapid-public-key')).body as { publicKey: string };
    expect(push.vapid.key).toBe(publicKey);
    expect(push.vapid.claims).toMatchObject({ aud: receiver.origin, sub: 'mailto:support@example.org' });
    await t.settlePushes();
    expect(receiver.of(sender.device)).toEqual([]);
  });

  it('delivers an urgent post to its audience, never its author, and no content', async () => {
    const houseMember = await subscribed({ firstName: 'Hal' });
    const elsewhere = await subscribed({ firstName: 'Ed' });
    const author = await subscribed({ firstName: 'Una', role: 'admin' });
    await t.setHouses(houseMember.user.id, ['Giles House']);
    await t.setHouses(elsewhere.user.id, ['The Lodges']);
    const res = await author.client.post('/api/posts', {
      content: 'Fire alarm at Giles House: evacuate residents',
      isUrgent: true,
      audienceHouses: ['Giles House'],
    });
    expect(res.status).toBe(201);
    const [push] = await receiver.waitFor(houseMember.device);
    expect(push.payload).toEqual({
      title: 'Emergency alert',
      body: 'New urgent message from Una. Open Staff Portal to read and acknowledge it.',
      tag: `urgent-${res.body.id as string}`,
      data: { type: 'urgent', postId: res.body.id, urgent: true },
    });
    expect(JSON.stringify(push.payload)).not.toMatch(/Fire|evacuate/);
    await t.settlePushes();
    expect(receiver.of(elsewhere.device)).toEqual([]);
    expect(receiver.of(author.device)).toEqual([]);
  });

  it('delivers a Company Announcement to every active colleague but its author; other posts push nothing', async () => {
    const reader = await subscribed();
    const author = await subscribed({ firstName: 'Ann', role: 'admin' });
    const inactive = await subscribed();
    await statement(t.db, 'UPDATE users SET is_active = FALSE WHERE id = ?').run([inactive.user.id]);
    await author.client.post('/api/posts', { content: 'Rota for May', category: 'shifts_lifts' });
    const res = await author.client.post('/api/posts', { content: 'New uniform', category: 'company_announcement' });
    const [push] = await receiver.waitFor(reader.device);
    expect(push.payload).toEqual({
      title: 'Company announcement',
      body: 'New announcement from Ann.',
      tag: `announcement-${res.body.id as string}`,
      data: { type: 'announcement', postId: res.body.id },
    });
    await t.settlePushes();
    expect(receiver.of(reader.device)).toHaveLength(1);
    expect(receiver.of(author.device)).toEqual([]);
    expect(receiver.of(inactive.device)).toEqual([]);
  });

  it('drops a subscription the push service answers 410 Gone', async () => {
    const gone = await subscribed();
    receiver.answer(gone.device, 410);
    expect(await subscriptionsOf(gone.user.id)).toBe(1);
    await gone.client.post(`/api/test-notification/${gone.user.id}`);
    await receiver.waitFor(gone.device);
    await t.settlePushes();
    expect(await subscriptionsOf(gone.user.id)).toBe(0);
    expect((await gone.client.get('/api/push/subscription-status')).body).toMatchObject({ hasSubscription: false });
  });

  it('never fails the request that caused a push when the push service cannot be reached', async () => {
    const { user, client } = await t.signedIn();
    const { keys } = receiver.subscription('unreachable');
    expect((await client.post('/api/push/subscribe', { endpoint: `${UNREACHABLE}/push/x`, keys })).status).toBe(201);
    const res = await client.post(`/api/test-notification/${user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sent: 1 });
    await t.settlePushes();
    expect(await subscriptionsOf(user.id)).toBe(1); // an unreachable service is not a gone subscription
  });
});

describe('the address a push connects to', () => {
  it('refuses a host name that resolves to a loopback address unless the test allowance is on, and forgets it', async () => {
    const localhost = receiver.origin.replace('127.0.0.1', 'localhost');
    for (const allowLoopback of ['false', 'true']) {
      const own = await startTestServer({ PUSH_ALLOW_HOSTS: localhost, PUSH_ALLOW_LOOPBACK: allowLoopback });
      try {
        const { user, client } = await own.signedIn();
        const device = `localhost-${allowLoopback}`;
        const subscription = receiver.subscription(device);
        const endpoint = subscription.endpoint.replace(receiver.origin, localhost);
        expect((await client.post('/api/push/subscribe', { ...subscription, endpoint })).status).toBe(201);
        expect((await client.post(`/api/test-notification/${user.id}`)).body).toEqual({ sent: 1 });
        await own.settlePushes();
        const left = (await statement(own.db, 'SELECT count(*) AS n FROM push_subscriptions WHERE user_id = ?').get([
          user.id,
        ])) as { n: number };
        if (allowLoopback === 'false') {
          expect(receiver.of(device)).toEqual([]);
          expect(left.n).toBe(0);
        } else {
          expect(receiver.of(device)).toHaveLength(1);
          expect(left.n).toBe(1);
        }
      } finally {
        await own.close();
      }
    }
  });
});

describe('pushes one person causes to a colleague in a minute', () => {
  it('sends the first three of 50 announcements pushed in one request, then one summary saying how many more', async () => {
    const colleagues = [await subscribed(), await subscribed()];
    const author = await subscribed({ firstName: 'Ann', role: 'admin' });
    const rows = Array.from({ length: 50 }, (_, i) => ({
      newDocumentState: newPostDoc({ authorId: author.user.id, content: `Notice ${i}` }),
      assumedMasterState: null,
    }));
    const res = await author.client.post('/api/sync/posts/push', rows);
    expect(res.status).toBe(200);
    expect(res.body.conflicts).toEqual([]);
    await t.settlePushes();
    for (const { device } of colleagues) {
      expect(receiver.of(device).map((push) => push.payload.title)).toEqual(Array(3).fill('Company announcement'));
    }

    // Still within the minute: nothing more goes out.
    t.advance(30_000);
    await t.server.heldPushes.flush();
    await t.settlePushes();
    expect(receiver.of(colleagues[0].device)).toHaveLength(3);

    t.advance(30_000);
    expect(await t.server.heldPushes.flush()).toBeGreaterThanOrEqual(2);
    await t.settlePushes();
    for (const { device } of colleagues) {
      const pushes = receiver.of(device);
      expect(pushes).toHaveLength(4);
      expect(pushes[3].payload).toEqual({
        title: 'Company announcements',
        body: '47 more new announcements from Ann.',
        tag: 'announcements',
        data: { type: 'announcement' },
      });
      expect(JSON.stringify(pushes.map((push) => push.payload))).not.toContain('Notice');
    }
    expect(receiver.of(author.device)).toEqual([]);
  });

  it('never holds an emergency alert, even from someone over their limit', async () => {
    const colleague = await subscribed();
    const author = await subscribed({ firstName: 'Una', role: 'admin' });
    for (let i = 0; i < 5; i += 1) {
      expect((await author.client.post('/api/posts', { content: `Announcement ${i}` })).status).toBe(201);
    }
    const alert = await author.client.post('/api/posts', { content: 'Fire drill now', isUrgent: true });
    expect(alert.status).toBe(201);
    await receiver.waitFor(colleague.device, 4);
    await t.settlePushes();
    const pushes = receiver.of(colleague.device);
    expect(pushes.map((push) => push.payload.title).sort()).toEqual([
      ...Array(3).fill('Company announcement'),
      'Emergency alert',
    ]);
    const urgent = pushes.find((push) => push.payload.title === 'Emergency alert');
    expect(urgent?.payload.tag).toBe(`urgent-${alert.body.id as string}`);
    expect(urgent?.headers.urgency).toBe('high');
    t.advance(60_000);
    await t.server.heldPushes.flush();
    await t.settlePushes();
    expect(receiver.of(colleague.device).at(-1)?.payload.body).toBe('2 more new announcements from Una.');
  });

  it('sums up a burst of chat messages in one push that replaces the conversation’s notification', async () => {
    const recipient = await subscribed();
    const sender = await subscribed({ firstName: 'Sam' });
    const conversation = await sender.client.post('/api/conversations', { participantId: recipient.user.id });
    const id = conversation.body.id as string;
    for (let i = 0; i < 4; i += 1) {
      expect((await sender.client.post(`/api/conversations/${id}/messages`, { content: `Hi ${i}` })).status).toBe(201);
    }
    await t.settlePushes();
    expect(receiver.of(recipient.device)).toHaveLength(3);
    t.advance(60_000);
    await t.server.heldPushes.flush();
    await t.settlePushes();
    expect(receiver.of(recipient.device).at(-1)?.payload).toEqual({
      title: 'New messages from Sam',
      body: '1 more new message. Open Staff Portal to read them.',
      tag: `chat-${id}`,
      data: { type: 'chat', conversationId: id },
    });
    // A new minute starts a new budget.
    expect((await sender.client.post(`/api/conversations/${id}/messages`, { content: 'Later' })).status).toBe(201);
    await receiver.waitFor(recipient.device, 5);
  });

  it('counts a burst across servers: two servers sharing the database send three and one summary between them', async () => {
    const colleague = await subscribed();
    const one = t.server.deps;
    // Another server: its own configuration, so its own push machinery, on the same database.
    const other = { ...one, config: { ...one.config } };
    const coalescing = {
      key: 'chat:across-servers',
      summary: { kind: 'chat', senderFirstName: 'Sam', conversationId: 'c1' },
    } as const;
    for (const deps of [one, other, one, other, other]) {
      await pushToUsers(deps, [colleague.user.id], chatPush('Sam', 'c1'), PUSH_OPTIONS.chat, coalescing);
    }
    await settlePushes(other);
    await t.settlePushes();
    expect(receiver.of(colleague.device)).toHaveLength(3);
    t.advance(60_000);
    expect(await flushHeldPushes(other)).toBe(1);
    expect(await flushHeldPushes(one)).toBe(0);
    await settlePushes(other);
    expect(receiver.of(colleague.device).at(-1)?.payload.body).toBe(
      '2 more new messages. Open Staff Portal to read them.',
    );
  });

  it('sends what is still held when the server stops', async () => {
    const own = await startTestServer({ PUSH_ALLOW_HOSTS: receiver.origin });
    const { client } = await own.signedIn({ firstName: 'Ann', role: 'admin' });
    const colleague = await own.signedIn();
    const device = `stop-${colleague.user.id}`;
    expect((await colleague.client.post('/api/push/subscribe', receiver.subscription(device))).status).toBe(201);
    for (let i = 0; i < 5; i += 1)
      expect((await client.post('/api/posts', { content: `Notice ${i}` })).status).toBe(201);
    await own.close();
    expect(receiver.of(device).map((push) => push.payload.body)).toEqual([
      ...Array(3).fill('New announcement from Ann.'),
      '2 more new announcements from Ann.',
    ]);
  });
});

describe('deactivated and deleted users', () => {
  it('forgets the push subscriptions of a deactivated or deleted user', async () => {
    const deactivated = await subscribed();
    const deleted = await subscribed();
    const sysadmin: TestClient = (await t.signedIn({ role: 'system_admin' })).client;
    await sysadmin.patch(`/api/admin/users/${deactivated.user.id}/status`, { isActive: false });
    await sysadmin.delete(`/api/admin/users/${deleted.user.id}`);
    expect([await subscriptionsOf(deactivated.user.id), await subscriptionsOf(deleted.user.id)]).toEqual([0, 0]);
  });
});
