import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEXIE_PREFIX, databaseNameFor } from './database-name';
import {
  FIRST_PULL_PATHS,
  forgetFirstPulls,
  isNewDevice,
  loadFeedPreview,
  previewPainted,
  previewSettled,
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
  const asked: { path: string; headers: Headers; credentials?: RequestCredentials }[] = [];
  let time = 1_000_000;
  const env: FirstPullEnvironment & { asked: typeof asked; later: (ms: number) => void } = {
    asked,
    indexedDB: new IDBFactory(),
    now: () => time,
    later: (ms) => (time += ms),
    fetch: (async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = String(input);
      asked.push({ path, headers: new Headers(init?.headers), credentials: init?.credentials });
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
  it('fetches the feed’s first pages as the page’s preload links do and previews the live posts, newest first', async () => {
    const env = environment();
    const shown: FeedPreview[] = [];
    const preview = await loadFeedPreview('u1', (p) => shown.push(p), undefined, env);
    expect(env.asked.map((a) => a.path).sort()).toEqual([FIRST_PULL_PATHS.posts, FIRST_PULL_PATHS.users].sort());
    // The browser hands over a preloaded answer only to a request made the same way: with credentials, as
    // crossorigin="use-credentials" does, and no header of its own but Accept (decision 111).
    expect(env.asked.every((a) => a.credentials === 'include')).toBe(true);
    expect(env.asked.every((a) => [...a.headers.keys()].join() === 'accept')).toBe(true);
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
    const early: FeedPreview[] = [];
    startFeedPreview('u1', (p) => early.push(p), undefined, env);
    startFeedPreview('u1', (p) => early.push(p), undefined, env);
    const shown: FeedPreview[] = [];
    const preview = await loadFeedPreview('u1', (p) => shown.push(p), undefined, env);
    expect(env.asked.map((a) => a.path).sort()).toEqual([FIRST_PULL_PATHS.posts, FIRST_PULL_PATHS.users].sort());
    expect(preview?.posts.map((p) => p.id)).toEqual(['p4', 'p3', 'p1']);
    expect(shown).toEqual([preview]);
    // The early start hands the same preview on as soon as it arrives, once.
    expect(early).toEqual([preview]);
  });

  it('a preview started for one user is not given to another, nor kept after a sign-out', async () => {
    const env = environment();
    startFeedPreview('u1', undefined, undefined, env);
    expect(await loadFeedPreview('u2', () => {}, undefined, env)).not.toBeNull();
    expect(env.asked).toHaveLength(4);
    const early: FeedPreview[] = [];
    startFeedPreview('u3', (p) => early.push(p), undefined, env);
    forgetFirstPulls();
    const later = environment();
    await loadFeedPreview('u3', () => {}, undefined, later);
    expect(later.asked).toHaveLength(2);
    // The answer fetched before the sign-out arrived after it: not shown.
    expect(early).toEqual([]);
    let signedIn = true;
    startFeedPreview(
      'u4',
      (p) => early.push(p),
      () => signedIn,
      env,
    );
    signedIn = false;
    await loadFeedPreview('u4', () => {}, undefined, env);
    expect(early).toEqual([]);
  });

  it('reads a new device from the databases listed as the app started, without listing them again', async () => {
    const env = environment();
    await createDatabase(env.indexedDB!, `${DEXIE_PREFIX}${databaseNameFor('u1')}--2--posts`);
    const listed = env.indexedDB!.databases();
    // Listed before the store existed: a new device, though the store is there by now.
    const early = environment();
    startFeedPreview('u2', undefined, undefined, { ...early, databases: Promise.resolve([]) });
    expect(await loadFeedPreview('u2', () => {}, undefined, early)).not.toBeNull();
    forgetFirstPulls();
    startFeedPreview('u1', undefined, undefined, { ...env, databases: listed });
    expect(await loadFeedPreview('u1', () => {}, undefined, env)).toBeNull();
    expect(env.asked).toEqual([]);
  });
});

describe('the local database waits for the preview to paint (decision 103)', () => {
  const settledWithin = async (promise: Promise<void>, ms: number) =>
    Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

  it('opens at once on a device that holds the user’s store, or when nothing was asked for', async () => {
    const env = environment();
    await createDatabase(env.indexedDB!, `${DEXIE_PREFIX}${databaseNameFor('u1')}--2--posts`);
    expect(await settledWithin(previewSettled('u1', 60_000), 50)).toBe(true);
    startFeedPreview('u1', undefined, undefined, env);
    expect(await settledWithin(previewSettled('u1', 60_000), 50)).toBe(true);
  });

  it('on a new device, waits until the feed has painted the preview', async () => {
    const env = environment();
    startFeedPreview('u1', undefined, undefined, env);
    const settled = previewSettled('u1', 60_000);
    expect(await settledWithin(settled, 50)).toBe(false);
    previewPainted('u2');
    expect(await settledWithin(settled, 20)).toBe(false);
    previewPainted('u1');
    expect(await settledWithin(settled, 20)).toBe(true);
    // Asked again later (the effect ran again), it does not wait a second time.
    expect(await settledWithin(previewSettled('u1', 60_000), 20)).toBe(true);
  });

  it('does not wait for ever when the preview is never painted (the user is on another screen)', async () => {
    const env = environment();
    startFeedPreview('u1', undefined, undefined, env);
    expect(await settledWithin(previewSettled('u1', 30), 500)).toBe(true);
  });

  it('opens at once when the preview could not be fetched (offline)', async () => {
    const env = environment();
    env.fetch = (() => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch;
    startFeedPreview('u1', undefined, undefined, env);
    expect(await settledWithin(previewSettled('u1', 60_000), 50)).toBe(true);
  });
});
