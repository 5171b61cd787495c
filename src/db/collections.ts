import { deepEqual, type RxCollection, type RxConflictHandler, type RxJsonSchema, type WithDeleted } from 'rxdb';
import { REACTION_TYPES } from '../../schema/post-rules';
import { ROLES } from '../../schema/role-rules';
import type {
  AcknowledgementDoc,
  CommentDoc,
  ConversationDoc,
  DirectoryUserDoc,
  MessageDoc,
  PostDoc,
  PostReactions,
  ReactionDoc,
  ResidentDoc,
  ResidentViewDoc,
  SyncCollection,
} from '../../schema/sync';
import { SYNC_WRITABLE_FIELDS } from '../../schema/sync-protocol';
import { lostChangeOf, type LostChange } from './lost-changes';

/**
 * Local documents are the wire documents (schema/sync.ts) without `_deleted` (RxDB keeps that itself) and
 * with `localPending`: true while a local write has not yet come back from the server. It is the spec's
 * "offline item" flag: the push strips it, every pulled document arrives with it false, and it is indexed
 * so the banner's count is cheap.
 */
type Local<T> = Omit<T, '_deleted'> & { localPending: boolean };

/** `reactions` is the server's: a post written on this device has none until the stored version comes back. */
export type PostLocal = Omit<Local<PostDoc>, 'reactions'> & { reactions?: PostReactions };
export type CommentLocal = Local<CommentDoc>;
export type ReactionLocal = Local<ReactionDoc>;
export type DirectoryUserLocal = Local<Omit<DirectoryUserDoc, never>>;
export type ConversationLocal = Local<ConversationDoc>;
export type MessageLocal = Local<MessageDoc>;
export type AcknowledgementLocal = Local<AcknowledgementDoc>;
export type ResidentLocal = Local<ResidentDoc>;
export type ResidentViewLocal = Local<ResidentViewDoc>;

const id = { type: 'string', maxLength: 200 } as const;
const millis = { type: 'number', minimum: 0, maximum: 1e15, multipleOf: 1 } as const;
const nullableId = { type: ['string', 'null'], maxLength: 200 } as const;
const nullableMillis = { type: ['number', 'null'], minimum: 0, maximum: 1e15, multipleOf: 1 } as const;
const pending = { type: 'boolean' } as const;
const strings = { type: 'array', items: { type: 'string' } } as const;

/** Documents stored under schema version 0 (before issue 4) gain the new list fields empty. */
const addHouses = (doc: Record<string, unknown>) => ({ ...doc, houses: [] });
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

export const usersSchema: RxJsonSchema<DirectoryUserLocal> = {
  title: 'staff directory',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    role: { type: 'string', enum: [...ROLES] },
    profileImageUrl: { type: ['string', 'null'] },
    isActive: { type: 'boolean' },
    houses: strings,
    updatedAt: millis,
    localPending: pending,
  },
  required: [
    'id',
    'firstName',
    'lastName',
    'role',
    'profileImageUrl',
    'isActive',
    'houses',
    'updatedAt',
    'localPending',
  ],
  indexes: ['localPending'],
  additionalProperties: false,
};

/** Per reaction type, the ids of the users who chose it (the server's, in the order they chose). */
const postReactions = {
  type: 'object',
  properties: Object.fromEntries(REACTION_TYPES.map((type) => [type, strings])),
  additionalProperties: false,
} as const;

export const postsSchema: RxJsonSchema<PostLocal> = {
  title: 'posts',
  version: 4,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    authorId: nullableId,
    content: { type: 'string' },
    category: { type: 'string', maxLength: 40 },
    isUrgent: { type: 'boolean' },
    houseTags: strings,
    audienceHouses: strings,
    images: { type: 'array', items: { type: 'string' } },
    attachments: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          url: { type: 'string' },
          originalName: { type: 'string' },
          fileType: { type: 'string' },
          fileSize: { type: 'number' },
        },
      },
    },
    reactions: postReactions,
    createdAt: millis,
    writtenAt: millis,
    updatedAt: millis,
    editedBy: nullableId,
    localPending: pending,
  },
  required: [
    'id',
    'authorId',
    'content',
    'category',
    'isUrgent',
    'houseTags',
    'audienceHouses',
    'images',
    'attachments',
    'createdAt',
    'writtenAt',
    'updatedAt',
    'editedBy',
    'localPending',
  ],
  indexes: ['createdAt', 'localPending'],
  additionalProperties: false,
};

