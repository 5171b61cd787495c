import type { RxReplicationWriteToMasterRow, WithDeleted } from 'rxdb';
import { PENDING_FILES_DB } from '../../schema/offline';
import { PUSHABLE_COLLECTIONS, PUSH_ROWS_MAX, SYNC_DEVICE_HEADER } from '../../schema/sync-protocol';
import type { PushResponse } from '../../schema/sync';
import { toast } from '../lib/toast';
import { conflictHandlerFor, type MergeBases } from './collections';
import { databaseNameFor } from './database-name';
import { base64ToBlob, deleteKeptEntry, listKeptEntries, openEntry, type KeptEntry } from './kept-store';
import { recordLostChange, type LostChange } from './lost-changes-store';
import { recordMerges } from './merge-notices';
import type { WaitingMessageRecord, WaitingPhotoRecord, WaitingPostRecord } from './pending-files-db';

type Doc = Record<string, unknown>;
export type PushRow = RxReplicationWriteToMasterRow<Doc>;
export type Pushable = (typeof PUSHABLE_COLLECTIONS)[number];

/** A waiting post inside a sealed payload: its files' contents as base64. */
export type SealedWaitingPost = Omit<WaitingPostRecord, 'files'> & {
  files: (Record<string, unknown> & { blob: { type: string; base64: string } })[];
};

/** A chat message waiting for its files, inside a sealed payload: their contents as base64 (decision 150). */
export type SealedWaitingMessage = Omit<WaitingMessageRecord, 'files'> & {
  files: (Record<string, unknown> & { blob: { type: string; base64: string } })[];
};

/** A resident's photo waiting to be sent, inside a sealed payload (decision 123). */
export type SealedWaitingPhoto = Omit<WaitingPhotoRecord, 'blob'> & { blob: { type: string; base64: string } };

/** What one sealed entry holds once opened (decision 114). */
export interface KeptPayload {
  v: 1;
  /** The device's replication name (decision 69), so the server finds what its last accepted push left. */
  deviceId: string;
  rows: Partial<Record<Pushable, PushRow[]>>;
  waitingPosts: SealedWaitingPost[];
  /** Absent in entries sealed before photos were kept. */
  residentPhotos?: SealedWaitingPhoto[];
  /** Absent in entries sealed before chat messages with files were kept. */
  waitingMessages?: SealedWaitingMessage[];
}

