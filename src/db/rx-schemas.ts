/**
 * The RxDB schemas of the synced collections, derived from the zod schemas of their wire documents
 * (schema/sync.ts) with what RxDB needs besides (decision 133). The build replaces this module by the schemas it
 * exports, as data (`rxSchemasAsData`, vite.config.ts), so the app loads no zod for them (decisions 106 and 113).
 * Each schema is the one devices store: a change that alters one needs a new version and a migration strategy
 * (src/db/collections.ts), and `rx-schemas.test.ts` holds every version to what devices have.
 */
import type { JsonSchema, RxJsonSchema } from 'rxdb';
import {
  AcknowledgementDocSchema,
  CommentDocSchema,
  ConversationDocSchema,
  DirectoryUserDocSchema,
  HandoverDocSchema,
  MessageDocSchema,
  PostDocSchema,
  ReactionDocSchema,
  ResidentDocSchema,
  ResidentViewDocSchema,
  type AcknowledgementDoc,
  type CommentDoc,
  type ConversationDoc,
  type DirectoryUserDoc,
  type HandoverDoc,
  type MessageDoc,
  type PostDoc,
  type PostReactions,
  type ReactionDoc,
  type ResidentDoc,
  type ResidentViewDoc,
} from '../../schema/sync';
import { rxSchemaOf } from './rx-schema-of';

/**
 * Local documents are the wire documents (schema/sync.ts) without `_deleted` (RxDB keeps that itself) and
 * with `localPending`: true while a local write has not yet come back from the server. It is the
 * "offline item" flag of docs/behaviour.md, "Offline": the push strips it, every pulled document arrives with it false, and it is indexed
 * so the banner's count is cheap.
 */
type Local<T> = Omit<T, '_deleted'> & { localPending: boolean };

/**
 * `reactions` is the server's: a post written on this device has none until the stored version comes back. An unsent
 * post kept from before version 5 has no `requiresConfirmation` nor `confirmBy`: it leaves them as the server has them
 * (decision 137). `publishAt` is only on the author's own post scheduled on this device (version 6, decision 141). An
 * unsent post or comment kept from before version 7 (posts) or 2 (comments) has no `mentions` (decision 144).
 */
export type PostLocal = Omit<Local<PostDoc>, 'reactions' | 'requiresConfirmation' | 'confirmBy'> & {
  reactions?: PostReactions;
  requiresConfirmation?: boolean;
  confirmBy?: string | null;
};
export type CommentLocal = Local<CommentDoc>;
export type ReactionLocal = Local<ReactionDoc>;
export type DirectoryUserLocal = Local<DirectoryUserDoc>;
export type ConversationLocal = Local<ConversationDoc>;
export type MessageLocal = Local<MessageDoc>;
export type AcknowledgementLocal = Local<AcknowledgementDoc>;
export type ResidentLocal = Local<ResidentDoc>;
export type ResidentViewLocal = Local<ResidentViewDoc>;
export type HandoverLocal = Local<HandoverDoc>;

const local = { localPending: { type: 'boolean' } } as const;
/** The length RxDB reserves for an id in its indexes; an id made of two (a conversation's, an alert's) takes more. */
const ID = 200;
const PAIR_ID = 250;

/**
 * A post's files as devices store them: any of these fields, others allowed, the size any number. zod says all
 * five, no others, a whole size; RxDB's validation is not used, so the looser schema costs nothing (decision 133).
 */
const storedAttachments: JsonSchema = {
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
};

/** Read marks by user id, stored as any object of numbers (zod says whole, non-negative; decision 133). */
const readMarks: JsonSchema = { type: 'object', additionalProperties: { type: 'number' } };