export const commentsSchema: RxJsonSchema<CommentLocal> = {
  title: 'comments',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    postId: id,
    authorId: nullableId,
    content: { type: 'string' },
    createdAt: millis,
    writtenAt: millis,
    updatedAt: millis,
    localPending: pending,
  },
  required: ['id', 'postId', 'authorId', 'content', 'createdAt', 'writtenAt', 'updatedAt', 'localPending'],
  indexes: [['postId', 'createdAt'], 'localPending'],
  additionalProperties: false,
};

/** Only the user's own reaction documents (version 1; everyone's are on the posts since decision 74). */
export const reactionsSchema: RxJsonSchema<ReactionLocal> = {
  title: 'reactions',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    postId: id,
    userId: id,
    type: { type: 'string', enum: [...REACTION_TYPES] },
    createdAt: millis,
    updatedAt: millis,
    localPending: pending,
  },
  required: ['id', 'postId', 'userId', 'type', 'createdAt', 'updatedAt', 'localPending'],
  indexes: ['postId', 'localPending'],
  additionalProperties: false,
};

export const conversationsSchema: RxJsonSchema<ConversationLocal> = {
  title: 'conversations',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 250 },
    otherUserId: nullableId,
    readUpTo: millis,
    otherReadUpTo: millis,
    lastMessageAt: nullableMillis,
    createdAt: millis,
    updatedAt: millis,
    localPending: pending,
  },
  required: [
    'id',
    'otherUserId',
    'readUpTo',
    'otherReadUpTo',
    'lastMessageAt',
    'createdAt',
    'updatedAt',
    'localPending',
  ],
  indexes: ['localPending'],
  additionalProperties: false,
};

export const messagesSchema: RxJsonSchema<MessageLocal> = {
  title: 'messages',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    conversationId: { type: 'string', maxLength: 250 },
    senderId: nullableId,
    content: { type: 'string' },
    createdAt: millis,
    writtenAt: millis,
    localPending: pending,
  },
  required: ['id', 'conversationId', 'senderId', 'content', 'createdAt', 'writtenAt', 'localPending'],
  indexes: [['conversationId', 'createdAt'], 'localPending'],
  additionalProperties: false,
};

export const acknowledgementsSchema: RxJsonSchema<AcknowledgementLocal> = {
  title: 'acknowledgements',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id: { type: 'string', maxLength: 250 },
    postId: id,
    userId: id,
    createdAt: millis,
    acknowledgedAt: nullableMillis,
    writtenAt: nullableMillis,
    viewedAt: nullableMillis,
    localPending: pending,
  },
  required: ['id', 'postId', 'userId', 'createdAt', 'acknowledgedAt', 'writtenAt', 'viewedAt', 'localPending'],
  indexes: ['localPending'],
  additionalProperties: false,
};

const text = { type: 'string' } as const;

/**
 * Residents' profiles: the wire document of schema/sync.ts; health data, wiped at sign-out (unsent edits sealed
 * first). Version 1 since edits are pushed (decision 120): a pull-only collection kept no replication meta, without
 * which RxDB would push an edit as a create and skip pulled versions of it, so the collection is pulled again.
 */
