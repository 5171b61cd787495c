import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEPT_MAX_AGE_MS, KEPT_MESSAGES, keptLabel } from '../../../schema/kept';
import { startTestServer, TEST_PASSWORD, type TestServer } from '../../test/test-server';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const toBase64 = (bytes: ArrayBuffer | Uint8Array) => Buffer.from(bytes as ArrayBuffer).toString('base64');

/** Wraps a fresh AES key the way a browser does (WebCrypto RSA-OAEP with the label), answering both. */
async function wrapFor(userId: string, sealedAt: number) {
  const res = await t.client().get('/api/kept/key');
  const publicKey = await crypto.subtle.importKey(
    'spki',
    Buffer.from(String(res.body.publicKey), 'base64'),
    { name: 'RSA-OAEP', hash: 'SHA-256' },
    false,
    ['encrypt'],
  );
  const raw = crypto.getRandomValues(new Uint8Array(32));
  const wrapped = await crypto.subtle.encrypt(
    { name: 'RSA-OAEP', label: new TextEncoder().encode(keptLabel(userId, sealedAt)) },
    publicKey,
    raw,
  );
  return { raw: toBase64(raw), body: { sealedAt, wrappedKey: toBase64(wrapped) } };
}

describe('the session cookie', () => {
  it('lasts up to the session cap, so an app closed and opened again stays signed in', async () => {
    const user = await t.buildUser();
    const res = await t.client().post('/api/auth/login', { email: user.email, password: TEST_PASSWORD });
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sp_session='));
    expect(cookie).toMatch(/Max-Age=43200/);
    expect(cookie).toMatch(/HttpOnly/);
  });
});

describe('GET /api/kept/key', () => {
  it('answers the same public key to anyone, signed in or not', async () => {
    const first = await t.client().get('/api/kept/key');
    const { client } = await t.signedIn();
    const second = await client.get('/api/kept/key');
    expect(first.status).toBe(200);
    expect(second.body.publicKey).toBe(first.body.publicKey);
    expect(String(first.body.publicKey).length).toBeGreaterThan(300);
  });
});

describe('POST /api/kept/unseal', () => {
  it('gives the sealing key back to the user who sealed it', async () => {
    const { user, client } = await t.signedIn();
    const { raw, body } = await wrapFor(user.id, Date.now() - 60_000);
    const res = await client.post('/api/kept/unseal', body);
    expect(res.status).toBe(200);
    expect(res.body.key).toBe(raw);
  });

  it('refuses another user, whoever asks', async () => {
    const owner = await t.buildUser();
    const { client } = await t.signedIn();
    const { body } = await wrapFor(owner.id, Date.now());
    const res = await client.post('/api/kept/unseal', body);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ code: 'forbidden', message: KEPT_MESSAGES.notYours });
    expect(res.body).not.toHaveProperty('key');
  });

  it('refuses a sealing time other than the one the key was sealed with', async () => {
    const { user, client } = await t.signedIn();
    const { body } = await wrapFor(user.id, Date.now() - 1000);
    const res = await client.post('/api/kept/unseal', { ...body, sealedAt: body.sealedAt + 1 });
    expect(res.status).toBe(403);
  });

  it('answers 410 for work kept longer than fourteen days', async () => {
    const { user, client } = await t.signedIn();
    const { body } = await wrapFor(user.id, Date.now() - KEPT_MAX_AGE_MS - 60_000);
    const res = await client.post('/api/kept/unseal', body);
    expect(res.status).toBe(410);
    expect(res.body.message).toBe(KEPT_MESSAGES.expired);
  });

  it('answers 401 without a session and 400 for a malformed body', async () => {
    const user = await t.buildUser();
    const { body } = await wrapFor(user.id, Date.now());
    expect((await t.client().post('/api/kept/unseal', body)).status).toBe(401);
    const { client } = await t.signedIn();
    const bad = await client.post('/api/kept/unseal', { sealedAt: 'soon', wrappedKey: 'not base64!' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('validation_failed');
  });
});
