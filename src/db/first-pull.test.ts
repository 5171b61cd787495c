import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEXIE_PREFIX, databaseNameFor } from './database-name';
import {
  FIRST_PULL_PATHS,
  forgetFirstPulls,
  isNewDevice,
  loadFeedPreview,
  startFeedPreview,
  takePrefetchedPull,
  type FeedPreview,
  type FirstPullEnvironment,
} from './first-pull';

const checkpoint = { seq: 9, id: 'p3', before: { seq: 9, id: 'p1' } };
const post = (id: string, createdAt: number, extra: Record<string, unknown> = {}) => ({
  id,
  authorId: 'u1',
  content: `Post ${id}`,
  createdAt,
  _deleted: false,
  ...extra,
});
const user = { id: 'u1', firstName: 'Ada', lastName: 'Lovelace', role: 'staff', _deleted: false };

/** A server that answers the two first pulls (or the status given), recording what was asked and how. */
function environment(status = 200) {
  const asked: { path: string; headers: Headers }[] = [];
  let time = 1_000_000;
  const env: FirstPullEnvironment & { asked: typeof asked; later: (ms: number) => void } = {
    asked,
    indexedDB: new IDBFactory(),
    now: () => time,
    later: (ms) => (time += ms),
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = String(input);
      asked.push({ path, headers: new Headers(init?.headers) });
      const documents =
        path === FIRST_PULL_PATHS.posts
          ? [post('p1', 100), post('p3', 300), post('p2', 200, { _deleted: true }), post('p4', 300)]
          : [user, { ...user, id: 'u2', _deleted: true }];
      return new Response(JSON.stringify(status === 200 ? { documents, checkpoint } : { error: 'no' }), { status });
    }) as typeof fetch,
  };
  return env;
}

async function createDatabase(factory: IDBFactory, name: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const request = factory.open(name);
    request.onsuccess = () => {
      request.result.close();
      resolve();
    };
    request.onerror = () => reject(request.error);
  });
}

beforeEach(() => forgetFirstPulls());

describe('a new device’s first pulls (decision 97)', () => {
  it('fetches the feed’s first pages as background traffic and previews the live posts, newest first', async () => {
    const env = environment();
    const shown: FeedPreview[] = [];
    const preview = await loadFeedPreview('u1', (p) => shown.push(p), undefined, env);
    expect(env.asked.map((a) => a.path).sort()).toEqual([FIRST_PULL_PATHS.posts, FIRST_PULL_PATHS.users].sort());
    expect(env.asked.every((a) => a.headers.get('X-Background') === '1')).toBe(true);
    expect(preview?.posts.map((p) => p.id)).toEqual(['p4', 'p3', 'p1']);
    expect(preview?.posts.every((p) => p.localPending === false)).toBe(true);
    expect(preview?.users.map((u) => u.id)).toEqual(['u1']);
    expect(shown).toEqual([preview]);
  });

  it('hands each answer to the replication once, for the same user only, while it is fresh', async () => {
    const env = environment();
    await loadFeedPreview('u1', () => {}, undefined, env);
    expect(takePrefetchedPull('u2', FIRST_PULL_PATHS.posts, env.now())).toBeNull();
    // The store this sign-in opens is new: its first sync has yet to bring everything (decision 100).
    expect(isNewDevice('u1')).toBe(true);
    expect(isNewDevice('u2')).toBe(false);
    const page = await takePrefetchedPull('u1', FIRST_PULL_PATHS.posts, env.now());
    expect(page?.checkpoint).toEqual(checkpoint);
    expect(page?.documents).toHaveLength(4);
    expect(takePrefetchedPull('u1', FIRST_PULL_PATHS.posts, env.now())).toBeNull();
    expect(takePrefetchedPull('u1', '/api/sync/posts/pull?limit=1000', env.now())).toBeNull();
    // Half a minute later the replication asks the server itself.
    env.later(31_000);
    expect(takePrefetchedPull('u1', FIRST_PULL_PATHS.users, env.now())).toBeNull();
  });

  it('fetches nothing on a device that already holds the user’s store', async () => {
    const env = environment();
    await createDatabase(env.indexedDB!, `${DEXIE_PREFIX}${databaseNameFor('u1')}--2--posts`);
    expect(await loadFeedPreview('u1', () => {}, undefined, env)).toBeNull();
    expect(env.asked).toEqual([]);
    expect(isNewDevice('u1')).toBe(false);
    expect(takePrefetchedPull('u1', FIRST_PULL_PATHS.posts, env.now())).toBeNull();
    // Another user's store on the device does not count.
    expect(await loadFeedPreview('u2', () => {}, undefined, env)).not.toBeNull();
  });

  it('shows nothing when the server refuses, and the replication then asks for itself', async () => {
    const env = environment(401);
    const shown: FeedPreview[] = [];
    expect(await loadFeedPreview('u1', (p) => shown.push(p), undefined, env)).toBeNull();
    expect(shown).toEqual([]);
    expect(await takePrefetchedPull('u1', FIRST_PULL_PATHS.posts, env.now())).toBeNull();
  });

  it('gives up a request whose connection died, and the replication then asks for itself', async () => {
    const env = { ...environment(), timeoutMs: 50 };
    const aborted: boolean[] = [];
    // A connection that died without a word: no answer ever comes, and the abort is not heeded either.
    env.fetch = ((_input: RequestInfo | URL, init?: RequestInit) => {
      init?.signal?.addEventListener('abort', () => aborted.push(true));
      return new Promise<Response>(() => {});
    }) as typeof fetch;
    expect(await loadFeedPreview('u1', () => {}, undefined, env)).toBeNull();
    expect(aborted).toEqual([true, true]);
    expect(await takePrefetchedPull('u1', FIRST_PULL_PATHS.posts, env.now())).toBeNull();
  });

  it('shows nothing when the device is offline', async () => {
    const env = environment();
    env.fetch = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    expect(await loadFeedPreview('u1', () => {}, undefined, env)).toBeNull();
  });

  it('shows nothing once the user has signed out meanwhile, and forgets what was fetched at sign-out', async () => {
    const env = environment();
    const shown: FeedPreview[] = [];
    expect(
      await loadFeedPreview(
        'u1',
        (p) => shown.push(p),
        () => false,
        env,
      ),
    ).toBeNull();
    expect(shown).toEqual([]);
    forgetFirstPulls();
    expect(takePrefetchedPull('u1', FIRST_PULL_PATHS.users, env.now())).toBeNull();
    expect(isNewDevice('u1')).toBe(false);
  });

  it('a preview started before the first render is the one the feed takes: each page is asked for once', async () => {
    const env = environment();
    startFeedPreview('u1', env);
    startFeedPreview('u1', env);
    const shown: FeedPreview[] = [];
    const preview = await loadFeedPreview('u1', (p) => shown.push(p), undefined, env);
    expect(env.asked.map((a) => a.path).sort()).toEqual([FIRST_PULL_PATHS.posts, FIRST_PULL_PATHS.users].sort());
    expect(preview?.posts.map((p) => p.id)).toEqual(['p4', 'p3', 'p1']);
    expect(shown).toEqual([preview]);
  });

  it('a preview started for one user is not given to another, nor kept after a sign-out', async () => {
    const env = environment();
    startFeedPreview('u1', env);
    expect(await loadFeedPreview('u2', () => {}, undefined, env)).not.toBeNull();
    expect(env.asked).toHaveLength(4);
    startFeedPreview('u3', env);
    forgetFirstPulls();
    const later = environment();
    await loadFeedPreview('u3', () => {}, undefined, later);
    expect(later.asked).toHaveLength(2);
  });
});