export const residentsSchema: RxJsonSchema<ResidentLocal> = {
  title: 'residents',
  version: 1,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    name: { type: 'string', maxLength: 200 },
    likeToBeCall: text,
    dateOfBirth: { type: ['string', 'null'] },
    photoUrl: { type: ['string', 'null'] },
    interestsHappyPlace: text,
    supportNeedsCarePreferences: text,
    whatMakesSadAnxious: text,
    medication: text,
    strengthsAbilities: text,
    communicationPreferences: text,
    familySocialConnections: text,
    personalValuesBeliefs: text,
    houseTags: strings,
    createdBy: nullableId,
    createdAt: millis,
    updatedAt: millis,
    localPending: pending,
  },
  required: [
    'id',
    'name',
    'likeToBeCall',
    'dateOfBirth',
    'photoUrl',
    'interestsHappyPlace',
    'supportNeedsCarePreferences',
    'whatMakesSadAnxious',
    'medication',
    'strengthsAbilities',
    'communicationPreferences',
    'familySocialConnections',
    'personalValuesBeliefs',
    'houseTags',
    'createdBy',
    'createdAt',
    'updatedAt',
    'localPending',
  ],
  indexes: ['localPending'],
  additionalProperties: false,
};

/** Openings of a full profile waiting to reach the audit log (push; they come back as tombstones). */
export const residentViewsSchema: RxJsonSchema<ResidentViewLocal> = {
  title: 'resident views',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: { id, residentId: id, viewedAt: millis, localPending: pending },
  required: ['id', 'residentId', 'viewedAt', 'localPending'],
  indexes: ['localPending'],
  additionalProperties: false,
};

type AnyDoc = WithDeleted<Record<string, unknown>>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

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
      if (assumedMasterState && fields.every((f) => same(realMasterState[f], assumedMasterState[f]))) {
        return realMasterState;
      }
      const from = base ?? assumedMasterState;
      if (!from) return resolveCreate(realMasterState, newDocumentState, fields);
      if (newDocumentState._deleted) return { ...realMasterState, _deleted: true, localPending: true };
      const merged: AnyDoc = { ...realMasterState, localPending: true };
      for (const f of fields) {
        if (!same(newDocumentState[f], from[f])) merged[f] = newDocumentState[f];
      }
      return merged;
    },
  };
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
  const changed = fields.filter((f) => !same(mine[f], real[f]));
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
}

/** Everything addCollections needs for the synced collections; `report` hears of changes a delete won over. */
export function syncedCollections(bases: MergeBases = new Map(), report?: (change: LostChange) => void) {
  return {
    users: { schema: usersSchema, conflictHandler: conflictHandlerFor('users'), migrationStrategies: { 1: addHouses } },
    posts: {
      schema: postsSchema,
      conflictHandler: conflictHandlerFor('posts', bases, report),
      migrationStrategies: { 1: addAudience, 2: keepPending, 3: keepPendingWritten('createdAt'), 4: keepPendingEdited },
    },
    comments: {
      schema: commentsSchema,
      conflictHandler: conflictHandlerFor('comments', undefined, report),
      migrationStrategies: { 1: keepPendingWritten('createdAt') },
    },
    reactions: {
      schema: reactionsSchema,
      conflictHandler: conflictHandlerFor('reactions', undefined, report),
      migrationStrategies: { 1: keepPending },
    },
    conversations: { schema: conversationsSchema, conflictHandler: conflictHandlerFor('conversations') },
    messages: {
      schema: messagesSchema,
      conflictHandler: conflictHandlerFor('messages'),
      migrationStrategies: { 1: keepPendingWritten('createdAt') },
    },
    acknowledgements: {
      schema: acknowledgementsSchema,
      conflictHandler: conflictHandlerFor('acknowledgements'),
      migrationStrategies: { 1: keepPendingWritten('acknowledgedAt') },
    },
    residents: {
      schema: residentsSchema,
      conflictHandler: conflictHandlerFor('residents'),
      migrationStrategies: { 1: keepPending },
    },
    residentViews: { schema: residentViewsSchema, conflictHandler: conflictHandlerFor('residentViews') },
  };
}

export const SYNCED_COLLECTIONS = syncedCollections();
