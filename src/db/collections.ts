import { deepEqual, type RxCollection, type RxConflictHandler, type WithDeleted } from 'rxdb';
import { participantsOf } from '../../schema/chat-rules';
import type { SyncCollection } from '../../schema/sync';
import { SYNC_WRITABLE_FIELDS } from '../../schema/sync-protocol';
import { lostChangeOf, type LostChange } from './lost-changes';
import {
  RX_SCHEMAS,
  type AcknowledgementLocal,
  type CommentLocal,
  type ConversationLocal,
  type DirectoryUserLocal,
  type HandoverLocal,
  type MessageLocal,
  type PostLocal,
  type ReactionLocal,
  type ResidentLocal,
  type ResidentViewLocal,
} from './rx-schemas';
import { sameJson } from '../../schema/same-json';

export type {
  AcknowledgementLocal,
  CommentLocal,
  ConversationLocal,
  DirectoryUserLocal,
  HandoverLocal,
  MessageLocal,
  PostLocal,
  ReactionLocal,
  ResidentLocal,
  ResidentViewLocal,
} from './rx-schemas';

/** Documents stored under schema version 0 (before alert audiences and houses) gain the new list fields empty. */
const addHouses = (doc: Record<string, unknown>) => ({ ...doc, houses: [] });
/** The local copy stays readable offline; the re-pull a new version starts brings the real types (decision 147). */
const addType = (doc: Record<string, unknown>) => ({ ...doc, type: 'employee' });
const addAudience = (doc: Record<string, unknown>) => ({ ...doc, audienceHouses: [] });
/**
 * A new schema version starts a fresh replication state (RxDB keeps it per version), so the collection is
 * pulled again from the start. Only unsent local writes are kept (they are pushed as before); everything else
 * comes back from the server in its new shape, rather than being pushed up again as if it were new (decision 74).
 */
const keepPending = (doc: Record<string, unknown>) => (doc.localPending ? doc : null);
/**
 * The same, for the version that added `writtenAt` (decision 119): an unsent write was made on this device, so
 * its local time (`from`: the create's `createdAt`, an acknowledgement's `acknowledgedAt`) is when it was written.
 */
const keepPendingWritten = (from: 'createdAt' | 'acknowledgedAt') => (doc: Record<string, unknown>) =>
  doc.localPending ? { ...doc, writtenAt: doc[from] ?? null } : null;

/**
 * The same, for the version that added `editedBy` (decision 126): the server sets it, so an unsent write keeps
 * none until its stored version comes back.
 */
const keepPendingEdited = (doc: Record<string, unknown>) => (doc.localPending ? { ...doc, editedBy: null } : null);

/**
 * The conversations' version 1 (decision 143): an unsent one-to-one chat opened on this device is kept, as the pair's
 * direct chat with its two members; everything else is pulled again in the new shape.
 */
const keepPendingDirect = (doc: Record<string, unknown>) => {
  if (!doc.localPending) return null;
  const pair = typeof doc.id === 'string' ? participantsOf(doc.id) : null;
  return {
    ...doc,
    kind: 'direct',
    name: null,
    house: null,
    memberIds: pair ?? [],
    createdBy: null,
    readMarks: {},
    muted: false,
  };
};

/** The stored schemas, derived from the wire documents' zod schemas (src/db/rx-schemas.ts, decision 133). */
export const {
  users: usersSchema,
  posts: postsSchema,
  comments: commentsSchema,
  reactions: reactionsSchema,
  conversations: conversationsSchema,
  messages: messagesSchema,
  acknowledgements: acknowledgementsSchema,
  residents: residentsSchema,
  residentViews: residentViewsSchema,
  handovers: handoversSchema,
} = RX_SCHEMAS;

type AnyDoc = WithDeleted<Record<string, unknown>>;

/**
 * Whole-document equality. It must include server-owned fields and `localPending`: RxDB skips writing a
 * pulled master into the local store when this says equal, and the pulled master is what clears the flag.
 */
function isEqual(a: AnyDoc, b: AnyDoc): boolean {
  return deepEqual(stripMeta(a), stripMeta(b));
}

