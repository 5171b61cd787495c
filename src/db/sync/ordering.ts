import type { RxCollection, RxReplicationWriteToMasterRow } from 'rxdb';
import type { SyncCollection } from '../../../schema/sync-protocol';
import { withTimeout } from '../../lib/with-timeout';

type AnyCollection = RxCollection<Record<string, unknown>>;
type PushRow = RxReplicationWriteToMasterRow<Record<string, unknown>>;

/** How long a push of comments or reactions waits for the posts they point at. */
export const POSTS_FIRST_WAIT_MS = 10_000;
/** How long other collections wait for the feed's first page before pulling anyway. */
const FIRST_PAGE_PATIENCE_MS = 3000;

/**
 * Comments and reactions point at a post. One made on a post that was itself written offline must not reach
 * the server first: it would be refused as pointing at nothing, and the refusal deletes it locally. So when
 * a pushed row's post is still pending here and the server has not yet accepted it in this session, the push
 * waits until the posts are in sync (the collections push in parallel otherwise). A post counts as there once
 * its push is accepted, not only once its stored copy is pulled back: waiting for that pull made comments fail
 * and wait for RxDB's retry. The wait is bounded: if the post is still not there after it, the push fails and
 * RxDB retries it later, so a posts replication that is slow or stuck never holds comments and reactions for
 * good (decision 121).
 */
export class PostsFirst {
  private static readonly AFTER_POSTS: readonly SyncCollection[] = ['comments', 'reactions'];
  /** Posts the server took as they were pushed: comments and reactions on them need not wait. */
  private readonly acceptedPosts = new Set<string>();

  constructor(
    private readonly posts: AnyCollection | undefined,
    /** Resolves once the posts' replication has nothing left to push or pull. */
    private readonly postsInSync: () => Promise<unknown> | undefined,
  ) {}

  /** Resolves when the rows of `name` may be pushed; throws when their posts are still not on the server. */
  async wait(name: SyncCollection, rows: { newDocumentState: Record<string, unknown> }[]): Promise<void> {
    const posts = this.posts;
    if (!posts || !PostsFirst.AFTER_POSTS.includes(name)) return;
    const ids = [
      ...new Set(rows.map((row) => row.newDocumentState.postId).filter((id): id is string => typeof id === 'string')),
    ];
    const pending = async () =>
      [...(await posts.findByIds(ids).exec()).values()].some(
        (post) => post.get('localPending') === true && !this.acceptedPosts.has(post.primary),
      );
    if (ids.length === 0 || !(await pending())) return;
    await withTimeout(this.postsInSync(), POSTS_FIRST_WAIT_MS);
    if (await pending()) throw new Error(`${name}: waiting for posts written offline to reach the server first`);
  }

  /** Notes the posts of a push request the server took (those not answered as conflicts). */
  noteAccepted(rows: unknown[], conflicts: Record<string, unknown>[]): void {
    const refused = new Set(conflicts.map((doc) => doc.id));
    // RxDB's push rows, as the push handler was handed them.
    for (const row of rows as PushRow[]) {
      const id = row.newDocumentState.id;
      if (typeof id === 'string' && !refused.has(id) && !row.newDocumentState._deleted) this.acceptedPosts.add(id);
    }
  }
}

/**
 * A first sync shows the feed as soon as possible (docs/sync.md, "Newest first"): the posts' first pull is
 * a short page, and other collections that have nothing yet start pulling only once that page is stored
 * (or posts already had a checkpoint, or FIRST_PAGE_PATIENCE_MS passed), so they do not compete with it
 * for IndexedDB. The staff directory, needed for the authors' names, pulls alongside the posts.
 */
export class FirstPageGate {
  private static readonly WITH_THE_FEED: readonly SyncCollection[] = ['users', 'posts'];
  /** Resolves once the feed's first page is stored, or the gate is opened otherwise. */
  readonly started: Promise<void>;
  private open = () => {};
  /** How many posts the short first page brought, once it has come. */
  private firstPageSize: number | null = null;

  constructor(private readonly posts: AnyCollection | undefined) {
    this.started = new Promise<void>((resolve) => (this.open = resolve));
  }

  /** Whether a collection's first pull waits for the feed's first page. */
  waits(name: SyncCollection): boolean {
    return !FirstPageGate.WITH_THE_FEED.includes(name);
  }

  /** Lets every collection pull: posts had a checkpoint, the first page was empty, or the sync stops. */
  markStarted(): void {
    this.open();
  }

  /** The short first page has come with this many posts. */
  notePageSize(size: number): void {
    this.firstPageSize = size;
    if (size === 0) this.open();
  }

  /** Watched from when this tab leads: until then the posts it sees stored are the leading tab's pulls. */
  watch(): void {
    const patience = setTimeout(() => this.open(), FIRST_PAGE_PATIENCE_MS);
    void this.started.then(() => clearTimeout(patience));
    if (!this.posts) this.open();
    else {
      // Started once as many posts as the first page brought are stored (RxDB may store a page in parts).
      let written = 0;
      const firstWrite = this.posts.$.subscribe(() => {
        written += 1;
        if (this.firstPageSize !== null && written >= this.firstPageSize) this.open();
      });
      void this.started.then(() => firstWrite.unsubscribe());
    }
  }
}
