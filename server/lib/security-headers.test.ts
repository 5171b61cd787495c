import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../app';
import { serveClientApp } from '../test/client-app';
import { startTestServer, type TestServer } from '../test/test-server';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** Exactly what Hono's secureHeaders middleware sent with our options before decision 76. */
const EXPECTED: Record<string, string> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    "font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; frame-ancestors 'none'; " +
    "object-src 'none'; base-uri 'self'; form-action 'self'",
  'cross-origin-resource-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

function expectSecurityHeaders(headers: Headers, except: Record<string, string> = {}) {
  for (const [name, value] of Object.entries({ ...EXPECTED, ...except })) expect(headers.get(name), name).toBe(value);
}

describe('security headers', () => {
  it('are on a signed-in JSON answer, with no-store and without Strict-Transport-Security over HTTP', async () => {
    const { client } = await t.signedIn();
    const res = await client.get('/api/posts');
    expect(res.status).toBe(200);
    expectSecurityHeaders(res.headers);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('strict-transport-security')).toBeNull();
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('are on error answers: 401, 404, 400, 415 and 413', async () => {
    const anonymous = t.client();
    const { client } = await t.signedIn();
    const answers = [
      await anonymous.get('/api/auth/user'),
      await anonymous.get('/api/nothing-here'),
      await client.get('/api/posts?limit=abc'),
      await client.post('/api/posts', 'text', { 'content-type': 'text/plain' }),
      await anonymous.post('/api/auth/login', { email: 'a@b.co', password: 'x'.repeat(1_100_000) }),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 404, 400, 415, 413]);
    for (const res of answers) {
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('leave a route its own stricter policy and caching: an uploaded file is sandboxed', async () => {
    const { client } = await t.signedIn();
    const form = new FormData();
    form.append('file', new File(['plain words'], 'notes.txt'));
    const upload = await client.postForm('/api/uploads', form);
    expect(upload.status).toBe(201);
    const served = await client.download(upload.body.url as string);
    expect(served.status).toBe(200);
    expectSecurityHeaders(served.headers, { 'content-security-policy': "default-src 'none'; sandbox" });
    expect(served.headers.get('cache-control')).toMatch(/^private, /);
  });

  it('are on the live stream too, with its own policy', async () => {
    const { client } = await t.signedIn();
    const stream = await client.openStream();
    try {
      expect(stream.status).toBe(200);
      expectSecurityHeaders(stream.headers, { 'content-security-policy': "default-src 'none'" });
    } finally {
      stream.close();
    }
  });

  it('add Strict-Transport-Security when the server is reached over HTTPS', async () => {
    const secure = await startTestServer({ PUBLIC_URL: 'https://portal.example' });
    try {
      const res = await secure.client().get('/api/config');
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
  });

  it('are on the client files, which keep their own caching', async () => {
    const { base, close } = await serveClientApp(t.server.deps, fs.mkdtempSync(path.join(t.dataDir, 'client-')));
    try {
      const asset = await fetch(`${base}/assets/app.js`);
      const screen = await fetch(`${base}/chat`);
      expect([asset.status, screen.status]).toEqual([200, 200]);
      expectSecurityHeaders(asset.headers);
      expectSecurityHeaders(screen.headers);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(screen.headers.get('cache-control')).toBe('no-cache');
    } finally {
      await close();
    }
  });

  it('a missing built file answers 404, not the app’s page kept for a year', async () => {
    const { base, close } = await serveClientApp(t.server.deps, fs.mkdtempSync(path.join(t.dataDir, 'client-')));
    try {
      const missing = await fetch(`${base}/assets/gone-1234abcd.js`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('cache-control')).toBe('no-store');
      expect(await missing.text()).not.toMatch(/<html/i);
      expect((await fetch(`${base}/assets/app.js`)).status).toBe(200);
    } finally {
      await close();
    }
  });

  it('are added to the finished answer when the app runs without Node’s response (app.request)', async () => {
    const app = createApp(t.server.deps, { clientDir: path.join(t.dataDir, 'no-client') });
    const res = await app.request('/api/config');
    expect(res.status).toBe(200);
    expectSecurityHeaders(res.headers);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
