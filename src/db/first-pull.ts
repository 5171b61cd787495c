import { atom } from 'jotai';
import type { PullResponse, SyncCollection } from '../../schema/sync';
import { FIRST_PULL_PATHS as SHARED_FIRST_PULL_PATHS } from '../../schema/sync-limits';
import type { DirectoryUserLocal, PostLocal } from './collections';
import { holdsUserDatabase } from './database-name';
import { withTimeout } from '../lib/with-timeout';

/**
 * A new device's first look at the feed (decision 97). Before anything is stored, the feed has to wait for the
 * database code, its worker, the database and the first pull to be written; on a phone that is seconds of
 * skeletons. As soon as the user is known, the first page of posts and the staff directory are asked for here,
 * exactly as the replication's first pulls ask for them, and shown read-only until the database has posts.
 * The replication then takes these answers instead of asking again. Held in memory only, never stored.
 */
export interface FeedPreview {
  userId: string;
  posts: PostLocal[];
  users: DirectoryUserLocal[];
}

export const feedPreviewAtom = atom<FeedPreview | null>(null);

/** The replication's first requests of the collections the feed shows (src/db/sync/collection-sync.ts pullPage). */
export const FIRST_PULL_PATHS = SHARED_FIRST_PULL_PATHS satisfies Partial<Record<SyncCollection, string>>;

type Page = PullResponse<Record<string, unknown>>;

/** How long an answer fetched ahead may wait for the replication to take it; an older one is asked for again. */
const PREFETCH_FRESH_MS = 30_000;

interface Prefetch {
  userId: string;
  at: number;
  pages: Map<string, Promise<Page | null>>;
}

let prefetch: Prefetch | null = null;
/** The user whose store this device did not hold when they signed in: its first sync is under way or done. */
let newDeviceOf: string | null = null;

/**
 * How long a request made ahead may take. The replication waits for it instead of asking itself, so one on a
 * connection that died without a word (flaky Wi-Fi) must not hold it for ever: after this it asks the server.
 */
const PREFETCH_TIMEOUT_MS = 15_000;

export interface FirstPullEnvironment {
  fetch: typeof fetch;
  indexedDB: IDBFactory | undefined;
  /** The databases listing asked for as the app started, if it was (database-name.ts listDatabases). */
  databases?: Promise<IDBDatabaseInfo[]> | null;
  now: () => number;
  timeoutMs?: number;
}

export const browserEnvironment = (databases: Promise<IDBDatabaseInfo[]> | null = null): FirstPullEnvironment => ({
  fetch: (input, init) => fetch(input, init),
  indexedDB: globalThis.indexedDB,
  databases,
  now: () => Date.now(),
});

/**
 * A pull page or null: the device is offline, the session is over, the answer is not a page, or it took too long
 * (the request is aborted then, and the answer is null whether or not the fetch heeds the abort).
 */
async function fetchPage(env: FirstPullEnvironment, path: string): Promise<Page | null> {
  const abort = new AbortController();
  const giveUp = () => {
    abort.abort();
    return null;
  };
  const request = async (): Promise<Page | null> => {
    // Asked exactly as the signed-in page's preload links ask (credentials, no header but Accept), so the browser
    // hands over their answers instead of asking again (decision 111). A sync call never keeps an idle session alive
    // on the server, whatever its headers.
    const response = await env.fetch(path, {
      credentials: 'include',
      headers: { Accept: 'application/json' },
      signal: abort.signal,
    });
    if (!response.ok) return null;
    const page = (await response.json()) as Partial<Page> | null;
    return Array.isArray(page?.documents) && page.checkpoint ? (page as Page) : null;
  };
  try {
    return await withTimeout(request(), env.timeoutMs ?? PREFETCH_TIMEOUT_MS, giveUp);
  } catch {
    return null;
  }
}

const live = (page: Page | null) => (page?.documents ?? []).filter((doc) => !doc._deleted);

/**
 * The preview asked for at this sign-in: started before the app's first render (main.tsx, as soon as the server
 * says who is signed in), so the feed's first pages load in parallel with the feed's own code, or by the first
 * loadFeedPreview. Later calls for the same user take it instead of asking again.
 */
let started: { userId: string; preview: Promise<FeedPreview | null> } | null = null;
/** Counts sign-outs (forgetFirstPulls): an answer that arrives after one is not shown. */
let generation = 0;

function previewOf(userId: string, env: FirstPullEnvironment): Promise<FeedPreview | null> {
  if (started?.userId !== userId) started = { userId, preview: fetchPreview(userId, env) };
  return started.preview;
}