function stripMeta(doc: AnyDoc): AnyDoc {
  const { _meta, _rev, _attachments, ...rest } = doc as AnyDoc & {
    _meta?: unknown;
    _rev?: unknown;
    _attachments?: unknown;
  };
  void _meta;
  void _rev;
  void _attachments;
  return { ...rest, _deleted: Boolean(rest._deleted) };
}

/**
 * States to merge posts' conflicts from, by document id: the server sends, with a conflict, the state this
 * device's last accepted push left when it is newer than the assumed master (a push answer was lost), and the
 * push handler puts it here for the conflict handler (decision 69). One map per local database.
 */
export type MergeBases = Map<string, AnyDoc>;
const mergeBases = new WeakMap<object, MergeBases>();

/** The merge bases of a local database (see MergeBases). */
export function mergeBasesOf(database: object): MergeBases {
  let bases = mergeBases.get(database);
  if (!bases) mergeBases.set(database, (bases = new Map()));
  return bases;
}

/**
 * Conflict rules of docs/sync.md. Posts: the client's changed fields are re-applied on top of the server's
 * version (field by field, last writer wins) and a delete on either side wins. The client's changes are the
 * fields that differ from the state it last knew the server had: the assumed master, or the server's record
 * of what this device last wrote when that is newer (a lost answer, decision 69). Everything else: the server's
 * version wins (comments are never edited; a reaction has one writer; a resident's edit is merged on the server,
 * decision 120, so a conflict there is a refusal), except that a comment this device
 * deleted after its create had reached the server stays deleted (decision 68). A master equal to the state the
 * client started from means the server refused the change: the master wins then too. When a delete wins over the
 * user's own unsent change, `report` is told what they lost (decision 117).
 */
export function conflictHandlerFor(
  collection: SyncCollection,
  bases: MergeBases = new Map(),
  report?: (change: LostChange) => void,
): RxConflictHandler<AnyDoc> {
  const fields = SYNC_WRITABLE_FIELDS[collection];
  return {
    isEqual,
    async resolve({ assumedMasterState, realMasterState, newDocumentState }) {
      const id = String(newDocumentState.id);
      const base = bases.get(id);
      bases.delete(id);
      if (realMasterState._deleted) {
        const lost = lostChangeOf(collection, {
          mine: newDocumentState,
          real: realMasterState,
          from: base ?? assumedMasterState,
        });
        if (lost) report?.(lost);
        return realMasterState;
      }
      // Our own create got there before (its answer was lost) and we deleted it since: a delete wins.
      if (!assumedMasterState && newDocumentState._deleted && DELETE_WINS.includes(collection)) {
        return { ...realMasterState, _deleted: true, localPending: true };
      }
      if (collection !== 'posts') return realMasterState;
      // The server kept the state we started from: it refused our change (not allowed or invalid), so its
      // version stands; re-applying our fields would only be refused again.
      if (assumedMasterState && fields.every((f) => sameJson(realMasterState[f], assumedMasterState[f]))) {
        return realMasterState;
      }
      const from = base ?? assumedMasterState;
      if (!from)
        return unscheduledIfPublished(realMasterState, resolveCreate(realMasterState, newDocumentState, fields));
      if (newDocumentState._deleted) return { ...realMasterState, _deleted: true, localPending: true };
      const merged: AnyDoc = { ...realMasterState, localPending: true };
      for (const f of fields) {
        if (!sameJson(newDocumentState[f], from[f])) merged[f] = newDocumentState[f];
      }
      return unscheduledIfPublished(realMasterState, merged);
    },
  };
}

/**
 * A post the server has published takes no time from this device: a new time set here meanwhile would be refused and
 * take the user's other changes with it, so it is dropped and the rest is sent (decision 142).
 */
function unscheduledIfPublished(real: AnyDoc, merged: AnyDoc): AnyDoc {
  if (typeof real.publishAt === 'string' || merged.publishAt === undefined) return merged;
  const { publishAt, ...rest } = merged;
  void publishAt;
  return { ...rest, _deleted: merged._deleted };
}

/** Collections whose documents a client deletes, where a delete wins over what the server has (docs/sync.md). */
const DELETE_WINS: readonly SyncCollection[] = ['posts', 'comments'];

/**
 * A post pushed as new found one on the server: our own create got there before (its answer was lost, or the
 * app closed while it was on its way). A post never edited here (`updatedAt` still its `createdAt`) has nothing
 * more to say: the server's version stands. One edited here since has only this device's state, not the one it
 * was edited from, so every field that differs from the server's is taken as ours: before, the server's
 * version won and the edit was silently lost (decision 65).
 */
