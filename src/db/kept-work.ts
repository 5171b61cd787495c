import type { RxCollection, RxReplicationWriteToMasterRow, WithDeleted } from 'rxdb';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { KEPT_KEY_ITEM, PENDING_FILES_DB } from '../../schema/offline';
import { PUSHABLE_COLLECTIONS, SYNC_DEVICE_HEADER } from '../../schema/sync-protocol';
import type { PushResponse } from '../../schema/sync';
import { conflictHandlerFor, type MergeBases } from './collections';
import type { UserDatabase } from './database';
import { databaseNameFor } from './database-name';
import { recordMerges } from './merge-notices';
import {
  base64ToBlob,
  blobToBase64,
  deleteKeptEntry,
  listKeptEntries,
  openEntry,
  putKeptEntry,
  sealForUser,
  type KeptEntry,
} from './kept-store';
import type { PendingFilesDatabase, WaitingPostRecord } from './pending-files-db';
import { ownChanges, replicationIdentifierOf } from './replication';

type Doc = Record<string, unknown>;
type PushRow = RxReplicationWriteToMasterRow<Doc>;
type Pushable = (typeof PUSHABLE_COLLECTIONS)[number];

/** A waiting post inside a sealed payload: its files' contents as base64. */
type SealedWaitingPost = Omit<WaitingPostRecord, 'files'> & {
  files: (Record<string, unknown> & { blob: { type: string; base64: string } })[];
};

/** What one sealed entry holds once opened (decision 114). */
interface KeptPayload {
  v: 1;
  /** The device's replication name (decision 69), so the server finds what its last accepted push left. */
  deviceId: string;
  rows: Partial<Record<Pushable, PushRow[]>>;
  waitingPosts: SealedWaitingPost[];
}

/** Where kept work goes to and comes from; tests pass fake-indexeddb, a fetch with cookies and a base URL. */
export interface KeptOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
}

/** Rows that are the user's own items: a profile opening is bookkeeping, a create undone offline is nothing. */
function countItems(name: Pushable, rows: readonly PushRow[]): number {
  if (name === 'residentViews') return 0;
  return rows.filter((row) => !(row.newDocumentState._deleted && !row.assumedMasterState)).length;
}

/**
 * The server's public key for sealing: asked for when sealing, else the one remembered from the last answer or from
 * the public configuration every start reads (src/lib/public-config.ts), so a device can seal offline.
 */
export async function keptPublicKey(options: KeptOptions = {}): Promise<string | null> {
  try {
    const response = await (options.fetch ?? fetch)(`${options.baseUrl ?? ''}/api/kept/key`, {
      headers: { Accept: 'application/json', 'X-Background': '1' },
    });
    if (response.ok) {
      const { publicKey } = (await response.json()) as { publicKey: string };
      globalThis.localStorage?.setItem(KEPT_KEY_ITEM, publicKey);
      return publicKey;
    }
  } catch {
    // Offline: the remembered key does as well; it only changes if the server's settings are lost.
  }
  return globalThis.localStorage?.getItem(KEPT_KEY_ITEM) ?? null;
}

/**
 * Seals every unsent write of a user's database, batch by batch, through RxDB's own push: a push-only replication
 * under the same name hands over exactly the rows the live one would have sent, with the state each assumed. Each
 * batch is stored sealed before RxDB counts it as sent, so a page closed half-way loses nothing; it may keep a
 * batch twice, which the server takes as a retry (docs/sync.md, "Push"). Answers how many items were kept.
 */
export async function sealUnsentRows(db: UserDatabase, userId: string, publicKey: string): Promise<number> {
  const deviceId = await db.storageToken;
  let kept = 0;
  for (const name of PUSHABLE_COLLECTIONS) {
    // Every collection's documents are records to the push; a store opened for sealing has only some collections.
    const collection = (db.collections as unknown as Record<string, RxCollection<Doc> | undefined>)[name];
    if (!collection) continue;
    const state = replicateRxCollection<Doc, unknown>({
      collection,
      replicationIdentifier: replicationIdentifierOf(name),
      live: false,
      retryTime: 1000,
      waitForLeadership: false,
      push: {
        batchSize: 1000,
        async handler(batch) {
          const rows = ownChanges(batch);
          if (rows.length === 0) return [];
          const count = countItems(name, rows);
          const payload: KeptPayload = { v: 1, deviceId, rows: { [name]: rows }, waitingPosts: [] };
          await putKeptEntry(await sealForUser(userId, publicKey, payload, count));
          kept += count;
          return [];
        },
      },
    });
    try {
      await state.awaitInitialReplication();
    } finally {
      await state.cancel();
    }
  }
  return kept;
}