/**
 * Starts fetching the feed's first pages for the signed-in user, ahead of the screen that shows them, and hands
 * the preview to `onPreview` as soon as it arrives (while `stillWanted` says the same user is signed in), so the
 * feed's first render already has it.
 */
export function startFeedPreview(
  userId: string,
  onPreview: (preview: FeedPreview) => void = () => {},
  stillWanted: () => boolean = () => true,
  env: FirstPullEnvironment = browserEnvironment(),
): void {
  if (started?.userId === userId) return;
  const asked = generation;
  void previewOf(userId, env).then((preview) => {
    if (preview && asked === generation && stillWanted()) onPreview(preview);
  });
}

/**
 * Fetches the feed's first pages for a user who has no local store on this device, and resolves with the preview
 * (or null: the device already holds the user's store, or the server could not be asked). `onPreview` receives it
 * only while `stillWanted` says the same user is signed in.
 */
export async function loadFeedPreview(
  userId: string,
  onPreview: (preview: FeedPreview) => void,
  stillWanted: () => boolean = () => true,
  env: FirstPullEnvironment = browserEnvironment(),
): Promise<FeedPreview | null> {
  const preview = await previewOf(userId, env);
  if (!preview || !stillWanted()) return null;
  onPreview(preview);
  return preview;
}

/** Per user, whether the feed has painted their preview (a promise the local database waits on). */
const painted = new Map<string, { promise: Promise<void>; resolve: () => void }>();

function paintedFor(userId: string): { promise: Promise<void>; resolve: () => void } {
  let entry = painted.get(userId);
  if (!entry) {
    let resolve = () => {};
    const promise = new Promise<void>((done) => (resolve = done));
    entry = { promise, resolve };
    painted.set(userId, entry);
  }
  return entry;
}

/** The feed has painted the user's preview: their local database may start (previewSettled). */
export function previewPainted(userId: string): void {
  paintedFor(userId).resolve();
}

/**
 * How long the database waits for the feed to paint a preview that has arrived: long enough for a slow phone to
 * render the first cards, short enough that a user on another screen (or a feed that cannot show it) does not wait.
 */
const PAINT_PATIENCE_MS = 1000;

/**
 * When the user's local database may start opening (decision 103): at once on a device that already holds it (there
 * is no preview), and on a new device once the preview is known and, if there is one, painted. Opening the database
 * is a phone's longest work of the first sign-in; done while the preview renders, it held back the first cards.
 */
export async function previewSettled(userId: string, patienceMs = PAINT_PATIENCE_MS): Promise<void> {
  if (started?.userId !== userId) return;
  const preview = await started.preview;
  if (!preview) return;
  await withTimeout(paintedFor(userId).promise, patienceMs);
}

async function fetchPreview(userId: string, env: FirstPullEnvironment): Promise<FeedPreview | null> {
  if (await holdsUserDatabase(userId, env.indexedDB, env.databases).catch(() => true)) return null;
  newDeviceOf = userId;
  const pages = new Map(Object.values(FIRST_PULL_PATHS).map((path) => [path, fetchPage(env, path)]));
  prefetch = { userId, at: env.now(), pages };
  const [posts, users] = await Promise.all([pages.get(FIRST_PULL_PATHS.posts)!, pages.get(FIRST_PULL_PATHS.users)!]);
  const shown = live(posts) as unknown as PostLocal[];
  if (shown.length === 0) return null;
  return {
    userId,
    posts: shown
      .map((post) => ({ ...post, localPending: false }))
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)),
    users: live(users) as unknown as DirectoryUserLocal[],
  };
}

/**
 * The replication's first request for `path`, if it was fetched ahead for this user and is fresh: taken once.
 * Null otherwise, or when that fetch failed, and the replication asks the server itself.
 */
export function takePrefetchedPull(userId: string, path: string, now = Date.now()): Promise<Page | null> | null {
  if (!prefetch || prefetch.userId !== userId || now - prefetch.at > PREFETCH_FRESH_MS) return null;
  const page = prefetch.pages.get(path) ?? null;
  prefetch.pages.delete(path);
  return page;
}

/**
 * Whether the user's store was new on this device at sign-in (checked before the store opens): what it holds
 * then is only what its first sync has brought so far. False on a device that already held it.
 */
export function isNewDevice(userId: string): boolean {
  return newDeviceOf === userId;
}

/** Sign-out or another user: nothing fetched for the last one is kept or handed on. */
export function forgetFirstPulls(): void {
  generation += 1;
  started = null;
  painted.clear();
  prefetch = null;
  newDeviceOf = null;
}
