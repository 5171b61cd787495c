import { combineLatest, defer, filter, firstValueFrom, map, Subject, type Observable } from 'rxjs';
import type { RxCollection, RxReplicationPullStreamItem, RxReplicationWriteToMasterRow } from 'rxdb';
import { addRxPlugin } from 'rxdb';
import { RxDBLeaderElectionPlugin } from 'rxdb/plugins/leader-election';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import {
  FIRST_FEED_PAGE,
  PUSHABLE_COLLECTIONS,
  PUSH_ROWS_MAX,
  SYNC_COLLECTIONS,
  SYNC_DEVICE_HEADER,
  type SyncCollection,
} from '../../schema/sync-protocol';
import type { PullResponse, PushResponse, SyncCheckpoint } from '../../schema/sync';
import { mergeBasesOf } from './collections';
import { recordMerges } from './merge-notices';
import { watchLostChanges } from './lost-changes';
import { connectTabs, type TabSync } from './tab-sync';
import { yieldToMain } from '../lib/yield-to-main';
import { createLiveStream } from './sync/live-stream';
import { createTransport } from './sync/transport';

/** What the replication needs from its surroundings; tests pass a fetch with a cookie jar and a base URL. */
export interface SyncOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
  /** The server answered 401: the session is over. */
  onUnauthorized?: () => void;
  /** Pull page size (documents per request). */
  batchSize?: number;
  /** How long to wait before retrying after a failed request, and between stream reconnects. */
  retryMs?: number;
  /** How long one pull or push may take, answer included, before it is given up and retried. */
  requestTimeoutMs?: number;
  /** The answer to a pull request made ahead of the replication (src/db/first-pull.ts), or null to ask. */
  takePrefetched?: (path: string) => Promise<PullResponse<Record<string, unknown>> | null> | null;
}

/**
 * One browser's replication, seen from one tab. Only the leading tab replicates (decision 115); in the others the
 * first sync is over when the leader says so, and `resync` and `awaitInSync` go to the leader.
 */
export interface SyncController {
  /** Local writes not yet confirmed by the server (the spec's offline items), across all collections. */
  pending$: Observable<number>;
  /** True once every collection has pulled everything the server had at start. */
  initialSyncDone: Promise<void>;
  /** Resolves once one collection has pulled everything the server had at start (its first run and fill). */
  collectionSynced: (name: SyncCollection) => Promise<void>;
  /** Whether this tab's live stream is connected (never in a tab that does not lead). */
  connected$: Observable<boolean>;
  /**
   * Whether the server answers sync requests: false once one fails while the device is online (no connection to
   * the server, or a 5xx answer), true again at its next answer (decision 116). Starts true.
   */
  reachable$: Observable<boolean>;
  /** Pull everything again (after reconnecting). */
  resync: () => void;
  /** Waits until every collection has nothing left to push or pull. */
  awaitInSync: () => Promise<void>;
  /**
   * What each collection's replication is doing right now, for a report when sync seems stuck: RxDB's flags,
   * which of its queues are still busy, and where this module's pull and push handlers are and since when.
   */
  activity: () => Promise<string>;
  stop: () => Promise<void>;
}

type AnyCollection = RxCollection<Record<string, unknown>>;

// Tabs of one database elect the one that replicates (decision 115).
addRxPlugin(RxDBLeaderElectionPlugin);

/** The channel to the other tabs of this database, or null where there are none to hear (tests, decision 115). */
function tabsOf(database: AnyCollection['database'] | undefined, names: readonly SyncCollection[]): TabSync | null {
  if (!database?.multiInstance || typeof BroadcastChannel === 'undefined') return null;
  return connectTabs(new BroadcastChannel(`staff-portal-sync|${database.name}`), names);
}

/** Collections whose unsent writes the banner does not count (decision 52). */
const NOT_OFFLINE_ITEMS: readonly SyncCollection[] = ['residentViews'];

/** The fields of a document that the local schema knows. */
function pickKnown(doc: Record<string, unknown>, known: Set<string>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => known.has(key)));
}