async function openWaitingPosts(options: KeptOptions): Promise<PendingFilesDatabase | null> {
  const factory = options.indexedDB ?? globalThis.indexedDB;
  if (!factory || typeof factory.databases !== 'function') return null;
  if (!(await factory.databases()).some((info) => info.name === PENDING_FILES_DB)) return null;
  const { PendingFilesDatabase } = await import('./pending-files-db');
  return new PendingFilesDatabase(PENDING_FILES_DB, options);
}

/** Seals a user's posts still waiting for their files, then removes them; answers how many were kept. */
export async function sealWaitingPosts(userId: string, publicKey: string, options: KeptOptions = {}): Promise<number> {
  const waiting = await openWaitingPosts(options);
  if (!waiting) return 0;
  try {
    const posts = await waiting.posts.where('userId').equals(userId).toArray();
    if (posts.length === 0) return 0;
    const sealed: SealedWaitingPost[] = await Promise.all(
      posts.map(async (post) => ({
        ...post,
        files: await Promise.all(
          post.files.map(async (file) => ({
            ...file,
            blob: { type: file.blob.type, base64: await blobToBase64(file.blob) },
          })),
        ),
      })),
    );
    const payload: KeptPayload = { v: 1, deviceId: '', rows: {}, waitingPosts: sealed };
    await putKeptEntry(await sealForUser(userId, publicKey, payload, posts.length));
    await waiting.posts.bulkDelete(posts.map((post) => post.id));
    return posts.length;
  } finally {
    waiting.close();
  }
}

/** The server answered a kept-work request with this status. */
export class KeptRequestError extends Error {
  constructor(
    readonly status: number,
    path: string,
  ) {
    super(`${status}: ${path} failed`);
  }
}

/** Sending stopped because the session is over (401): the entries stay for the next sign-in. */
export const isSessionOver = (error: unknown) => error instanceof KeptRequestError && error.status === 401;

