import {
  CHECKPOINT_ID_END,
  SYNC_WRITABLE_FIELDS,
  type ChangeEvent,
  type PullQuery,
  type PullResponse,
  type PUSHABLE_COLLECTIONS,
  type PushResponse,
  type FieldMerge,
  type PushRow,
  type SyncCollection,
} from '../../../schema/sync';
import { sameJson } from '../../../schema/same-json';
import { inTransaction } from '../../db/client';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { AppError, badRequest } from '../../lib/errors';
import { currentSeq, touchRow } from '../../lib/seq.queries';
import { findDeviceState, rememberDeviceState } from './device-states.queries';

export { sameJson };

type PushedCollection = (typeof PUSHABLE_COLLECTIONS)[number];

/** A document as replication carries it. */
export interface SyncDoc {
  id: string;
  _deleted: boolean;
}

/** A pushed document: checked field by field by the collection's handler. */
export type PushedDoc = PushRow['newDocumentState'];

/**
 * What a feature exports from its `<feature>.sync.ts`: how to pull its documents and how to apply a pushed
 * change through its own service functions (the same ones its REST routes call).
 */
export interface SyncHandler<D extends SyncDoc = SyncDoc> {
  /** Documents this user may see whose (server_seq, id) is after the checkpoint, in that order. */
  pull(deps: AppDeps, actor: SessionUser, seq: number, id: string, limit: number): Promise<{ seq: number; doc: D }[]>;
  /**
   * First sync, newest first: live documents at or below `until` and before `before`, newest change first.
   * Collections without it fill oldest first.
   */
  pullNewest?(
    deps: AppDeps,
    actor: SessionUser,
    until: number,
    before: { seq: number; id: string } | undefined,
    limit: number,
  ): Promise<{ seq: number; doc: D }[]>;
  /**
   * The stored master document as pull would send it to this user, or null: also null when the user may not
   * see it (another pair's message), so a refused push never answers someone else's document.
   */
  findMaster?(deps: AppDeps, id: string, actor: SessionUser): Promise<D | null>;
  /**
   * Applies a change whose assumed master matched (or, with `mergesOnServer`, any change: `base` is then the state
   * it was made from); throws an AppError to refuse it. Answers a merge the pusher should be told of, if any.
   */
  apply?(
    deps: AppDeps,
    actor: SessionUser,
    doc: PushedDoc,
    master: D | null,
    meta: RequestMeta,
    base: PushedDoc | null,
  ): Promise<FieldMerge | void>;
  /**
   * Skip the assumed-master check: only one user ever writes these documents (a reaction is per user), so the
   * last push wins.
   */
  lastPushWins?: boolean;
  /**
   * The device merges this collection's conflicts field by field (posts): keep the state each device's last
   * accepted push left, and send it with a conflict as the state to merge from when it is newer than the
   * device's assumed master (a push answer was lost; decision 69). Documents need a server-set `updatedAt`
   * that grows with every change.
   */
  mergesFields?: boolean;
  /**
   * The server merges an edit field by field itself (residents, decision 120): no assumed-master check; `apply` gets
   * the state the edit was made from (the assumed master, or this device's last accepted state when newer, as with
   * `mergesFields`, which it needs) and writes only the fields changed from it. What it says of the merge goes back
   * in the answer's `merges`.
   */
  mergesOnServer?: boolean;
  /**
   * Every user pulls the same documents (the pull ignores who asks): one computed answer, and one change event, serves
   * every device (decision 131).
   */
  sameForEveryone?: boolean;
  /**
   * The documents of several users changed after a sequence, by user, in one read: for a change event sent to a whole
   * audience at once (an urgent post's alert lists). The same visibility as `pull`, user by user.
   */
  pullOfUsers?(
    deps: AppDeps,
    userIds: ReadonlySet<string>,
    seq: number,
  ): Promise<Map<string, { seq: number; doc: D; json?: string }[]>>;
  /**
   * What a refused create turns into on the client, when not simply its own document deleted: a message's tombstone
   * holds no words (decision 150).
   */
  refusedAs?(doc: PushedDoc): SyncDoc;
}

/** Whether the client's assumed master is the stored master: its writable fields and `_deleted` (docs/sync.md). */
export function sameState(collection: SyncCollection, assumed: PushedDoc | null, master: SyncDoc | null): boolean {
  if (!assumed || !master) return !assumed && !master;
  if (Boolean(assumed._deleted) !== master._deleted) return false;
  const a = assumed as Record<string, unknown>;
  const m = master as unknown as Record<string, unknown>;
  return SYNC_WRITABLE_FIELDS[collection].every((field) => sameJson(a[field], m[field]));
}

