import { filter, firstValueFrom, Subject } from 'rxjs';
import type { RxCollection, RxReplicationPullStreamItem, RxReplicationWriteToMasterRow } from 'rxdb';
import { replicateRxCollection, type RxReplicationState } from 'rxdb/plugins/replication';
import {
  FIRST_FEED_PAGE,
  PUSHABLE_COLLECTIONS,
  PUSH_ROWS_MAX,
  SYNC_DEVICE_HEADER,
  type ChangeEvent,
  type SyncCollection,
} from '../../../schema/sync-protocol';
import type { PullResponse, PushResponse, SyncCheckpoint } from '../../../schema/sync';
import { mergeBasesOf } from '../collections';
import { deliveredChanges } from '../delivered-changes';
import { recordMerges } from '../merge-notices';
import { withTimeout } from '../../lib/with-timeout';
import type { Phases } from './diagnostics';
import type { FirstPageGate, PostsFirst } from './ordering';
import { pushActive$, whenIdle } from './rxdb-internals';
import type { Transport } from './transport';

type Doc = Record<string, unknown>;
type PushRow = RxReplicationWriteToMasterRow<Doc>;
type Page = PullResponse<Doc>;

/** How long a pulled page waits for the collection's pushes before it is given up and asked for again. */
const PUSH_WAIT_MS = 5000;
/** The longest a first run waits for its pulled pages to be stored before it ends anyway (decision 81). */
const STORED_PATIENCE_MS = 15_000;
/** How many times a pull is asked again because pushes overlapped it, before RxDB's retry takes over. */
const STALE_PULL_TRIES = 5;
/** Rows RxDB hands the push handler at most, and rows per push request: as many as the server takes. */
const PUSH_BATCH = 1000;
const PUSH_REQUEST_ROWS = PUSH_ROWS_MAX;

/** The name RxDB keeps a collection's replication state under; sealing kept work reads the same state (decision 114). */
export const replicationIdentifierOf = (name: SyncCollection): string => `staff-portal-${name}`;

/**
 * The rows worth sending, without the local-only `localPending` flag. A document whose flag is false came from
 * the server (a pulled page, or a conflict the server's version won) and is never sent back as a change; a
 * delete always goes (RxDB's own remove() leaves the flag as it was, and a delete the server has is harmless). RxDB
 * would send one if the app closed after storing a pulled page but before recording it as the server's state:
 * it then finds the document without an assumed master and pushes it as new, over the author's later edit
 * (decision 83).
 */