/** How long a pulled page waits for the collection's pushes before it is given up and asked for again. */
const PUSH_WAIT_MS = 5000;
/** The longest a first run waits for its pulled pages to be stored before it ends anyway (decision 81). */
const STORED_PATIENCE_MS = 15_000;
/** How long a sync request may take by default: a first page of 1,000 posts on a slow mobile link fits. */
const REQUEST_TIMEOUT_MS = 60_000;
/** How many times a pull is asked again because pushes overlapped it, before RxDB's retry takes over. */
const STALE_PULL_TRIES = 5;
/** Rows RxDB hands the push handler at most, and rows per push request: as many as the server takes. */
const PUSH_BATCH = 1000;
const PUSH_REQUEST_ROWS = PUSH_ROWS_MAX;
/** How long other collections wait for that page before pulling anyway. */
const FIRST_PAGE_PATIENCE_MS = 3000;

type PushRow = RxReplicationWriteToMasterRow<Record<string, unknown>>;

/** The name RxDB keeps a collection's replication state under; sealing kept work reads the same state (decision 114). */
export const replicationIdentifierOf = (name: SyncCollection): string => `staff-portal-${name}`;

/**
 * The rows worth sending, without the local-only `localPending` flag. A document whose flag is false came from
 * the server (a pulled page, or a conflict the server's version won) and is never sent back as a change; a
 * delete always goes (RxDB's own remove() leaves the flag as it was, and a delete the server has is harmless). RxDB
 * would send one if the app closed after storing a pulled page but before recording it as the server's state:
 * it then finds the document without an assumed master and pushes it as new. The chaos test saw such a stale
 * copy pushed so, and merged over an edit the author had made since (decision 83).
 */
export function ownChanges(rows: readonly PushRow[]): PushRow[] {
  const strip = (doc: Record<string, unknown>) => {
    const { localPending, ...rest } = doc;
    void localPending;
    return rest as PushRow['newDocumentState'];
  };
  return rows
    .filter((row) => row.newDocumentState.localPending !== false || row.newDocumentState._deleted)
    .map((row) => ({
      newDocumentState: strip(row.newDocumentState),
      ...(row.assumedMasterState ? { assumedMasterState: strip(row.assumedMasterState) } : {}),
    }));
}

/**
 * Replicates each synced collection with the server (docs/sync.md): pull by checkpoint, push with conflict
 * detection, and one live stream that says when to pull. Requests are marked as background traffic so they
 * never keep an idle session alive.
 */