/** What a refused create turns into on the client: its own document, deleted. */
function tombstoneOf(doc: PushedDoc): SyncDoc {
  return { ...doc, _deleted: true };
}

/**
 * GET /api/sync/{collection}/pull: a page after the checkpoint; an empty page keeps the checkpoint. With
 * `backfill`, a first sync fills the collection newest first up to the sequence at its start, then carries
 * on in change order from there (docs/sync.md, "Newest first").
 */
export async function pullDocuments(
  deps: AppDeps,
  actor: SessionUser,
  handler: SyncHandler,
  query: PullQuery,
): Promise<PullResponse<SyncDoc>> {
  if (query.backfill && handler.pullNewest) {
    const until = query.beforeSeq === undefined ? await currentSeq(deps.db) : query.seq;
    const before = query.beforeSeq === undefined ? undefined : { seq: query.beforeSeq, id: query.beforeId ?? '' };
    const rows = await handler.pullNewest(deps, actor, until, before, query.limit);
    const last = rows[rows.length - 1];
    const done = rows.length < query.limit;
    return {
      documents: rows.map((r) => r.doc),
      checkpoint: {
        seq: until,
        id: CHECKPOINT_ID_END,
        before: done || !last ? null : { seq: last.seq, id: last.doc.id },
      },
      // The fill is done: a device that was empty now holds every live document up to `until` (decision 131).
      ...(done ? { through: until } : {}),
    };
  }
  if (query.backfill) query = { ...query, seq: 0, id: '' };
  // Read before the rows: a short page holds everything up to it (decision 131). Writers commit in sequence order
  // (decision 157), so every change up to it has committed before the rows are read.
  const through = await currentSeq(deps.db);
  const rows = await handler.pull(deps, actor, query.seq, query.id, query.limit);
  const last = rows[rows.length - 1];
  return {
    documents: rows.map((r) => r.doc),
    checkpoint: last
      ? { seq: last.seq, id: last.doc.id, before: null }
      : { seq: query.seq, id: query.id, before: null },
    through,
  };
}

/** Most documents a change event carries; a larger change is announced and pulled (decision 131). */
export const EVENT_DOCUMENTS_MAX = 100;
/** Most bytes of a change event's data; a larger one is announced and pulled. */
export const EVENT_BYTES_MAX = 64 * 1024;

/**
 * The live-stream event telling `actor` what changed in a collection after `since`: the documents as their pull
 * would answer them (the same handler, so the same visibility rules), and the checkpoint `through` (the sequence now)
 * that a device holding everything up to `since` may store them at. Null when this user may see none of it; only
 * the collection's name (pull it) when the change is too large to carry.
 */
export async function changeEventOf(
  deps: AppDeps,
  actor: SessionUser,
  collection: SyncCollection,
  handler: SyncHandler,
  since: number,
  through: number,
): Promise<string | null> {
  const rows = await handler.pull(deps, actor, since, CHECKPOINT_ID_END, EVENT_DOCUMENTS_MAX + 1);
  return changeEventEncoder(collection, since, through)(rows);
}

/**
 * Encodes change events that follow from `since` up to `through` from the rows a user's pull answered after `since`
 * (see changeEventOf); what they share is encoded once, for an event to each of an urgent post's 5,000 readers. A row's
 * `json`, when its handler gave one, is the document's JSON text, written as it is.
 */
export function changeEventEncoder(
  collection: SyncCollection,
  since: number,
  through: number,
): (rows: readonly { doc: SyncDoc; json?: string }[]) => string | null {
  const event: Omit<ChangeEvent<SyncDoc>, 'documents'> = {
    collection,
    since,
    checkpoint: { seq: through, id: CHECKPOINT_ID_END, before: null },
  };
  const head = `${JSON.stringify(event).slice(0, -1)},"documents":[`;
  const announced = JSON.stringify({ collection } satisfies ChangeEvent<SyncDoc>);
  return (rows) => {
    if (rows.length === 0) return null;
    if (rows.length > EVENT_DOCUMENTS_MAX) return announced;
    const data = `${head}${rows.map((r) => r.json ?? JSON.stringify(r.doc)).join(',')}]}`;
    return data.length > EVENT_BYTES_MAX ? announced : data;
  };
}

/**
 * POST /api/sync/{collection}/push. One transaction for the request, each row in order in a savepoint of its own:
 * a row whose assumed master is not the stored one is a conflict (the master goes back); otherwise the change goes
 * through the feature's service. A refused row (400, 403, 404, 409...) rolls back only itself and answers the
 * master, or a tombstone for a refused create, and the rest of the batch carries on. A server error stops the batch
 * after committing the rows before it (docs/sync.md, "Push").
 */