export function ownChanges(rows: readonly PushRow[]): PushRow[] {
  const strip = (doc: Doc) => {
    const { localPending, ...rest } = doc;
    void localPending;
    // The same document without one field the server never sees.
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
 * A page's documents by id: RxDB stores a page (or several, merged) in one write whose documents share one write time,
 * and its push side resumes after the last of them in (write time, id) order, so with the largest id last it has
 * nothing of that write to read again (decision 81). The order means nothing else to RxDB.
 */
function byId(documents: Doc[]): Doc[] {
  return [...documents].sort((a, b) => (String(a.id) < String(b.id) ? -1 : 1));
}

/** The fields of a document that the local schema knows. */
function pickKnown(doc: Doc, known: Set<string>): Doc {
  return Object.fromEntries(Object.entries(doc).filter(([key]) => known.has(key)));
}

/**
 * Where a collection's first run stands (decision 75): pull requests that come while it runs wait for its end,
 * and `running-pull-wanted` says one came (or the first page fetched at sign-in may be older than one), so the run
 * ends with one more pull. `over`: requests go straight through. `stopped`: the sync stopped; the run never ends.
 */
export type FirstRun = 'running' | 'running-pull-wanted' | 'over' | 'stopped';

/** What every collection's replication shares: the transport, the rules between collections, the stop signal. */
export interface CollectionSyncContext {
  transport: Transport;
  /** This device's name for its pushes (decision 69). */
  deviceId: Promise<string>;
  postsFirst: PostsFirst;
  firstPage: FirstPageGate;
  phases: Phases;
  stopped: AbortSignal;
  retryMs: number;
  batchSize?: number;
  /** The answer to a pull request made ahead of the replication (src/db/first-pull.ts), or null to ask. */
  takePrefetched?: (path: string) => Promise<Page | null> | null;
}

/**
 * One collection's replication with the server (docs/sync.md): RxDB's replicateRxCollection with this collection's
 * pull and push handlers, and the state they keep: its first run and fill, and the pushes it has out.
 */
export class CollectionSync {
  readonly state: RxReplicationState<Doc, SyncCheckpoint>;
  /** Resolves once a pull answers past the newest-first fill and what the first run pulled is stored. */
  readonly filled: Promise<void>;
  private readonly stream$ = new Subject<RxReplicationPullStreamItem<Doc, SyncCheckpoint>>();
  private readonly known: Set<string>;
  private firstRun: FirstRun = 'running';
  /** The first run's fill is over; the run ends once what it pulled is stored (markFilled). */
  private fillOver = false;
  /** The first run has sent its first pull request. */
  private firstPullSent = false;
  /** A pull request came before the first pull request was sent. */
  private askedBeforeFirstPull = false;
  /** Pushes under way in the push handler, and how many have ended, for pullFresh. */
  private pushesOut = 0;
  private pushesEnded = 0;
  /** How many pushes had ended when the last page was fetched from the server. */
  private pushesEndedAtPage = -1;
  /** Changes the live stream carried, kept as the next pull's answer (decision 131). */
  private readonly delivered = deliveredChanges();
  private resolveFilled = () => {};

  constructor(
    readonly name: SyncCollection,
    private readonly collection: RxCollection<Doc>,
    private readonly context: CollectionSyncContext,
  ) {
    this.filled = new Promise<void>((resolve) => (this.resolveFilled = resolve));
    this.known = new Set([...Object.keys(collection.schema.jsonSchema.properties), '_deleted']);
    // Widened so that any collection's name can be looked up in the tuple.
    const canPush = (PUSHABLE_COLLECTIONS as readonly string[]).includes(name);
    this.state = replicateRxCollection({
      collection,
      replicationIdentifier: replicationIdentifierOf(name),
      live: true,
      retryTime: context.retryMs,
      waitForLeadership: true,
      // RxDB's own toggle starts the replication in any tab that becomes visible, leading or not (decision 115).
      toggleOnDocumentVisible: false,
      // Started by startSync once this tab leads, one collection per task.
      autoStart: false,
      pull: {
        batchSize: context.batchSize ?? 1000,
        stream$: this.stream$.asObservable(),
        // What the server sends is, by definition, not pending. Fields this client's schema does not know
        // (a newer server) are dropped rather than failing validation.
        modifier: (doc: Doc) => ({
          ...pickKnown(doc, this.known),
          localPending: false,
          _deleted: Boolean(doc._deleted),
        }),
        handler: async (checkpoint, batchSize) => {
          try {
            return await this.pullPage(checkpoint, batchSize);
          } finally {
            context.phases.set(name, 'pull', null);
          }
        },
      },
      push: canPush
        ? {
            // RxDB reads the local collection in pages of this size when it re-checks what to push; small
            // pages made that re-check quadratic over a freshly pulled collection (decision 75). The request
            // itself still carries at most PUSH_REQUEST_ROWS rows.
            batchSize: PUSH_BATCH,
            handler: (rows) => this.push(rows),
          }
        : undefined,
    });
    this.state.error$.subscribe((error) => {
      // Offline is normal: RxDB retries by itself. Anything else is worth a line in the console. RxDB's error types
      // its parameters loosely: the handlers' failures are in `errors`, each an Error with a name.
      const causes = (error.parameters as { errors?: unknown[] } | undefined)?.errors ?? [];
      const offline = causes.length > 0 && causes.every((e) => (e as { name?: string }).name === 'TypeError');
      if (!context.stopped.aborted && !offline) console.warn(`sync ${name}:`, error.message);
    });
  }

  /**
   * Pull (the stream's RESYNC and change events, coming online). During the first run it waits for the run's end
   * (decision 75): RxDB answers a RESYNC by pulling and also by re-reading the whole local collection from its last
   * push checkpoint; during a first sync that re-read chased the thousands of documents the pull was storing, and
   * took most of the time. The first run reads the server anyway, and one pull at its end brings whatever the
   * requests were about. One that comes before the run's first pull request is sent (the stream's RESYNC as it
   * connects, usually) asks for nothing that request will not bring: it is only noted (decisions 92 and 107).
   */
  requestPull(): void {
    if (this.firstRun === 'over' || this.firstRun === 'stopped') this.stream$.next('RESYNC');
    else if (this.firstPullSent) this.firstRun = 'running-pull-wanted';
    else this.askedBeforeFirstPull = true;
  }

  /**
   * The live stream said this collection changed. The change it carries is kept for the pull asked for now, which
   * stores it without a request when it follows on from what the device holds (decision 131).
   */
  onChange(event: ChangeEvent): void {
    this.delivered.keep(event);
    this.requestPull();
  }

  /** The live stream (re)connected: events may have been missed, so what was kept is dropped and the server asked. */
  onStreamConnected(): void {
    this.delivered.drop();
    this.requestPull();
  }

  /** The sync stops: the first run never ends, and nothing waits for it. */
  stop(): void {
    this.firstRun = 'stopped';
  }

  /** One pull: the newest-first fill, then pages in change order (docs/sync.md). */
  private async pullPage(checkpoint: SyncCheckpoint | undefined, batchSize: number) {
    const { name, context } = this;
    if (!checkpoint && context.firstPage.waits(name)) {
      context.phases.set(name, 'pull', 'waiting for the feed');
      await context.firstPage.started;
    }
    const carried = checkpoint?.before ? null : this.deliveredPage(checkpoint);
    if (carried) {
      this.markFilled(false);
      // RxDB's handler type wants its own document type; the modifier makes each one that.
      return { documents: byId(carried.documents) as never[], checkpoint: carried.checkpoint };
    }
    // The newest-first fill sends live documents only, up to the sequence at its start: right for an empty
    // collection. One that already holds documents without a checkpoint (the app closed during its first sync,
    // after storing pages but before their checkpoint) pulls in change order from the start, tombstones
    // included: a fill would leave a post deleted meanwhile on the device for good (decision 86).
    const fresh = !checkpoint && (await this.collection.count().exec()) === 0;
    if (name === 'posts' && !fresh) context.firstPage.markStarted();
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
    const page = await this.pullFresh(`/api/sync/${name}/pull?${query}`);
    this.delivered.pulled(name, page, short ? FIRST_FEED_PAGE : batchSize);
    // The newest-first fill is over: pull what changed meanwhile, in change order. Not after an empty
    // page: RxDB keeps no checkpoint from it, so asking again would start the fill again, endlessly. Not
    // after a full page either: RxDB asks for the next one itself, in change order from this checkpoint.
    if (!page.checkpoint.before) {
      this.markFilled(filling && page.documents.length > 0 && page.documents.length < batchSize);
    }
    if (short) {
      context.firstPage.notePageSize(page.documents.length);
      // RxDB takes a page shorter than its batch for the last one: ask it to go on with the fill.
      if (page.documents.length > 0 && page.checkpoint.before) setTimeout(() => this.stream$.next('RESYNC'), 0);
    }
    // RxDB's handler type wants its own document type; the modifier above makes each one that.
    return { documents: byId(page.documents) as never[], checkpoint: page.checkpoint };
  }

  /**
   * The next page from the changes the live stream carried, when they follow on from what the device holds and no
   * push of this collection overlapped them: an event may have been written before the server applied a push
   * answered since, as a pulled page may (decision 70), so then the server is asked.
   */
  private deliveredPage(checkpoint: SyncCheckpoint | undefined): Page | null {
    if (this.pushesOut > 0 || this.pushesEndedAtPage !== this.pushesEnded) {
      this.delivered.drop();
      return null;
    }
    const page = this.delivered.take(this.name, checkpoint);
    if (page) this.context.phases.set(this.name, 'pull', 'stored from the live stream');
    return page;
  }

  /**
   * A pulled page, asked for again if a push of the collection was out at any time while it was on its way:
   * a page the server wrote before it applied that push, stored once the push is acknowledged, would put the
   * pushed document back to its older state (decision 70). Then it waits until no push is out (decision 64).
   */
  private async pullFresh(path: string): Promise<Page> {
    const { name, context } = this;
    for (let attempt = 1; ; attempt += 1) {
      const out = this.pushesOut;
      const ended = this.pushesEnded;
      context.phases.set(name, 'pull', `request ${attempt}`);
      const page = await this.obtainPage(path, attempt);
      context.phases.set(name, 'pull', `waiting for pushes ${attempt}`);
      await this.pushesSettled();
      if (out === 0 && this.pushesEnded === ended) {
        this.pushesEndedAtPage = ended;
        return page;
      }
      if (attempt === STALE_PULL_TRIES) throw new Error(`${name}: pushes kept overlapping the pull`);
    }
  }

  /** The one place a pull's page is obtained: the first page fetched at sign-in if it is this one, else the server. */
  private async obtainPage(path: string, attempt: number): Promise<Page> {
    this.firstPullSent = true;
    // A first page fetched ahead is as good as one asked for now: it carries the checkpoint it was read at. What
    // was asked for since it was read comes with one more pull at the end of the first run (decision 107).
    const ahead = attempt === 1 ? await (this.context.takePrefetched?.(path) ?? null) : null;
    if (ahead && this.askedBeforeFirstPull && this.firstRunGoesOn()) this.firstRun = 'running-pull-wanted';
    return ahead ?? (await this.context.transport.call<Page>(path));
  }

  private firstRunGoesOn(): boolean {
    return this.firstRun === 'running' || this.firstRun === 'running-pull-wanted';
  }

  /**
   * The first run is over: once what it pulled is stored, pull requests go straight through; `pullAgain` asks
   * for one more. RxDB fetches pages ahead of storing them, so the last page comes well before its documents
   * are stored; a RESYNC then would make RxDB's push side re-read, page by page, every document stored after
   * its last checkpoint, chasing the pages still being written (decision 81). Waiting until the replication
   * is idle leaves it only the last stored page's tail to re-read. Requests that come meanwhile still wait.
   */
  private markFilled(pullAgain: boolean): void {
    if (this.fillOver || !this.firstRunGoesOn()) return;
    this.fillOver = true;
    if (pullAgain) this.firstRun = 'running-pull-wanted';
    void this.storedAndIdle().then(() => {
      if (!this.firstRunGoesOn()) return;
      const wanted = this.firstRun === 'running-pull-wanted';
      this.firstRun = 'over';
      if (wanted) this.stream$.next('RESYNC');
      this.resolveFilled();
    });
  }

  /**
   * Resolves once the collection has no push in progress. A pulled page must not be stored while a push is
   * out: the page may hold the server's copy of the document being pushed, and RxDB skips a pulled document
   * whose local copy has a write it has not yet seen acknowledged (the answer is still on its way) while the
   * checkpoint moves past it. The server's version (its times, `localPending: false`) would then never arrive
   * and the document would stay pending for ever (decision 64). RxDB holds the live stream's events back the
   * same way; this covers a pull already under way when the push began.
   */
  private async pushesSettled(): Promise<void> {
    const up = pushActive$(this.state);
    if (!up?.getValue()) return;
    const settled = firstValueFrom(up.pipe(filter((active) => !active)), { defaultValue: false });
    const outcome = await withTimeout(settled, PUSH_WAIT_MS, () => 'late' as const);
    // A push that stays busy this long may itself be waiting for this pull (RxDB's upstream waits for the
    // downstream in places): give the page up and let RxDB ask again after its retry time, so neither waits
    // for ever. The page is not stored, so decision 64 still holds.
    if (outcome === 'late')
      throw new Error(`${this.name}: a pull gave way to a push still busy after ${PUSH_WAIT_MS} ms`);
  }

  /**
   * Resolves once the collection's replication neither pulls (stores included) nor pushes, or sync stops, or
   * STORED_PATIENCE_MS passed: RxDB's `active` flags have been seen to stay up for an idle collection, and a
   * first run must end even then, as it did before decision 81.
   */
  private async storedAndIdle(): Promise<void> {
    const idle = whenIdle(this.state);
    if (!idle) return;
    const signal = this.context.stopped;
    const stopped = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
    await withTimeout(Promise.race([stopped, idle]), STORED_PATIENCE_MS);
  }

  /** RxDB's push handler: this device's own changes, after the posts they point at (PostsFirst). */
  private async push(rows: PushRow[]) {
    const { name, context } = this;
    const own = ownChanges(rows);
    if (own.length === 0) return [];
    context.phases.set(name, 'push', 'waiting for posts');
    try {
      await context.postsFirst.wait(name, own);
      context.phases.set(name, 'push', `request of ${own.length}`);
      this.pushesOut += 1;
      try {
        return await this.pushRows(own);
      } finally {
        this.pushesOut -= 1;
        this.pushesEnded += 1;
      }
    } finally {
      context.phases.set(name, 'push', null);
    }
  }

  /** Sends RxDB's rows PUSH_REQUEST_ROWS at a time; answers the conflicts of them all. */
  private async pushRows(rows: PushRow[]) {
    const { name, context } = this;
    const conflicts: Doc[] = [];
    const bases = mergeBasesOf(this.collection.database);
    for (let i = 0; i < rows.length; i += PUSH_REQUEST_ROWS) {
      const answer = await context.transport.call<PushResponse<Doc>>(`/api/sync/${name}/push`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [SYNC_DEVICE_HEADER]: await context.deviceId },
        body: JSON.stringify(rows.slice(i, i + PUSH_REQUEST_ROWS)),
      });
      // States to merge from, for the conflict handler (decision 69); typed by the collection's schema.
      for (const [id, doc] of Object.entries(answer.bases ?? {})) bases.set(id, pickKnown(doc, this.known) as never);
      // Edits the server merged with someone else's: the user is told which fields were theirs (decision 120).
      recordMerges(this.collection.database.name, name, answer.merges);
      conflicts.push(...answer.conflicts);
      if (name === 'posts') context.postsFirst.noteAccepted(rows.slice(i, i + PUSH_REQUEST_ROWS), answer.conflicts);
    }
    // Conflicts are master documents: like pulled ones, they are not pending. RxDB's handler type wants its own
    // document type, which the collection's schema guarantees.
    return conflicts.map((doc) => ({ ...pickKnown(doc, this.known), localPending: false })) as never[];
  }
}
