import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestClient, type TestServer } from '../../server/test/test-server';
import { createLiveStream } from './sync/live-stream';
import { createTransport } from './sync/transport';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** A device's sync: its requests carry the client's cookie; every 401's code is collected. */
function deviceSync(client: TestClient) {
  const codes: (string | undefined)[] = [];
  const stopped = new AbortController();
  const withCookie: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), cookie: client.cookie } });
  const transport = createTransport({
    baseUrl: t.url,
    fetch: withCookie,
    requestTimeoutMs: 10_000,
    stopped: stopped.signal,
    onUnauthorized: (code) => codes.push(code),
  });
  const stream = createLiveStream({
    transport,
    stopped: stopped.signal,
    retryMs: 10,
    onResync: () => {},
    onChange: () => {},
    onUnauthorized: (code) => {
      codes.push(code);
      stopped.abort();
    },
  });
  return { codes, transport, listen: () => stream.listen() };
}

describe('the end of a session as the device hears it (decision 151)', () => {
  it('hands the sync "access_ended" from a pull and from the live stream when the access end came', async () => {
    const { client } = await t.signedIn({ accountType: 'agency', accessEndsAt: t.server.deps.now() + 60_000 });
    t.advance(60_001);
    expect(await t.server.accessExpiry.check()).toBe(1);
    const device = deviceSync(client);
    await expect(device.transport.call('/api/sync/users/pull?limit=10')).rejects.toThrow('401');
    await device.listen();
    expect(device.codes).toEqual(['access_ended', 'access_ended']);
  });

  it('hands it "unauthenticated" for a session ended otherwise', async () => {
    const { client } = await t.signedIn();
    const cookie = client.cookie;
    await client.post('/api/auth/logout');
    client.cookie = cookie;
    const device = deviceSync(client);
    await expect(device.transport.call('/api/sync/users/pull?limit=10')).rejects.toThrow('401');
    await device.listen();
    expect(device.codes).toEqual(['unauthenticated', 'unauthenticated']);
  });
});