export const RX_SCHEMAS: {
  users: RxJsonSchema<DirectoryUserLocal>;
  posts: RxJsonSchema<PostLocal>;
  comments: RxJsonSchema<CommentLocal>;
  reactions: RxJsonSchema<ReactionLocal>;
  conversations: RxJsonSchema<ConversationLocal>;
  messages: RxJsonSchema<MessageLocal>;
  acknowledgements: RxJsonSchema<AcknowledgementLocal>;
  residents: RxJsonSchema<ResidentLocal>;
  residentViews: RxJsonSchema<ResidentViewLocal>;
  handovers: RxJsonSchema<HandoverLocal>;
} = {
  /** Version 2 carries each colleague's account type, for the Agency / Bank badge (decision 147). */
  users: rxSchemaOf<DirectoryUserLocal>(DirectoryUserDocSchema, {
    title: 'staff directory',
    version: 2,
    primaryKey: 'id',
    indexes: ['localPending'],
    local,
    maxLength: { id: ID },
  }),
  posts: rxSchemaOf<PostLocal>(PostDocSchema, {
    title: 'posts',
    version: 7,
    primaryKey: 'id',
    indexes: ['createdAt', 'localPending'],
    local,
    maxLength: { id: ID, authorId: ID, category: 40, editedBy: ID },
    optional: ['reactions', 'requiresConfirmation', 'confirmBy', 'publishAt', 'mentions'],
    stored: { attachments: storedAttachments },
  }),
  comments: rxSchemaOf<CommentLocal>(CommentDocSchema, {
    title: 'comments',
    version: 2,
    primaryKey: 'id',
    indexes: [['postId', 'createdAt'], 'localPending'],
    local,
    maxLength: { id: ID, postId: ID, authorId: ID },
    optional: ['mentions'],
  }),
  /** Only the user's own reaction documents (version 1; everyone's are on the posts since decision 74). */
  reactions: rxSchemaOf<ReactionLocal>(ReactionDocSchema, {
    title: 'reactions',
    version: 1,
    primaryKey: 'id',
    indexes: ['postId', 'localPending'],
    local,
    maxLength: { id: ID, postId: ID, userId: ID },
  }),
  /** Version 1: every kind of conversation, its members, their read marks and the user's mute (decision 143). */
  conversations: rxSchemaOf<ConversationLocal>(ConversationDocSchema, {
    title: 'conversations',
    version: 1,
    primaryKey: 'id',
    indexes: ['localPending'],
    local,
    maxLength: { id: PAIR_ID, otherUserId: ID, createdBy: ID },
    stored: { readMarks: readMarks },
  }),
  /**
   * Version 2 carries the members a message mentions and its photos and files (decision 150); an unsent message from
   * before has none.
   */
  messages: rxSchemaOf<MessageLocal>(MessageDocSchema, {
    title: 'messages',
    version: 2,
    primaryKey: 'id',
    indexes: [['conversationId', 'createdAt'], 'localPending'],
    local,
    maxLength: { id: ID, conversationId: PAIR_ID, senderId: ID },
    optional: ['mentions', 'images', 'attachments'],
    stored: { attachments: storedAttachments },
  }),
  /**
   * The user's alert rows and, since version 2, their mention entries (decision 144); since version 3 an entry may be
   * about a chat message, naming its conversation (decision 150).
   */
  acknowledgements: rxSchemaOf<AcknowledgementLocal>(AcknowledgementDocSchema, {
    title: 'acknowledgements',
    version: 3,
    primaryKey: 'id',
    indexes: ['localPending'],
    local,
    maxLength: { id: PAIR_ID, postId: ID, userId: ID },
  }),
  /**
   * Residents' profiles: health data, wiped at sign-out (unsent edits sealed first). Version 1 since edits are
   * pushed (decision 120): a pull-only collection kept no replication meta, without which RxDB would push an edit
   * as a create and skip pulled versions of it, so the collection is pulled again.
   */
  residents: rxSchemaOf<ResidentLocal>(ResidentDocSchema, {
    title: 'residents',
    version: 1,
    primaryKey: 'id',
    indexes: ['localPending'],
    local,
    maxLength: { id: ID, name: ID, createdBy: ID },
  }),
  /**
   * Openings of a full profile, and (version 1) of a house's handover notes, waiting to reach the audit log (push;
   * they come back as tombstones; decision 142).
   */
  residentViews: rxSchemaOf<ResidentViewLocal>(ResidentViewDocSchema, {
    title: 'resident views',
    version: 1,
    primaryKey: 'id',
    indexes: ['localPending'],
    local,
    maxLength: { id: ID, residentId: ID, house: 100 },
    optional: ['house', 'handoverIds'],
  }),
  /**
   * Shift handover notes of the user's houses (decision 140): health data, wiped at sign-out (unsent ones sealed
   * first). Listed by house, newest first.
   */
  handovers: rxSchemaOf<HandoverLocal>(HandoverDocSchema, {
    title: 'handover notes',
    version: 0,
    primaryKey: 'id',
    indexes: [['house', 'createdAt'], 'localPending'],
    local,
    maxLength: { id: ID, house: 100 },
  }),
};
