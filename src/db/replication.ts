import { combineLatest, defer, map, type Observable } from 'rxjs';
import type { RxCollection } from 'rxdb';
import { addRxPlugin } from 'rxdb';
import { RxDBLeaderElectionPlugin } from 'rxdb/plugins/leader-election';
import { SYNC_COLLECTIONS, type SyncCollection } from '../../schema/sync-protocol';
import type { PullResponse } from '../../schema/sync';
import { watchLostChanges } from './lost-changes';
import { connectTabs, type LeaderSync, type TabSync } from './tab-sync';
import { yieldToMain } from '../lib/yield-to-main';
import { CollectionSync, type CollectionSyncContext } from './sync/collection-sync';
import { describeActivity, Phases } from './sync/diagnostics';
import { createLiveStream } from './sync/live-stream';
import { FirstPageGate, PostsFirst } from './sync/ordering';
import { createTransport } from './sync/transport';

export { ownChanges, replicationIdentifierOf } from './sync/collection-sync';

/** What the replication needs from its surroundings; tests pass a fetch with a cookie jar and a base URL. */
export interface SyncOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
  /** The server answered 401: the session is over; `code` says why (decision 151). */
  onUnauthorized?: (code: string | undefined) => void;
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
  /** Local writes not yet confirmed by the server (the offline items of docs/behaviour.md, "Offline"), across all collections. */
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
/** How long a sync request may take by default: a first page of 1,000 posts on a slow mobile link fits. */
const REQUEST_TIMEOUT_MS = 60_000;

/** Local writes not yet confirmed, across the collections that count as offline items. */
function pendingCount$(collections: Partial<Record<SyncCollection, AnyCollection>>, names: readonly SyncCollection[]) {
  // A profile opening waiting for the audit log is bookkeeping, not the user's change: not an offline item.
  const counted = names.filter((name) => !NOT_OFFLINE_ITEMS.includes(name));
  // Its queries are made when someone subscribes, not in the task that starts the sync.
  return defer(() =>
    combineLatest(counted.map((name) => collections[name]!.count({ selector: { localPending: true } }).$)),
  ).pipe(map((counts) => counts.reduce((a, b) => a + b, 0)));
}

/**
 * Starts each replication once this tab leads, in a task of its own: starting one opens its meta store through the
 * storage worker and registers it with the database, and all of them at once made one long task while a first
 * sign-in's feed was showing. Errors of start() are emitted on error$.
 */
async function startInTurn(
  syncs: CollectionSync[],
  leading: Promise<unknown>,
  stopped: AbortSignal,
  gate: FirstPageGate,
) {
  await leading;
  if (stopped.aborted) return;
  gate.watch();
  for (const sync of syncs) {
    if (stopped.aborted) return;
    sync.state.start().catch(() => {});
    await yieldToMain();
  }
}

/** Calls `catchUp` when the device comes online or the page is shown again; answers how to stop listening. */
function onOnlineOrVisible(catchUp: () => void): () => void {
  globalThis.addEventListener?.('online', catchUp);
  // The leading tab keeps replicating while hidden, and catches up when shown again, as RxDB's toggle did.
  const onVisible = () => {
    if (document.visibilityState === 'visible') catchUp();
  };
  globalThis.document?.addEventListener('visibilitychange', onVisible);
  return () => {
    globalThis.removeEventListener?.('online', catchUp);
    globalThis.document?.removeEventListener('visibilitychange', onVisible);
  };
}

/** This tab's own replication, as the controller and the other tabs see it. RxDB's first run waits until it starts. */
function ownSync(syncs: CollectionSync[], pullEverything: () => void): LeaderSync {
  const states = syncs.map((sync) => sync.state);
  const synced = new Map(
    syncs.map((sync) => [
      sync.name,
      Promise.all([sync.state.awaitInitialReplication(), sync.filled]).then(() => undefined),
    ]),
  );
  return {
    collectionSynced: (name: SyncCollection) => synced.get(name) ?? Promise.resolve(),
    // RxDB's first run can end before the fill does (the short first page of posts): wait for both.
    initialSyncDone: Promise.all([...states.map((s) => s.awaitInitialReplication()), ...syncs.map((s) => s.filled)])
      .then(() => Promise.all(states.map((s) => s.awaitInSync())))
      .then(() => undefined),
    awaitInSync: async () => {
      await Promise.all(states.map((s) => s.awaitInSync()));
    },
    resync: pullEverything,
  };
}

/** What the replication takes from the local database: the device's name for its pushes, and this tab's leadership. */
function databaseRoles(collections: Partial<Record<SyncCollection, AnyCollection>>) {
  const database = SYNC_COLLECTIONS.map((name) => collections[name]).find(Boolean)?.database;
  // Names this device's pushes (decision 69): the local database's storage token, kept with the database, so a
  // reload or a restart after a lost answer is still the same device, and a new sign-in is a new one.
  const deviceId: Promise<string> = database ? database.storageToken : Promise.resolve('unknown');
  // One replication per browser (decision 115): tabs of one database elect a leader, and only it pulls, pushes and
  // listens to the stream; a database without other tabs (tests) leads at once. Another tab takes over when it closes.
  const leading: Promise<unknown> = database?.waitForLeadership() ?? Promise.resolve();
  return { database, deviceId, leading };
}