/** Where kept work goes to and comes from; tests pass fake-indexeddb, a fetch with cookies and a base URL. */
export interface KeptOptions {
  baseUrl?: string;
  fetch?: typeof fetch;
  indexedDB?: IDBFactory;
  IDBKeyRange?: typeof IDBKeyRange;
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

async function request<T>(
  options: KeptOptions,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await (options.fetch ?? fetch)(`${options.baseUrl ?? ''}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    credentials: 'include',
    headers: {
      Accept: 'application/json',
      'X-Background': '1',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new KeptRequestError(response.status, path);
  return (await response.json()) as T;
}

const ROUNDS = 5;

/**
 * What a delete on the server won over while kept work was sent (decision 117), and what this run learnt of the
 * posts involved: a comment or reaction counts only once its post is known to be deleted on the server.
 */
interface Losses {
  reported: LostChange[];
  /** Posts the server holds deleted, seen as the master of a kept edit. */
  deleted: Set<string>;
  /** Posts this run did not bring to the server itself (a refused create) or deleted itself. */
  notSomeoneElses: Set<string>;
}

/**
 * Pushes kept rows of one collection as the live replication would (docs/sync.md, "Push"): a conflict is resolved
 * with the collection's own conflict handler, from the base the server names when there is one, and pushed again
 * until the server holds the result. What the handler says a delete won over goes to `losses`.
 */
async function pushKeptRows(
  options: KeptOptions,
  name: Pushable,
  deviceId: string,
  rows: PushRow[],
  losses: Losses,
  databaseName: string,
): Promise<void> {
  const bases: MergeBases = new Map();
  const handler = conflictHandlerFor(name, bases, (lost) => losses.reported.push(lost));
  let batch = rows;
  for (let round = 0; round < ROUNDS && batch.length > 0; round += 1) {
    const again: PushRow[] = [];
    for (let i = 0; i < batch.length; i += PUSH_ROWS_MAX) {
      const chunk = batch.slice(i, i + PUSH_ROWS_MAX);
      const answer = await request<PushResponse<Doc>>(options, `/api/sync/${name}/push`, chunk, {
        [SYNC_DEVICE_HEADER]: deviceId,
      });
      for (const [id, doc] of Object.entries(answer.bases ?? {})) bases.set(id, doc as WithDeleted<Doc>);
      recordMerges(databaseName, name, answer.merges);
      if (name === 'posts') notePosts(chunk, answer.conflicts, losses);
      for (const conflict of answer.conflicts) {
        const row = chunk.find((r) => r.newDocumentState.id === conflict.id);
        if (!row) continue;
        const master = { ...conflict, _deleted: Boolean(conflict._deleted) } as WithDeleted<Doc>;
        const resolved = await handler.resolve(
          {
            // Every kept row is the user's own unsent change, which the handler knows by this flag.
            newDocumentState: { ...row.newDocumentState, localPending: true },
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

/** Notes which pushed posts the server holds deleted, and which were never someone else's to delete. */
function notePosts(rows: PushRow[], conflicts: Doc[], losses: Losses): void {
  const answered = new Map(conflicts.map((doc) => [doc.id, doc]));
  for (const row of rows) {
    const id = String(row.newDocumentState.id);
    const master = answered.get(id);
    if (!master) {
      if (row.newDocumentState._deleted) losses.notSomeoneElses.add(id);
    } else if (master._deleted) {
      (row.assumedMasterState ? losses.deleted : losses.notSomeoneElses).add(id);
    }
  }
}

/** Whether the server no longer has this live post: its comments answer 404 then. */
async function postIsGone(options: KeptOptions, postId: string): Promise<boolean> {
  try {
    await request(options, `/api/posts/${encodeURIComponent(postId)}/comments`);
    return false;
  } catch (error) {
    if (error instanceof KeptRequestError && error.status === 404) return true;
    throw error;
  }
}

/**
 * Records for the feed's notice what a delete on the server won over (decision 117): an edit at once (its master is
 * the deleted post), a comment or reaction once its post is known to be deleted by someone else, a refused message at
 * once (decision 150).
 */
async function recordLosses(options: KeptOptions, userId: string, losses: Losses): Promise<void> {
  const gone = new Map<string, boolean>();
  for (const change of losses.reported.splice(0)) {
    if (change.kind !== 'post' && change.kind !== 'message') {
      const postId = change.postId;
      if (losses.notSomeoneElses.has(postId)) continue;
      if (!losses.deleted.has(postId)) {
        if (!gone.has(postId)) gone.set(postId, await postIsGone(options, postId));
        if (!gone.get(postId)) continue;
      }
    }
    recordLostChange(databaseNameFor(userId), change);
  }
}

/**
 * Restores a kept entry's waiting posts, photos and chat messages, so the feed and the chat upload their files and
 * send them, and the photos are sent, as any waiting on the device are.
 */
async function restoreWaitingFiles(
  options: KeptOptions,
  posts: SealedWaitingPost[],
  photos: SealedWaitingPhoto[],
  messages: SealedWaitingMessage[],
): Promise<void> {
  if (posts.length + photos.length + messages.length === 0) return;
  const { PendingFilesDatabase } = await import('./pending-files-db');
  const waiting = new PendingFilesDatabase(PENDING_FILES_DB, options);
  const blobOf = (sealed: { type: string; base64: string }) => base64ToBlob(sealed.base64, sealed.type);
  try {
    await waiting.posts.bulkPut(
      posts.map((post) => ({ ...post, files: post.files.map((file) => ({ ...file, blob: blobOf(file.blob) })) })),
    );
    await waiting.residentPhotos.bulkPut(photos.map((photo) => ({ ...photo, blob: blobOf(photo.blob) })));
    await waiting.messages.bulkPut(
      messages.map((message) => ({
        ...message,
        files: message.files.map((file) => ({ ...file, blob: blobOf(file.blob) })),
      })),
    );
  } finally {
    waiting.close();
  }
}

/** Asks the server for an entry's key; it answers only a session of the user it was sealed for. */
function unsealKey(options: KeptOptions, entry: KeptEntry): Promise<string> {
  return request<{ key: string }>(options, '/api/kept/unseal', {
    sealedAt: entry.sealedAt,
    wrappedKey: entry.wrappedKey,
  }).then(({ key }) => key);
}

/** Sends one entry with its key, then records what a delete on the server won over. */
async function sendEntry(
  options: KeptOptions,
  userId: string,
  entry: KeptEntry,
  key: Promise<string>,
  losses: Losses,
): Promise<void> {
  const payload = (await openEntry(entry, await key)) as KeptPayload;
  await restoreWaitingFiles(options, payload.waitingPosts, payload.residentPhotos ?? [], payload.waitingMessages ?? []);
  for (const name of PUSHABLE_COLLECTIONS) {
    const rows = payload.rows[name];
    if (rows?.length) await pushKeptRows(options, name, payload.deviceId, rows, losses, databaseNameFor(userId));
  }
  await recordLosses(options, userId, losses);
}

export interface KeptOutcome {
  /** Items now on the server (or back among the waiting posts). */
  sent: number;
  /** Items the server can no longer open (kept too long, or sealed with a key it lost). */
  lost: number;
}

const sending = new Map<string, Promise<KeptOutcome>>();

/**
 * Sends the signed-in user's kept work, oldest first, before their sync starts (decision 114); every entry's key is
 * asked for at once, so each entry's push follows the last without waiting for its key (decision 121). A network
 * failure or a server fault stops it and leaves the rest for the next try; an entry the server will never open is
 * dropped. Concurrent calls share one run.
 */
export function sendKeptWork(userId: string, options: KeptOptions = {}): Promise<KeptOutcome> {
  const running = sending.get(userId);
  if (running) return running;
  const run = (async () => {
    const outcome: KeptOutcome = { sent: 0, lost: 0 };
    const entries = await listKeptEntries(userId);
    const keys = entries.map((entry) => unsealKey(options, entry));
    // Each is awaited in turn below; one that fails after an earlier entry stopped the run is not an error.
    for (const key of keys) key.catch(() => {});
    const losses: Losses = { reported: [], deleted: new Set(), notSomeoneElses: new Set() };
    for (const [i, entry] of entries.entries()) {
      try {
        await sendEntry(options, userId, entry, keys[i], losses);
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

const announced = new WeakSet<Promise<KeptOutcome>>();

/**
 * Sends the user's kept work and says so once it is on the server; what cannot go now stays for the next try.
 * Called as soon as the user is known, and again before their sync starts: both wait for the same run, and only
 * the first says it was delivered.
 */
export async function deliverKeptWork(userId: string): Promise<void> {
  const run = sendKeptWork(userId);
  const first = !announced.has(run);
  announced.add(run);
  try {
    const { sent } = await run;
    if (first && sent > 0) {
      toast({
        title: 'Unsent items delivered',
        description: `${sent} ${sent === 1 ? 'item' : 'items'} kept on this device since your last session ${sent === 1 ? 'was' : 'were'} sent.`,
      });
    }
  } catch (error) {
    if (first) console.warn('Kept work will be sent later', error);
  }
}