export async function pushDocuments(
  deps: AppDeps,
  actor: SessionUser,
  collection: SyncCollection,
  handler: SyncHandler,
  rows: PushRow[],
  meta: RequestMeta,
  deviceId?: string,
): Promise<PushResponse<SyncDoc>> {
  if (!handler.findMaster || !handler.apply) return badRequest('This collection is read-only');
  // Every read and write below goes through the transaction's `deps` it is given: on SQLite a query on the app's
  // connection inside the transaction would wait for ever (decision 157).
  const findMaster = (deps: AppDeps, id: string) => handler.findMaster!(deps, id, actor);
  const refused = (doc: PushedDoc) => (handler.refusedAs ?? tombstoneOf)(doc);
  const conflicts: SyncDoc[] = [];
  const bases: Record<string, SyncDoc> = {};
  const device = handler.mergesFields && deviceId ? deviceId : null;
  const keyOf = (docId: string) => ({ collection, docId, userId: actor.id, deviceId: device! });
  const merges: Record<string, FieldMerge> = {};
  /** The state this device's last accepted push left, when newer than what the row assumed (decision 69). */
  const newerDeviceState = async (deps: AppDeps, id: string, assumed: PushedDoc | null): Promise<PushedDoc | null> => {
    const base = device ? await findDeviceState(deps.db, keyOf(id)) : null;
    return base && (!assumed || updatedAtOf(base) > updatedAtOf(assumed)) ? { ...base } : null;
  };
  let touched = false;
  /**
   * Applies one row in a savepoint of its own inside the request's transaction (whose `deps` it is given); answers its
   * conflict, or null when it was accepted.
   */
  const pushRow = (deps: AppDeps, row: PushRow): Promise<SyncDoc | { merge: FieldMerge } | null> => {
    const doc = row.newDocumentState;
    return inTransaction(deps, async (deps) => {
      const master = await findMaster(deps, doc.id);
      const assumed = row.assumedMasterState ?? null;
      const checked = !handler.lastPushWins && !handler.mergesOnServer;
      if (checked && !sameState(collection, assumed, master)) {
        const base = master ? await newerDeviceState(deps, doc.id, assumed) : null;
        if (base) bases[doc.id] = { ...base, _deleted: Boolean(base._deleted) };
        return master ?? refused(doc);
      }
      const from = handler.mergesOnServer ? ((await newerDeviceState(deps, doc.id, assumed)) ?? assumed) : null;
      const merge = await handler.apply!(deps, actor, doc, master, meta, from);
      const stored = device || master ? await findMaster(deps, doc.id) : null;
      if (device && stored) {
        // A merging server stores more than the device sent: the device knows only what it pushed.
        const known = handler.mergesOnServer ? { ...stored, ...writableOf(collection, doc) } : stored;
        await rememberDeviceState(deps.db, keyOf(doc.id), known, deps.now());
      }
      // Accepted but nothing changed (a retry whose first answer was lost, the same value again): no change
      // event would follow, and the pusher, whose copy waits for the stored version, would never get it.
      if (master && sameJson(stored, master)) {
        // Pushable: the read-only collections were refused above (they have no findMaster and apply).
        await touchRow(deps.db, collection as PushedCollection, doc.id);
        touched = true;
      }
      return merge ? { merge } : null;
    });
  };
  let failure: unknown = null;
  // One commit per request rather than per row: a row's own transaction cost more than its work. Rows go one after
  // another, in order, so their sequence numbers (server_seq) follow the batch's order.
  await inTransaction(deps, async (deps) => {
    for (const row of rows) {
      try {
        const answer = await pushRow(deps, row);
        if (answer && 'merge' in answer) merges[row.newDocumentState.id] = answer.merge;
        else if (answer) conflicts.push(answer);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) {
          // The rows before it are committed; the error is thrown once the transaction has ended.
          failure = error;
          return;
        }
        conflicts.push((await findMaster(deps, row.newDocumentState.id)) ?? refused(row.newDocumentState));
      }
    }
  });
  if (failure) throw failure;
  if (touched) deps.hub.notify(collection, [actor.id]);
  return {
    conflicts,
    ...(Object.keys(bases).length > 0 ? { bases } : {}),
    ...(Object.keys(merges).length > 0 ? { merges } : {}),
  };
}

/** The fields of a pushed document a client may write. */
function writableOf(collection: SyncCollection, doc: PushedDoc): Record<string, unknown> {
  const fields: readonly string[] = SYNC_WRITABLE_FIELDS[collection];
  return Object.fromEntries(Object.entries(doc).filter(([key]) => fields.includes(key)));
}

/** The server-set change time of a document merged field by field. */
function updatedAtOf(doc: object): number {
  const at = (doc as { updatedAt?: unknown }).updatedAt;
  return typeof at === 'number' ? at : -Infinity;
}