/** One CollectionSync per collection this client keeps, with the rule between them that posts push first. */
function collectionSyncs(
  collections: Partial<Record<SyncCollection, AnyCollection>>,
  shared: Omit<CollectionSyncContext, 'postsFirst'>,
): Map<SyncCollection, CollectionSync> {
  const byName = new Map<SyncCollection, CollectionSync>();
  const postsFirst = new PostsFirst(collections.posts, () => byName.get('posts')?.state.awaitInSync());
  // Only the collections this client keeps: the server may offer more than an older client knows.
  for (const name of SYNC_COLLECTIONS) {
    const collection = collections[name];
    if (collection) byName.set(name, new CollectionSync(name, collection, { ...shared, postsFirst }));
  }
  return byName;
}

/** The first of this tab's answer and the leading tab's, where another tab may lead. */
const either = (mine: Promise<void>, theirs: Promise<void> | undefined) =>
  theirs ? Promise.race([mine, theirs]) : mine;

/**
 * Replicates each synced collection with the server (docs/sync.md): pull by checkpoint, push with conflict
 * detection, and one live stream that says when to pull. The parts are in src/db/sync/ (decision 132).
 */
export function startSync(
  collections: Partial<Record<SyncCollection, AnyCollection>>,
  options: SyncOptions = {},
): SyncController {
  const stopped = new AbortController();
  const retryMs = options.retryMs ?? 5000;
  const transport = createTransport({
    baseUrl: options.baseUrl ?? '',
    fetch: options.fetch ?? ((input, init) => fetch(input, init)),
    requestTimeoutMs: options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
    stopped: stopped.signal,
    onUnauthorized: options.onUnauthorized,
  });
  const { database, deviceId, leading } = databaseRoles(collections);
  let leader = false;
  void leading.then(() => (leader = true));
  // What a delete on the server took from the user's unsent changes is kept for the feed's notice (decision 117).
  const stopWatchingLost = database ? watchLostChanges(database, collections.posts) : () => {};

  const phases = new Phases();
  const firstPage = new FirstPageGate(collections.posts);
  const { batchSize, takePrefetched } = options;
  const shared = {
    transport,
    deviceId,
    firstPage,
    phases,
    stopped: stopped.signal,
    retryMs,
    batchSize,
    takePrefetched,
  };
  const byName = collectionSyncs(collections, shared);
  const syncs = [...byName.values()];
  void startInTurn(syncs, leading, stopped.signal, firstPage);

  const pullEverything = () => syncs.forEach((sync) => sync.requestPull());
  const stream = createLiveStream({
    transport,
    stopped: stopped.signal,
    retryMs,
    onResync: () => syncs.forEach((sync) => sync.onStreamConnected()),
    onChange: (collection, data) => byName.get(collection)?.onChange(data),
    onUnauthorized: options.onUnauthorized,
  });
  // Only the leading tab listens: a stream per tab would make every server change pull once per open tab.
  void leading.then(() => stream.listen());
  const stopCatchingUp = onOnlineOrVisible(() => {
    if (!leader) return;
    pullEverything();
    syncs.forEach((sync) => sync.state.reSync());
  });

  const own = ownSync(syncs, pullEverything);
  // A tab that does not lead learns from the leading one, or from its own replication once it leads.
  const tabs = tabsOf(database, [...byName.keys()]);
  void leading.then(() => {
    if (!stopped.signal.aborted) tabs?.lead(own);
  });
  return {
    pending$: pendingCount$(collections, [...byName.keys()]),
    collectionSynced: (name) => either(own.collectionSynced(name), tabs?.collectionSynced(name)),
    connected$: stream.connected$,
    // A tab that does not lead makes no requests: it reports the server reachable (decision 116).
    reachable$: transport.reachable$,
    initialSyncDone: either(own.initialSyncDone, tabs?.initialSyncDone),
    resync: () => (leader || !tabs ? pullEverything() : tabs.resync()),
    awaitInSync: () => (leader || !tabs ? own.awaitInSync() : either(own.awaitInSync(), tabs.awaitInSync())),
    activity: () => describeActivity(new Map(syncs.map((sync) => [sync.name, sync.state])), phases, leader),
    stop: async () => {
      stopped.abort();
      stopWatchingLost();
      firstPage.markStarted();
      syncs.forEach((sync) => sync.stop());
      tabs?.close();
      stopCatchingUp();
      await Promise.all(syncs.map((sync) => sync.state.cancel()));
    },
  };
}
