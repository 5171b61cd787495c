import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNED_IN_PAGE } from './build-client';
import { serveClientApp } from './test/client-app';
import { startTestServer, TestClient, type TestServer } from './test/test-server';
import { statement } from './db/client';

// The page a signed-in browser is sent for "/" (decision 111): the build writes it beside index.html.
const SIGNED_IN_HTML = '<!doctype html><title>signed in</title>';

let t: TestServer;
let app: { base: string; close: () => Promise<unknown> };

beforeAll(async () => {
  t = await startTestServer();
  const clientDir = path.join(t.dataDir, 'dist');
  fs.mkdirSync(clientDir, { recursive: true });
  fs.writeFileSync(path.join(clientDir, SIGNED_IN_PAGE), SIGNED_IN_HTML);
  app = await serveClientApp(t.server.deps, clientDir);
});

afterAll(async () => {
  await app.close();
  await t.close();
});

/** A client of the served app with the cookie of a user signed in on the test server (same database). */
async function signedInClient(overrides: Parameters<TestServer['signedIn']>[0] = {}) {
  const { user, client } = await t.signedIn(overrides);
  const browser = new TestClient(app.base);
  browser.cookie = client.cookie;
  return { user, browser };
}

describe('"/" for a signed-in user (decision 111)', () => {
  it('sends the signed-in page to a live session, not cacheable for anyone else', async () => {
    const { browser } = await signedInClient();
    const res = await browser.request('GET', '/');
    expect(res.status).toBe(200);
    expect(res.text).toBe(SIGNED_IN_HTML);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('vary')).toMatch(/Cookie/);
  });

  it('sends index.html to a browser without a session, with a dead one, or to a deactivated user', async () => {
    const anonymous = await new TestClient(app.base).request('GET', '/');
    expect(anonymous.text).toBe('<!doctype html><title>app</title>');
    expect(anonymous.headers.get('vary')).toMatch(/Cookie/);

    const forged = new TestClient(app.base);
    forged.cookie = 'sp_session=not-a-session';
    expect((await forged.request('GET', '/')).text).toBe('<!doctype html><title>app</title>');

    const { user, browser } = await signedInClient();
    await statement(t.db, 'update users set is_active = FALSE where id = ?').run([user.id]);
    expect((await browser.request('GET', '/')).text).toBe('<!doctype html><title>app</title>');
  });

  it('sends index.html for every other screen, signed in or not', async () => {
    const { browser } = await signedInClient();
    for (const screen of ['/login', '/admin', '/residents']) {
      const res = await browser.request('GET', screen);
      expect(res.status).toBe(200);
      expect(res.text).toBe('<!doctype html><title>app</title>');
    }
  });
});
