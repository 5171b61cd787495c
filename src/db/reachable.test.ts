import 'fake-indexeddb/auto';
import { randomUUID } from 'node:crypto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { filter, firstValueFrom, type Observable } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
// Client replication is tested against the real server over real HTTP (house style: client store tests).
import { statement } from '../../server/db/client';
import { startTestServer, type TestServer } from '../../server/test/test-server';
import type { SyncCollection } from '../../schema/sync';
import { createSyncedDatabase } from './database';
import { startSync, type SyncController } from './replication';
import { storedPost } from './test-fixtures';

const env = { indexedDB, IDBKeyRange, multiInstance: false };
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** What the device's requests meet: the server, no server at all (refused), or a server answering 503. */
type Server = 'up' | 'refusing' | 'failing';

/** One browser syncing posts as a signed-in staff member, whose way to the server the test can break. */
async function makeDevice() {
  const { user, client } = await t.signedIn({ role: 'staff' });
  const db = await createSyncedDatabase(`sp_test_${randomUUID().replace(/-/g, '')}`, env, ['users', 'posts']);
  const device = {
    user,
    db,
    server: 'up' as Server,
    sync: null as SyncController | null,
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      if (device.server === 'refusing') throw new TypeError('fetch failed (connection refused)');
      if (device.server === 'failing') return new Response('Service Unavailable', { status: 503 });
      const headers = new Headers(init?.headers);
      headers.set('cookie', client.cookie);
      return fetch(input, { ...init, headers });
    }) as typeof fetch,
    async close() {
      await device.sync?.stop();
      await db.remove();
    },
  };
  device.sync = startSync(db as unknown as Record<SyncCollection, never>, {
    baseUrl: t.url,
    fetch: device.fetch,
    retryMs: 100,
  });
  return device;
}

const becomes = <T>(source: Observable<T>, value: T) => firstValueFrom(source.pipe(filter((v) => v === value)));

function writePost(device: Awaited<ReturnType<typeof makeDevice>>, content: string) {
  const now = Date.now();
  return device.db.posts.insert(
    storedPost({
      id: randomUUID(),
      authorId: device.user.id,
      content,
      createdAt: now,
      updatedAt: now,
      localPending: true,
    }),
  );
}

const serverCount = async (id: string) =>
  ((await statement(t.db, 'select count(*) as n from posts where id = ?').get([id])) as { n: number }).n;

describe('server reachability (decision 116)', () => {
  it('says the server cannot be reached while it refuses or answers 5xx, and keeps the post until it is back', async () => {
    const device = await makeDevice();
    try {
      await device.sync!.initialSyncDone;
      expect(await firstValueFrom(device.sync!.reachable$)).toBe(true);

      device.server = 'refusing';
      const refused = await writePost(device, 'Written while the server was down');
      await becomes(device.sync!.reachable$, false);
      expect(await firstValueFrom(device.sync!.pending$)).toBe(1);

      device.server = 'up';
      await becomes(device.sync!.reachable$, true);
      await becomes(device.sync!.pending$, 0);
      expect(await serverCount(refused.id)).toBe(1);

      device.server = 'failing';
      const failed = await writePost(device, 'Written while the server answered 503');
      await becomes(device.sync!.reachable$, false);
      expect(await firstValueFrom(device.sync!.pending$)).toBe(1);
      expect(await serverCount(failed.id)).toBe(0);

      device.server = 'up';
      await becomes(device.sync!.reachable$, true);
      await becomes(device.sync!.pending$, 0);
      expect(await serverCount(failed.id)).toBe(1);
      expect(await serverCount(refused.id)).toBe(1);
    } finally {
      await device.close();
    }
  });

  it('does not count a failed request as the server’s fault while the device is offline', async () => {
    const device = await makeDevice();
    try {
      await device.sync!.initialSyncDone;
      vi.stubGlobal('navigator', { onLine: false });
      device.server = 'refusing';
      await writePost(device, 'Written with no connection at all');
      const seen: boolean[] = [];
      const watching = device.sync!.reachable$.subscribe((value) => seen.push(value));
      // Several retries (100 ms each) and stream reconnects fail meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 600));
      watching.unsubscribe();
      expect(seen).toEqual([true]);
    } finally {
      await device.close();
    }
  });
});
