import { deepEqual, type RxCollection, type RxConflictHandler, type RxJsonSchema, type WithDeleted } from 'rxdb';
import { REACTION_TYPES } from '../../schema/posts';
import { ROLES } from '../../schema/roles';
import type { CommentDoc, DirectoryUserDoc, PostDoc, ReactionDoc, SyncCollection } from '../../schema/sync';
import { SYNC_WRITABLE_FIELDS } from '../../schema/sync';

/**
 * Local documents are the wire documents (schema/sync.ts) without `_deleted` (RxDB keeps that itself) and
 * with `localPending`: true while a local write has not yet come back from the server. It is the spec's
 * "offline item" flag: the push strips it, every pulled document arrives with it false, and it is indexed
 * so the banner's count is cheap.
 */
type Local<T> = Omit<T, '_deleted'> & { localPending: boolean };

export type PostLocal = Local<PostDoc>;
export type CommentLocal = Local<CommentDoc>;
export type ReactionLocal = Local<ReactionDoc>;
export type DirectoryUserLocal = Local<Omit<DirectoryUserDoc, never>>;

const id = { type: 'string', maxLength: 200 } as const;
const millis = { type: 'number', minimum: 0, maximum: 1e15, multipleOf: 1 } as const;
const nullableId = { type: ['string', 'null'], maxLength: 200 } as const;
const pending = { type: 'boolean' } as const;

export const usersSchema: RxJsonSchema<DirectoryUserLocal> = {
  title: 'staff directory',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    firstName: { type: 'string' },
    lastName: { type: 'string' },
    role: { type: 'string', enum: [...ROLES] },
    profileImageUrl: { type: ['string', 'null'] },
    isActive: { type: 'boolean' },
    updatedAt: millis,
    localPending: pending,
  },
  required: ['id', 'firstName', 'lastName', 'role', 'profileImageUrl', 'isActive', 'updatedAt', 'localPending'],
  indexes: ['localPending'],
  additionalProperties: false,
};

export const postsSchema: RxJsonSchema<PostLocal> = {
  title: 'posts',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    authorId: nullableId,
    content: { type: 'string' },
    category: { type: 'string', maxLength: 40 },
    isUrgent: { type: 'boolean' },
    houseTags: { type: 'array', items: { type: 'string' } },
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
    createdAt: millis,
    updatedAt: millis,
    localPending: pending,
  },
  required: [
    'id',
    'authorId',
    'content',
    'category',
    'isUrgent',
    'houseTags',
    'images',
    'attachments',
    'createdAt',
    'updatedAt',
    'localPending',
  ],
  indexes: ['createdAt', 'localPending'],
  additionalProperties: false,
};

export const commentsSchema: RxJsonSchema<CommentLocal> = {
  title: 'comments',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: {
    id,
    postId: id,
    authorId: nullableId,
    content: { type: 'string' },
    createdAt: millis,
    updatedAt: millis,
    localPending: pending,
  },
  required: ['id', 'postId', 'authorId', 'content', 'createdAt', 'updatedAt', 'localPending'],
  indexes: [['postId', 'createdAt'], 'localPending'],
  additionalProperties: false,
};

export const reactionsSchema: RxJsonSchema<ReactionLocal> = {
  title: 'reactions',
  version: 0,
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
 * Conflict rules of docs/sync.md. Posts: the client's changed fields are re-applied on top of the server's
 * version (field by field, last writer wins) and a delete on either side wins. Everything else: the server's
 * version wins (comments are never edited; a reaction has one writer). A master equal to the state the
 * client started from means the server refused the change: the master wins then too.
 */
export function conflictHandlerFor(collection: SyncCollection): RxConflictHandler<AnyDoc> {
  const fields = SYNC_WRITABLE_FIELDS[collection];
  return {
    isEqual,
    async resolve({ assumedMasterState, realMasterState, newDocumentState }) {
      if (collection !== 'posts' || realMasterState._deleted || !assumedMasterState) return realMasterState;
      // The server kept the state we started from: it refused our change (not allowed or invalid), so its
      // version stands; re-applying our fields would only be refused again.
      if (fields.every((f) => same(realMasterState[f], assumedMasterState[f]))) return realMasterState;
      if (newDocumentState._deleted) return { ...realMasterState, _deleted: true, localPending: true };
      const merged: AnyDoc = { ...realMasterState, localPending: true };
      for (const f of fields) {
        if (!same(newDocumentState[f], assumedMasterState[f])) merged[f] = newDocumentState[f];
      }
      return merged;
    },
  };
}

export interface SyncedCollections {
  users: RxCollection<DirectoryUserLocal>;
  posts: RxCollection<PostLocal>;
  comments: RxCollection<CommentLocal>;
  reactions: RxCollection<ReactionLocal>;
}

/** Everything addCollections needs for the synced collections. */
export const SYNCED_COLLECTIONS = {
  users: { schema: usersSchema, conflictHandler: conflictHandlerFor('users') },
  posts: { schema: postsSchema, conflictHandler: conflictHandlerFor('posts') },
  comments: { schema: commentsSchema, conflictHandler: conflictHandlerFor('comments') },
  reactions: { schema: reactionsSchema, conflictHandler: conflictHandlerFor('reactions') },
};