async function post<T>(options: KeptOptions, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await (options.fetch ?? fetch)(`${options.baseUrl ?? ''}${path}`, {
    method: 'POST',
    credentials: 'include',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json', 'X-Background': '1', ...headers },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new KeptRequestError(response.status, path);
  return (await response.json()) as T;
}

const ROUNDS = 5;
const ROWS_PER_REQUEST = 50;

/**
 * Pushes kept rows of one collection as the live replication would (docs/sync.md, "Push"): a conflict is resolved
 * with the collection's own conflict handler, from the base the server names when there is one, and pushed again
 * until the server holds the result.
 */
async function pushKeptRows(
  options: KeptOptions,
  name: Pushable,
  deviceId: string,
  rows: PushRow[],
  databaseName: string,
): Promise<void> {
  const bases: MergeBases = new Map();
  const handler = conflictHandlerFor(name, bases);
  let batch = rows;
  for (let round = 0; round < ROUNDS && batch.length > 0; round += 1) {
    const again: PushRow[] = [];
    for (let i = 0; i < batch.length; i += ROWS_PER_REQUEST) {
      const chunk = batch.slice(i, i + ROWS_PER_REQUEST);
      const answer = await post<PushResponse<Doc>>(options, `/api/sync/${name}/push`, chunk, {
        [SYNC_DEVICE_HEADER]: deviceId,
      });
      for (const [id, doc] of Object.entries(answer.bases ?? {})) bases.set(id, doc as WithDeleted<Doc>);
      recordMerges(databaseName, name, answer.merges);
      for (const conflict of answer.conflicts) {
        const row = chunk.find((r) => r.newDocumentState.id === conflict.id);
        if (!row) continue;
        const master = { ...conflict, _deleted: Boolean(conflict._deleted) } as WithDeleted<Doc>;
        const resolved = await handler.resolve(
          {
            newDocumentState: row.newDocumentState,
            assumedMasterState: row.assumedMasterState,
            realMasterState: master,
          },
          'kept work',
        );
        const { localPending, ...doc } = resolved;
        void localPending;
        // The server's version stands (its own, or ours already stored): nothing more to send.
        if (resolved === master || handler.isEqual(doc as WithDeleted<Doc>, master, 'kept work')) continue;
        again.push({ newDocumentState: doc as WithDeleted<Doc>, assumedMasterState: master });
      }
    }
    batch = again;
  }
}

/** Restores a kept entry's waiting posts, so the feed uploads their files and sends them as it does any. */
async function restoreWaitingPosts(options: KeptOptions, posts: SealedWaitingPost[]): Promise<void> {
  if (posts.length === 0) return;
  const { PendingFilesDatabase } = await import('./pending-files-db');
  const waiting = new PendingFilesDatabase(PENDING_FILES_DB, options);
  try {
    await waiting.posts.bulkPut(
      posts.map((post) => ({
        ...post,
        files: post.files.map((file) => ({ ...file, blob: base64ToBlob(file.blob.base64, file.blob.type) })),
      })),
    );
  } finally {
    waiting.close();
  }
}

/** Sends one entry: unwraps its key (the server checks it is this user's), then pushes what it holds. */
async function sendEntry(options: KeptOptions, entry: KeptEntry): Promise<void> {
  const { key } = await post<{ key: string }>(options, '/api/kept/unseal', {
    sealedAt: entry.sealedAt,
    wrappedKey: entry.wrappedKey,
  });
  const payload = (await openEntry(entry, key)) as KeptPayload;
  await restoreWaitingPosts(options, payload.waitingPosts);
  for (const name of PUSHABLE_COLLECTIONS) {
    const rows = payload.rows[name];
    if (rows?.length) await pushKeptRows(options, name, payload.deviceId, rows, databaseNameFor(entry.userId));
  }
}

export interface KeptOutcome {
  /** Items now on the server (or back among the waiting posts). */
  sent: number;
  /** Items the server can no longer open (kept too long, or sealed with a key it lost). */
  lost: number;
}

const sending = new Map<string, Promise<KeptOutcome>>();

/**
 * Sends the signed-in user's kept work, oldest first, before their sync starts (decision 114). A network failure
 * or a server fault stops it and leaves the rest for the next try; an entry the server will never open is dropped.
 * Concurrent calls share one run.
 */
export function sendKeptWork(userId: string, options: KeptOptions = {}): Promise<KeptOutcome> {
  const running = sending.get(userId);
  if (running) return running;
  const run = (async () => {
    const outcome: KeptOutcome = { sent: 0, lost: 0 };
    for (const entry of await listKeptEntries(userId)) {
      try {
        await sendEntry(options, entry);
        outcome.sent += entry.count;
      } catch (error) {
        const status = error instanceof KeptRequestError ? error.status : null;
        // Offline, a server fault or the session over: try again later, this entry first.
        if (status === null || status === 401 || status >= 500) throw error;
        if (status !== 403 && status !== 410) {
          // Refused as a whole (a newer server's rules): kept for a later version rather than lost.
          console.error('Kept work was refused; it stays on this device', error);
          continue;
        }
        console.error('Kept work could not be opened and is removed', error);
        outcome.lost += entry.count;
      }
      await deleteKeptEntry(entry.id);
    }
    return outcome;
  })().finally(() => {
    sending.delete(userId);
  });
  sending.set(userId, run);
  return run;
}

/** The users with posts waiting for their files on this browser. */
export async function waitingPostUsers(options: KeptOptions = {}): Promise<string[]> {
  const waiting = await openWaitingPosts(options);
  if (!waiting) return [];
  try {
    return (await waiting.posts.orderBy('userId').uniqueKeys()).map(String);
  } finally {
    waiting.close();
  }
}

/** How many of a user's posts wait for their files. */
export async function countWaitingPosts(userId: string, options: KeptOptions = {}): Promise<number> {
  const waiting = await openWaitingPosts(options);
  if (!waiting) return 0;
  try {
    return await waiting.posts.where('userId').equals(userId).count();
  } finally {
    waiting.close();
  }
}