function resolveCreate(real: AnyDoc, mine: AnyDoc, fields: readonly string[]): AnyDoc {
  const changed = fields.filter((f) => !sameJson(mine[f], real[f]));
  if (changed.length === 0 || mine.updatedAt === mine.createdAt) return real;
  const merged: AnyDoc = { ...real, localPending: true };
  for (const f of changed) merged[f] = mine[f];
  return merged;
}

export interface SyncedCollections {
  users: RxCollection<DirectoryUserLocal>;
  posts: RxCollection<PostLocal>;
  comments: RxCollection<CommentLocal>;
  reactions: RxCollection<ReactionLocal>;
  conversations: RxCollection<ConversationLocal>;
  messages: RxCollection<MessageLocal>;
  acknowledgements: RxCollection<AcknowledgementLocal>;
  residents: RxCollection<ResidentLocal>;
  residentViews: RxCollection<ResidentViewLocal>;
  handovers: RxCollection<HandoverLocal>;
}

/** Everything addCollections needs for the synced collections; `report` hears of changes a delete won over. */
export function syncedCollections(bases: MergeBases = new Map(), report?: (change: LostChange) => void) {
  return {
    users: {
      schema: usersSchema,
      conflictHandler: conflictHandlerFor('users'),
      migrationStrategies: { 1: addHouses, 2: addType },
    },
    posts: {
      schema: postsSchema,
      conflictHandler: conflictHandlerFor('posts', bases, report),
      migrationStrategies: {
        1: addAudience,
        2: keepPending,
        3: keepPendingWritten('createdAt'),
        4: keepPendingEdited,
        // Version 5 carries requiresConfirmation and confirmBy: an unsent write keeps the server's (decision 137).
        5: keepPending,
        // Version 6 carries publishAt: an unsent post from before has none, so it is published when sent (decision 141).
        6: keepPending,
        // Version 7 carries mentions: an unsent post from before has none and mentions nobody (decision 144).
        7: keepPending,
      },
    },
    comments: {
      schema: commentsSchema,
      conflictHandler: conflictHandlerFor('comments', undefined, report),
      // Version 2 carries mentions: an unsent comment from before mentions nobody (decision 144).
      migrationStrategies: { 1: keepPendingWritten('createdAt'), 2: keepPending },
    },
    reactions: {
      schema: reactionsSchema,
      conflictHandler: conflictHandlerFor('reactions', undefined, report),
      migrationStrategies: { 1: keepPending },
    },
    conversations: {
      schema: conversationsSchema,
      conflictHandler: conflictHandlerFor('conversations'),
      migrationStrategies: { 1: keepPendingDirect },
    },
    messages: {
      schema: messagesSchema,
      // A refused message comes back without its words; they go to its sender's notice (decision 150).
      conflictHandler: conflictHandlerFor('messages', undefined, report),
      // Version 2 carries mentions: an unsent message from before mentions nobody (decision 150).
      migrationStrategies: { 1: keepPendingWritten('createdAt'), 2: keepPending },
    },
    acknowledgements: {
      schema: acknowledgementsSchema,
      conflictHandler: conflictHandlerFor('acknowledgements'),
      // Version 2 carries mention entries beside the alert rows (decision 144); version 3 those of chat messages (decision 150).
      migrationStrategies: { 1: keepPendingWritten('acknowledgedAt'), 2: keepPending, 3: keepPending },
    },
    residents: {
      schema: residentsSchema,
      conflictHandler: conflictHandlerFor('residents'),
      migrationStrategies: { 1: keepPending },
    },
    residentViews: {
      schema: residentViewsSchema,
      conflictHandler: conflictHandlerFor('residentViews'),
      // Version 1 adds openings of handover notes (decision 142): a profile opening not yet sent stays as it is.
      migrationStrategies: { 1: keepPending },
    },
    // The server takes only what is new (a note, addenda, the user's read): a conflict is a refusal (decision 138).
    handovers: { schema: handoversSchema, conflictHandler: conflictHandlerFor('handovers') },
  };
}

export const SYNCED_COLLECTIONS = syncedCollections();