export function startSync(
  collections: Partial<Record<SyncCollection, AnyCollection>>,
  options: SyncOptions = {},
): SyncController {
  const streams = new Map<
    SyncCollection,
    Subject<RxReplicationPullStreamItem<Record<string, unknown>, SyncCheckpoint>>
  >();
  const retryMs = options.retryMs ?? 5000;
  const abort = new AbortController();
  const transport = createTransport({
    baseUrl: options.baseUrl ?? '',
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    requestTimeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    stopped: abort.signal,
    onUnauthorized: options.onUnauthorized,
  });
  const { call } = transport;
  /**
   * Names this device's pushes (decision 69): the local database's storage token, kept with the database, so
   * a reload or a restart after a lost answer is still the same device, and a new sign-in is a new one.
   */
  const anyCollection = SYNC_COLLECTIONS.map((name) => collections[name]).find(Boolean);
  const deviceId: Promise<string> = anyCollection ? anyCollection.database.storageToken : Promise.resolve('unknown');
  /**
   * One replication per browser (decision 115): tabs of one database elect a leader, and only it pulls, pushes and
   * listens to the stream; a database without other tabs (tests) leads at once. Another tab takes over when it closes.
   */
  const leading: Promise<unknown> = anyCollection?.database.waitForLeadership() ?? Promise.resolve();
  let leader = false;
  void leading.then(() => (leader = true));
  // What a delete on the server took from the user's unsent changes is kept for the feed's notice (decision 117).
  const stopWatchingLost = anyCollection ? watchLostChanges(anyCollection.database, collections.posts) : () => {};

  /**
   * Comments and reactions point at a post. One made on a post that was itself written offline must not reach
   * the server first: it would be refused as pointing at nothing, and the refusal deletes it locally. So when
   * a pushed row's post is still pending here and the server has not yet accepted it in this session, the push
   * waits until the posts are in sync (the collections push in parallel otherwise). A post counts as there once
   * its push is accepted, not only once its stored copy is pulled back: waiting for that pull made comments fail
   * and wait for RxDB's retry. The wait is bounded: if the post is still not there after it, the push fails and
   * RxDB retries it later, so a posts replication that is slow or stuck never holds comments and reactions for
   * good (the chaos test saw them wait for ever behind a posts replication that never settled).
   */
  const PUSH_AFTER_POSTS: readonly SyncCollection[] = ['comments', 'reactions'];
  const acceptedPosts = new Set<string>();
  async function postsFirst(name: SyncCollection, rows: { newDocumentState: Record<string, unknown> }[]) {
    const posts = collections.posts;
    if (!posts || !PUSH_AFTER_POSTS.includes(name)) return;
    const ids = [...new Set(rows.map((row) => row.newDocumentState.postId).filter((id) => typeof id === 'string'))];
    const pending = async () =>
      [...(await posts.findByIds(ids as string[]).exec()).values()].some(
        (post) => post.get('localPending') === true && !acceptedPosts.has(post.primary),
      );
    if (ids.length === 0 || !(await pending())) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      replications.get('posts')?.awaitInSync(),
      new Promise((resolve) => (timer = setTimeout(resolve, PUSH_WAIT_MS * 2))),
    ]);
    clearTimeout(timer);
    if (await pending()) throw new Error(`${name}: waiting for posts written offline to reach the server first`);
  }

  /** Posts the server took as they were pushed: comments and reactions on them need not wait (postsFirst). */
  function noteAccepted(rows: unknown[], conflicts: Record<string, unknown>[]) {
    const refused = new Set(conflicts.map((doc) => doc.id));
    for (const row of rows as PushRow[]) {
      const id = row.newDocumentState.id;
      if (typeof id === 'string' && !refused.has(id) && !row.newDocumentState._deleted) acceptedPosts.add(id);
    }
  }

  /**
   * A first sync shows the feed as soon as possible (docs/sync.md, "Newest first"): the posts' first pull is
   * a short page, and other collections that have nothing yet start pulling only once that page is stored
   * (or posts already had a checkpoint, or FIRST_PAGE_PATIENCE_MS passed), so they do not compete with it
   * for IndexedDB. The staff directory, needed for the authors' names, pulls alongside the posts.
   */
  let markFeedStarted = () => {};
  /** How many posts the short first page brought, once it has come. */
  let firstPageSize: number | null = null;
  const feedStarted = new Promise<void>((resolve) => (markFeedStarted = resolve));
  /** Watched from when this tab leads: until then the posts it sees stored are the leading tab's pulls. */
  const watchFirstPage = () => {
    const patience = setTimeout(() => markFeedStarted(), FIRST_PAGE_PATIENCE_MS);
    void feedStarted.then(() => clearTimeout(patience));
    if (!collections.posts) markFeedStarted();
    else {
      // Started once as many posts as the first page brought are stored (RxDB may store a page in parts).
      let written = 0;
      const firstWrite = collections.posts.$.subscribe(() => {
        written += 1;
        if (firstPageSize !== null && written >= firstPageSize) markFeedStarted();
      });
      void feedStarted.then(() => firstWrite.unsubscribe());
    }
  };
  const WITH_THE_FEED: readonly SyncCollection[] = ['users', 'posts'];
  const replications = new Map<SyncCollection, RxReplicationState<Record<string, unknown>, SyncCheckpoint>>();

  /**
   * Resolves once the collection has no push in progress. A pulled page must not be stored while a push is
   * out: the page may hold the server's copy of the document being pushed, and RxDB skips a pulled document
   * whose local copy has a write it has not yet seen acknowledged (the answer is still on its way) while the
   * checkpoint moves past it. The server's version (its times, `localPending: false`) would then never arrive
   * and the document would stay pending for ever (decision 64). RxDB holds the live stream's events back the
   * same way; this covers a pull already under way when the push began.
   */
  async function pushesSettled(name: SyncCollection): Promise<void> {
    const up = replications.get(name)?.internalReplicationState?.events.active.up;
    if (!up?.getValue()) return;
    const settled = firstValueFrom(up.pipe(filter((active) => !active)), { defaultValue: false });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), PUSH_WAIT_MS)));
    const outcome = await Promise.race([settled, late]);
    clearTimeout(timer);
    // A push that stays busy this long may itself be waiting for this pull (RxDB's upstream waits for the
    // downstream in places): give the page up and let RxDB ask again after its retry time, so neither waits
    // for ever. The page is not stored, so decision 64 still holds.
    if (outcome === 'late') throw new Error(`${name}: a pull gave way to a push still busy after ${PUSH_WAIT_MS} ms`);
  }

  /**
   * Resolves once the collection's replication neither pulls (stores included) nor pushes, or sync stops, or
   * STORED_PATIENCE_MS passed: RxDB's `active` flags have been seen to stay up for an idle collection (session 3),
   * and a first run must end even then, as it did before decision 81.
   */
  async function storedAndIdle(name: SyncCollection): Promise<void> {
    const events = replications.get(name)?.internalReplicationState?.events;
    if (!events) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopped = new Promise<void>((resolve) => abort.signal.addEventListener('abort', () => resolve()));
    await Promise.race([
      stopped,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, STORED_PATIENCE_MS))),
      firstValueFrom(combineLatest([events.active.down, events.active.up]).pipe(filter(([down, up]) => !down && !up)), {
        defaultValue: undefined,
      }),
    ]);
    clearTimeout(timer);
  }

  /** Where each collection's pull and push handlers are, and since when (for activity()). */
  const phases = new Map<string, { phase: string; since: number }>();
  const phase = (name: SyncCollection, direction: 'pull' | 'push', what: string | null) => {
    if (what) phases.set(`${name} ${direction}`, { phase: what, since: Date.now() });
    else phases.delete(`${name} ${direction}`);
  };

  /** Pushes of each collection under way in our handler, and how many have ended, for pullFresh. */
  const pushesOut = new Map<SyncCollection, number>();
  const pushesEnded = new Map<SyncCollection, number>();

  /**
   * A pulled page, asked for again if a push of the collection was out at any time while it was on its way:
   * a page the server wrote before it applied that push, stored once the push is acknowledged, would put the
   * pushed document back to its older state (the chaos test saw a reaction go back to the previous choice,
   * and then be pushed so). Then, as before, it waits until no push is out (decision 64).
   */
  async function pullFresh(name: SyncCollection, path: string): Promise<PullResponse<Record<string, unknown>>> {
    for (let attempt = 1; ; attempt += 1) {
      const out = pushesOut.get(name) ?? 0;
      const ended = pushesEnded.get(name) ?? 0;
      phase(name, 'pull', `request ${attempt}`);
      firstPullSent.add(name);
      // A first page fetched ahead is as good as one asked for now: it carries the checkpoint it was read at. What
      // was asked for since it was read comes with one more pull at the end of the first run.
      const ahead = attempt === 1 ? await (options.takePrefetched?.(path) ?? null) : null;
      if (ahead && askedBeforeFirstPull.has(name) && deferredPull.has(name)) deferredPull.set(name, true);
      const page = ahead ?? (await call<PullResponse<Record<string, unknown>>>(path));
      phase(name, 'pull', `waiting for pushes ${attempt}`);
      await pushesSettled(name);
      if (out === 0 && (pushesEnded.get(name) ?? 0) === ended) return page;
      if (attempt === STALE_PULL_TRIES) throw new Error(`${name}: pushes kept overlapping the pull`);
    }
  }

  // Only the collections this client keeps: the server may offer more than an older client knows.
  const names = SYNC_COLLECTIONS.filter((name) => collections[name] !== undefined);
  /** Resolved per collection once a pull answers past the newest-first fill (docs/sync.md). */
  const filled: Promise<void>[] = [];
  /**
   * Pull requests (the stream's RESYNC and change events) that came while the collection was still in its first
   * run: they wait for its end (decision 75). RxDB answers a RESYNC by pulling and also by re-reading the whole
   * local collection from its last push checkpoint; during a first sync that re-read chased the thousands of
   * documents the pull was storing, 50 at a time, and took most of the time. The first run reads the server
   * anyway, and one pull at its end brings whatever the deferred requests were about.
   */
  const deferredPull = new Map<SyncCollection, boolean>();
  /**
   * Collections whose first run has sent its first pull request. A pull request that comes before that (the
   * stream's RESYNC as it connects, usually) asks for nothing that request will not bring: the server answers it
   * with everything it holds then. Counting it would pull every collection a second time on each start.
   */
  const firstPullSent = new Set<SyncCollection>();
  /**
   * Collections with a pull request that came before their first pull was sent. A first page fetched at sign-in
   * (decision 97) was read before that request, so it may not hold what the request was about: then the first
   * run ends with one more pull. An empty page needs it most: the fill is then over, and a post written between
   * the page and the stream's connecting came to a new device only with the next change (decision 107).
   */
  const askedBeforeFirstPull = new Set<SyncCollection>();
  const requestPull = (name: SyncCollection) => {
    if (!deferredPull.has(name)) streams.get(name)?.next('RESYNC');
    else if (firstPullSent.has(name)) deferredPull.set(name, true);
    else askedBeforeFirstPull.add(name);
  };
  const states = names.map((name) => {
    let resolveFilled = () => {};
    filled.push(new Promise<void>((resolve) => (resolveFilled = resolve)));
    deferredPull.set(name, false);
    let fillOver = false;
    /**
     * The first run is over: once what it pulled is stored, pull requests go straight through; `pullAgain` asks
     * for one more. RxDB fetches pages ahead of storing them, so the last page comes well before its documents
     * are stored; a RESYNC then would make RxDB's push side re-read, page by page, every document stored after
     * its last checkpoint, chasing the pages still being written (decision 81). Waiting until the replication
     * is idle leaves it only the last stored page's tail to re-read. Requests that come meanwhile still wait.
     */
    const markFilled = (pullAgain: boolean) => {
      if (fillOver || !deferredPull.has(name)) return;
      fillOver = true;
      if (pullAgain) deferredPull.set(name, true);
      void storedAndIdle(name).then(() => {
        const wanted = deferredPull.get(name);
        if (wanted === undefined) return;
        deferredPull.delete(name);
        if (wanted) stream$.next('RESYNC');
        resolveFilled();
      });
    };
    const stream$ = new Subject<RxReplicationPullStreamItem<Record<string, unknown>, SyncCheckpoint>>();
    streams.set(name, stream$);
    const canPush = (PUSHABLE_COLLECTIONS as readonly string[]).includes(name);
    const known = new Set([...Object.keys(collections[name]!.schema.jsonSchema.properties), '_deleted']);
    const state: RxReplicationState<Record<string, unknown>, SyncCheckpoint> = replicateRxCollection({
      collection: collections[name]!,
      replicationIdentifier: replicationIdentifierOf(name),
      live: true,
      retryTime: retryMs,
      waitForLeadership: true,
      // RxDB's own toggle starts the replication in any tab that becomes visible, leading or not (decision 115).
      toggleOnDocumentVisible: false,
      // Started below once this tab leads, one collection per task.
      autoStart: false,
      pull: {
        batchSize: options.batchSize ?? 1000,
        stream$: stream$.asObservable(),
        // What the server sends is, by definition, not pending. Fields this client's schema does not know
        // (a newer server) are dropped rather than failing validation.
        modifier: (doc: Record<string, unknown>) => ({
          ...pickKnown(doc, known),
          localPending: false,
          _deleted: Boolean(doc._deleted),
        }),
        async handler(checkpoint, batchSize) {
          try {
            return await pullPage(checkpoint, batchSize);
          } finally {
            phase(name, 'pull', null);
          }
        },
      },

      push: canPush
        ? {
            // RxDB reads the local collection in pages of this size when it re-checks what to push; small
            // pages made that re-check quadratic over a freshly pulled collection (decision 75). The request
            // itself still carries at most PUSH_REQUEST_ROWS rows.
            batchSize: PUSH_BATCH,
            async handler(rows) {
              const own = ownChanges(rows);
              if (own.length === 0) return [];
              phase(name, 'push', 'waiting for posts');
              try {
                await postsFirst(name, own);
                phase(name, 'push', `request of ${own.length}`);
                pushesOut.set(name, (pushesOut.get(name) ?? 0) + 1);
                try {
                  return await pushRows(own);
                } finally {
                  pushesOut.set(name, pushesOut.get(name)! - 1);
                  pushesEnded.set(name, (pushesEnded.get(name) ?? 0) + 1);
                }
              } finally {
                phase(name, 'push', null);
              }
            },
          }
        : undefined,
    });
    /** Sends RxDB's rows PUSH_REQUEST_ROWS at a time; answers the conflicts of them all. */
    async function pushRows(rows: unknown[]) {
      const conflicts: Record<string, unknown>[] = [];
      const bases = mergeBasesOf(collections[name]!.database);
      for (let i = 0; i < rows.length; i += PUSH_REQUEST_ROWS) {
        const answer = await call<PushResponse<Record<string, unknown>>>(`/api/sync/${name}/push`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', [SYNC_DEVICE_HEADER]: await deviceId },
          body: JSON.stringify(rows.slice(i, i + PUSH_REQUEST_ROWS)),
        });
        // States to merge from, for the conflict handler (decision 69).
        for (const [id, doc] of Object.entries(answer.bases ?? {})) bases.set(id, pickKnown(doc, known) as never);
        // Edits the server merged with someone else's: the user is told which fields were theirs (decision 120).
        recordMerges(collections[name]!.database.name, name, answer.merges);
        conflicts.push(...answer.conflicts);
        if (name === 'posts') noteAccepted(rows.slice(i, i + PUSH_REQUEST_ROWS), answer.conflicts);
      }
      // Conflicts are master documents: like pulled ones, they are not pending.
      return conflicts.map((doc) => ({ ...pickKnown(doc, known), localPending: false })) as never[];
    }
    /** One pull: the newest-first fill, then pages in change order (docs/sync.md). */
    async function pullPage(checkpoint: SyncCheckpoint | undefined, batchSize: number) {
      if (!checkpoint && !WITH_THE_FEED.includes(name)) {
        phase(name, 'pull', 'waiting for the feed');
        await feedStarted;
      }
      // The newest-first fill sends live documents only, up to the sequence at its start: right for an empty
      // collection. One that already holds documents without a checkpoint (the app closed during its first sync,
      // after storing pages but before their checkpoint) pulls in change order from the start, tombstones
      // included: a fill would leave a post deleted meanwhile on the device for good (decision 86).
      const fresh = !checkpoint && (await collections[name]!.count().exec()) === 0;
      if (name === 'posts' && !fresh) markFeedStarted();
      const short = name === 'posts' && fresh && FIRST_FEED_PAGE < batchSize;
      const query = new URLSearchParams({ limit: String(short ? FIRST_FEED_PAGE : batchSize) });
      const filling = fresh || Boolean(checkpoint?.before);
      if (filling) query.set('backfill', '1');
      if (checkpoint) {
        query.set('seq', String(checkpoint.seq));
        query.set('id', checkpoint.id);
      }
      if (checkpoint?.before) {
        query.set('beforeSeq', String(checkpoint.before.seq));
        query.set('beforeId', checkpoint.before.id);
      }
      const page = await pullFresh(name, `/api/sync/${name}/pull?${query}`);
      // The newest-first fill is over: pull what changed meanwhile, in change order. Not after an empty
      // page: RxDB keeps no checkpoint from it, so asking again would start the fill again, endlessly. Not
      // after a full page either: RxDB asks for the next one itself, in change order from this checkpoint.
      if (!page.checkpoint.before) {
        markFilled(filling && page.documents.length > 0 && page.documents.length < batchSize);
      }
      if (short) {
        firstPageSize = page.documents.length;
        if (page.documents.length === 0) markFeedStarted();
        // RxDB takes a page shorter than its batch for the last one: ask it to go on with the fill.
        else if (page.checkpoint.before) setTimeout(() => stream$.next('RESYNC'), 0);
      }
      // By id: RxDB stores a page (or several, merged) in one write whose documents share one write time, and
      // its push side resumes after the last of them in (write time, id) order, so with the largest id last it
      // has nothing of that write to read again (decision 81). The order means nothing else to RxDB.
      const byId = [...page.documents].sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
      return { documents: byId as never[], checkpoint: page.checkpoint };
    }
    replications.set(name, state);
    state.error$.subscribe((error) => {
      // Offline is normal: RxDB retries by itself. Anything else is worth a line in the console.
      const causes = (error.parameters as { errors?: unknown[] } | undefined)?.errors ?? [];
      const offline = causes.length > 0 && causes.every((e) => (e as { name?: string }).name === 'TypeError');
      if (!abort.signal.aborted && !offline) console.warn(`sync ${name}:`, error.message);
    });
    return state;
  });

  // Each replication starts in a task of its own: starting one opens its meta store through the storage worker and
  // registers it with the database, and all of them at once made one long task while a first sign-in's feed was
  // showing. Errors of start() are emitted on error$.
  void (async () => {
    await leading;
    if (abort.signal.aborted) return;
    watchFirstPage();
    for (const state of states) {
      if (abort.signal.aborted) return;
      state.start().catch(() => {});
      await yieldToMain();
    }
  })();

  const pullEverything = () => streams.forEach((_, name) => requestPull(name));

  const stream = createLiveStream({
    transport,
    stopped: abort.signal,
    retryMs,
    onResync: pullEverything,
    onChange: (collection) => {
      if (streams.has(collection)) requestPull(collection);
    },
    onUnauthorized: options.onUnauthorized,
  });
  // Only the leading tab listens: a stream per tab would make every server change pull once per open tab.
  void leading.then(() => stream.listen());

  const onOnline = () => {
    if (!leader) return;
    pullEverything();
    states.forEach((s) => s.reSync());
  };
  globalThis.addEventListener?.('online', onOnline);
  // The leading tab keeps replicating while hidden, and catches up when shown again, as RxDB's toggle did.
  const onVisible = () => {
    if (document.visibilityState === 'visible') onOnline();
  };
  globalThis.document?.addEventListener('visibilitychange', onVisible);

  // A profile opening waiting for the audit log is bookkeeping, not the user's change: not an offline item.
  const counted = names.filter((name) => !NOT_OFFLINE_ITEMS.includes(name));
  // Its queries are made when someone subscribes, not in the task that starts the sync.
  const pending$ = defer(() =>
    combineLatest(counted.map((name) => collections[name]!.count({ selector: { localPending: true } }).$)),
  ).pipe(map((counts) => counts.reduce((a, b) => a + b, 0)));

  // RxDB's own first run and sync wait until this tab leads and has started them.
  const synced = new Map(
    names.map((name, i) => [name, Promise.all([states[i].awaitInitialReplication(), filled[i]]).then(() => undefined)]),
  );
  const own = {
    collectionSynced: (name: SyncCollection) => synced.get(name) ?? Promise.resolve(),
    // RxDB's first run can end before the fill does (the short first page of posts): wait for both.
    initialSyncDone: Promise.all([...states.map((s) => s.awaitInitialReplication()), ...filled])
      .then(() => Promise.all(states.map((s) => s.awaitInSync())))
      .then(() => undefined),
    awaitInSync: async () => {
      await Promise.all(states.map((s) => s.awaitInSync()));
    },
    resync: pullEverything,
  };
  // A tab that does not lead learns from the leading one, or from its own replication once it leads.
  const tabs = tabsOf(anyCollection?.database, names);
  void leading.then(() => {
    if (!abort.signal.aborted) tabs?.lead(own);
  });
  const either = (mine: Promise<void>, theirs: Promise<void> | undefined) =>
    theirs ? Promise.race([mine, theirs]) : mine;

  return {
    pending$,
    collectionSynced: (name) => either(own.collectionSynced(name), tabs?.collectionSynced(name)),
    connected$: stream.connected$,
    // A tab that does not lead makes no requests: it reports the server reachable (decision 116).
    reachable$: transport.reachable$,
    initialSyncDone: either(own.initialSyncDone, tabs?.initialSyncDone),
    resync: () => (leader || !tabs ? pullEverything() : tabs.resync()),
    awaitInSync: () => (leader || !tabs ? own.awaitInSync() : either(own.awaitInSync(), tabs.awaitInSync())),
    activity: async () => {
      const busy = async (promise: Promise<unknown> | undefined) => {
        let done = false;
        void promise?.then(
          () => (done = true),
          () => (done = true),
        );
        await new Promise((resolve) => setTimeout(resolve, 0));
        return promise !== undefined && !done;
      };
      const lines = await Promise.all(
        names.map(async (name) => {
          const internal = replications.get(name)?.internalReplicationState;
          const flags = [
            internal?.events.active.up.getValue() && 'pushing',
            internal?.events.active.down.getValue() && 'pulling',
            (await busy(internal?.streamQueue.up)) && 'up queue busy',
            (await busy(internal?.streamQueue.down)) && 'down queue busy',
            (await busy(internal?.checkpointQueue)) && 'checkpoint queue busy',
            ...(['pull', 'push'] as const).map((direction) => {
              const at = phases.get(`${name} ${direction}`);
              return at && `${direction} handler ${at.phase} for ${Date.now() - at.since} ms`;
            }),
          ];
          return `${name}: ${flags.filter(Boolean).join(', ') || 'idle'}`;
        }),
      );
      return (leader ? '' : 'another tab replicates (decision 115); ') + lines.join('; ');
    },
    stop: async () => {
      abort.abort();
      stopWatchingLost();
      markFeedStarted();
      deferredPull.clear();
      tabs?.close();
      globalThis.removeEventListener?.('online', onOnline);
      globalThis.document?.removeEventListener('visibilitychange', onVisible);
      await Promise.all(states.map((s) => s.cancel()));
    },
  };
}
