/** Replication wire types (docs/sync.md): what pull answers, what push sends, and the live stream's events. */
import { z } from 'zod';
import { HANDOVER_MESSAGES, HANDOVER_VIEW_IDS_MAX } from './handovers';
import { AttachmentSchema, ReactionTypeSchema } from './posts';
import { AccountTypeSchema, RoleSchema } from './roles';
import { PULL_LIMIT_DEFAULT, PULL_LIMIT_MAX } from './sync-limits';
import { PUSH_ROWS_MAX, SERVED_COLLECTIONS } from './sync-protocol';

export * from './sync-protocol';

/** A synced collection's name, as the sync routes take it. */
export const SyncCollectionSchema = z.enum(SERVED_COLLECTIONS, { message: 'No such sync collection' });

/**
 * Where a client is in the change feed: the last (server_seq, id) it has seen. While a first sync fills a
 * collection newest first (docs/sync.md, "Newest first"), `before` is where the backfill stands and `seq` is
 * the sequence the backfill covers up to; the id `~` sorts after every real id.
 */
export const SyncCheckpointSchema = z.object({
  seq: z.number().int().nonnegative(),
  id: z.string(),
  /**
   * Null once the fill is over: RxDB merges a new checkpoint into the last one key by key, so a missing key
   * would keep the previous page's `before` and the fill would start again.
   */
  before: z.object({ seq: z.number().int().nonnegative(), id: z.string() }).nullable().optional(),
});
export type SyncCheckpoint = z.infer<typeof SyncCheckpointSchema>;

/** GET /api/sync/{collection}/pull?seq=&id=&limit= */
export const PullQuerySchema = z.object({
  seq: z.coerce.number({ message: 'seq must be a number' }).int().nonnegative().default(0),
  id: z.string().max(200).default(''),
  /** First sync, newest first: "1" to start a backfill, with `beforeSeq`/`beforeId` to continue one. */
  backfill: z.enum(['1']).optional(),
  beforeSeq: z.coerce.number().int().nonnegative().optional(),
  beforeId: z.string().max(200).optional(),
  limit: z.coerce
    .number({ message: `limit must be a number from 1 to ${PULL_LIMIT_MAX}` })
    .int()
    .min(1, `limit must be a number from 1 to ${PULL_LIMIT_MAX}`)
    .max(PULL_LIMIT_MAX, `limit must be a number from 1 to ${PULL_LIMIT_MAX}`)
    .default(PULL_LIMIT_DEFAULT),
});
export type PullQuery = z.infer<typeof PullQuerySchema>;

/** Times in documents are integer milliseconds since the epoch, set by the server (`writtenAt` bounded by it). */
const millis = z.number().int().nonnegative();

/**
 * Everyone's live reactions to a post, carried on the post (docs/sync.md): per type, the ids of the users who
 * chose it, in the order they chose it; types nobody chose are left out. Server-owned: a push never changes it.
 */
export const PostReactionsSchema = z.partialRecord(ReactionTypeSchema, z.array(z.string()));
export type PostReactions = z.infer<typeof PostReactionsSchema>;

export const PostDocSchema = z.object({
  id: z.string(),
  /** Set by the server to the signed-in author; null once the account is deleted. */
  authorId: z.string().nullable(),
  content: z.string(),
  category: z.string(),
  isUrgent: z.boolean(),
  houseTags: z.array(z.string()),
  /** Urgent posts and posts requiring confirmation: the houses addressed; empty means all staff. */
  audienceHouses: z.array(z.string()),
  /** Its audience must confirm they have read it; only admins set it (decision 136). */
  requiresConfirmation: z.boolean(),
  /** YYYY-MM-DD: when confirmations are due; null without a due date or confirmation. */
  confirmBy: z.string().nullable(),
  images: z.array(z.string()),
  attachments: z.array(AttachmentSchema),
  /** Set by the server; a tombstone has none. */
  reactions: PostReactionsSchema,
  /** When the post reached the server: orders the feed, pages and sync. */
  createdAt: millis,
  /**
   * When the author wrote it, by the device's clock, bounded by the server (never after createdAt); what the
   * post shows (docs/sync.md, "Two times: written and arrived"). A client sets it on create; fixed after.
   */
  writtenAt: millis,
  updatedAt: millis,
  /** Set by the server: who last edited the post when that was not its author, else null (decision 126). */
  editedBy: z.string().nullable(),
  /**
   * ISO 8601: when a scheduled post is to be published, given with the create by its author's device; null or missing:
   * at once. Writable while the post is scheduled (a new time, null: now), refused once published (decision 142). No
   * pull carries it: a scheduled post is in none (decision 141).
   */
  publishAt: z.string().nullable().optional(),
  /**
   * User ids and `house:<name>` mentioned in the text, as the server kept them (decision 144); every pulled post has
   * it, a device's unsent post from before it may lack it (it then mentions nobody, or keeps what an edit's post had).
   */
  mentions: z.array(z.string()).optional(),
  _deleted: z.boolean(),
});
export type PostDoc = z.infer<typeof PostDocSchema>;

export const CommentDocSchema = z.object({
  id: z.string(),
  postId: z.string(),
  authorId: z.string().nullable(),
  content: z.string(),
  createdAt: millis,
  /** When the author wrote it (device clock), never before the post could be seen nor after createdAt. */
  writtenAt: millis,
  updatedAt: millis,
  /**
   * User ids and `house:<name>` mentioned in the text, as the server kept them (decision 144), set with the create;
   * every pulled comment has it, a device's unsent comment from before it may lack it.
   */
  mentions: z.array(z.string()).optional(),
  _deleted: z.boolean(),
});
export type CommentDoc = z.infer<typeof CommentDocSchema>;

/**
 * One user's reaction to one post; its id is `${postId}:${userId}`. A removed reaction is a tombstone. Each user
 * pulls only their own (the toggle that works offline); everyone's reach clients on the posts' `reactions`.
 */
export const ReactionDocSchema = z.object({
  id: z.string(),
  postId: z.string(),
  userId: z.string(),
  type: ReactionTypeSchema,
  createdAt: millis,
  updatedAt: millis,
  _deleted: z.boolean(),
});
export type ReactionDoc = z.infer<typeof ReactionDocSchema>;

/** An entry of the staff directory (no e-mail); a deleted account arrives as a tombstone. */
export const DirectoryUserDocSchema = z.object({
  id: z.string(),
  firstName: z.string(),
  lastName: z.string(),
  role: RoleSchema,
  profileImageUrl: z.string().nullable(),
  isActive: z.boolean(),
  /** The houses the colleague works in (set on the admin page). */
  houses: z.array(z.string()),
  /** Employee, bank or agency: the latter two show a small badge beside the name (decision 147). */
  type: AccountTypeSchema,
  updatedAt: millis,
  _deleted: z.boolean(),
});
export type DirectoryUserDoc = z.infer<typeof DirectoryUserDocSchema>;

/**
 * A conversation as one of its members pulls it (decision 143): `readUpTo` and `muted` are the puller's own, so each
 * member's document differs. Only current members pull it; a member who left or was removed pulls a tombstone. A
 * one-to-one chat's id is `conversationIdOf(a, b)` (schema/chat.ts), so both phones name it the same even offline;
 * a house chat's is `houseChatIdOf(house)`; a group's is a UUID.
 */
export const ConversationDocSchema = z.object({
  id: z.string(),
  kind: z.enum(['direct', 'group', 'house']),
  /** A group's name, the house for a house chat; null for a one-to-one chat. */
  name: z.string().nullable(),
  house: z.string().nullable(),
  /** The current members, the puller included. */
  memberIds: z.array(z.string()),
  /** Who started a group; null otherwise and once that account is deleted. */
  createdBy: z.string().nullable(),
  /** One-to-one chats: the other participant; null in groups and once that account is deleted. */
  otherUserId: z.string().nullable(),
  /**
   * The signed-in user's read mark: every message from others created at or before it is read.
   * Writable: push the `createdAt` of the newest message shown; it only ever moves forward.
   */
  readUpTo: millis,
  /** One-to-one chats: the other participant's read mark (one's own messages at or before it are read); else 0. */
  otherReadUpTo: millis,
  /** The other members' read marks, by user id: a message is "Seen by" those whose mark is at or after it. */
  readMarks: z.record(z.string(), millis),
  /** Writable: the puller muted it (no push; still counted as unread). */
  muted: z.boolean(),
  /** The newest message's `createdAt`; null while there is none. */
  lastMessageAt: millis.nullable(),
  createdAt: millis,
  updatedAt: millis,
  _deleted: z.boolean(),
});
export type ConversationDoc = z.infer<typeof ConversationDocSchema>;

/**
 * A message; created once, never edited or deleted. `createdAt` is the server's and strictly increasing within a
 * conversation. Read state is on the conversation: a message from others is read when `createdAt <= readUpTo`, one's
 * own when `createdAt <= otherReadUpTo` (one-to-one) or seen by each member whose `readMarks` entry is at or after it.
 * A member who leaves pulls tombstones of the conversation's messages.
 */
export const MessageDocSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  /** Set by the server to the signed-in sender; null once the account is deleted. */
  senderId: z.string().nullable(),
  content: z.string(),
  createdAt: millis,
  /** When the sender wrote it (device clock, never after createdAt): what the chat shows; order stays createdAt. */
  writtenAt: millis,
  /**
   * Members' ids and `house:<name>` the message mentions, as the server kept them (decision 150); an unsent message
   * from before version 2 of the device's schema has none.
   */
  mentions: z.array(z.string()).optional(),
  /** Its pictures' URLs and files (decision 150); as `mentions`, missing on an unsent message from before. */
  images: z.array(z.string()).optional(),
  attachments: z.array(AttachmentSchema).optional(),
  _deleted: z.boolean(),
});
export type MessageDoc = z.infer<typeof MessageDocSchema>;

/**
 * One urgent post in one user's alert list, id `${postId}:${userId}`: the server makes it for each member of
 * the post's audience when the alert goes out, and only that user pulls it. The user writes
 * `acknowledgedAt` (the EMERGENCY ALERT modal, with `writtenAt`) and `viewedAt` (the bell) once each, with any
 * value: the server stores its own time, and `writtenAt` bounded (decision 119). A tombstone: the alert was withdrawn from this user (no longer urgent, or another
 * audience) before they acknowledged it.
 */
export const AcknowledgementDocSchema = z.object({
  id: z.string(),
  postId: z.string(),
  userId: z.string(),
  /** When the alert reached this user's list. */
  createdAt: millis,
  /** When the server received the acknowledgement. */
  acknowledgedAt: millis.nullable(),
  /**
   * When the user acknowledged, by the device's clock, never before createdAt nor after acknowledgedAt: what
   * the alert report counts from (decision 119). Set with `acknowledgedAt`; null until then.
   */
  writtenAt: millis.nullable(),
  viewedAt: millis.nullable(),
  /**
   * A mention entry (decision 144), id `mention:${postId, commentId or messageId}:${userId}`: the bell's "<name> mentioned you".
   * It asks for no acknowledgement; the user writes only `viewedAt`. False (or missing, before version 2) on an alert.
   */
  mention: z.boolean().optional(),
  /** A mention entry's author; null on an alert, or once that account is deleted. */
  mentionedBy: z.string().nullable().optional(),
  /** The comment a mention entry is about; null when the mention is in the post itself, and on an alert. */
  commentId: z.string().nullable().optional(),
  /**
   * The conversation of a mention in a chat message (decision 150), whose `postId` is then empty; null or missing
   * otherwise.
   */
  conversationId: z.string().nullable().optional(),
  _deleted: z.boolean(),
});
export type AcknowledgementDoc = z.infer<typeof AcknowledgementDocSchema>;

/**
 * A resident's One Page Profile (docs/api-residents.md). Devices push edits of every field but the photo, merged field by
 * field on the server (decision 120); adding, archiving and the photo go through REST. An archived resident
 * arrives as a tombstone with no content, so devices drop it.
 */
export const ResidentDocSchema = z.object({
  id: z.string(),
  name: z.string(),
  likeToBeCall: z.string(),
  /** YYYY-MM-DD, or null. */
  dateOfBirth: z.string().nullable(),
  /** /api/residents/photos/{name}: served to signed-in staff only. */
  photoUrl: z.string().nullable(),
  interestsHappyPlace: z.string(),
  supportNeedsCarePreferences: z.string(),
  whatMakesSadAnxious: z.string(),
  medication: z.string(),
  strengthsAbilities: z.string(),
  communicationPreferences: z.string(),
  familySocialConnections: z.string(),
  personalValuesBeliefs: z.string(),
  houseTags: z.array(z.string()),
  /** Who added the resident; null once that account is deleted. */
  createdBy: z.string().nullable(),
  createdAt: millis,
  updatedAt: millis,
  _deleted: z.boolean(),
});
export type ResidentDoc = z.infer<typeof ResidentDocSchema>;

/**
 * One opening of a full profile, written on the device (offline too) and pushed; the server writes the audit
 * entry `resident.view` with the user and its own time (decision 52). Pulled back only as a tombstone, so the
 * device forgets it once it has been recorded.
 */
/** A view's time: any a Date can hold as a year of four digits, so the audit entry can always write it. */
export const ViewedAtSchema = z
  .number({ message: 'viewedAt must be a time in milliseconds' })
  .int('viewedAt must be a time in milliseconds')
  .nonnegative('viewedAt must be a time in milliseconds')
  .max(Date.UTC(9999, 11, 31, 23, 59, 59, 999), 'viewedAt must be a time before the year 10000');

/**
 * The same collection carries openings of the Handover screen (decision 142): `handoverIds` (the notes shown) and
 * `house` instead of a resident, whose id is then empty; the server writes `handover.viewed` for each note.
 */
export const ResidentViewDocSchema = z.object({
  id: z.string(),
  /** The resident whose profile was opened; '' for an opening of handover notes. */
  residentId: z.string(),
  /** When the profile or the notes were shown, by the device's clock (kept in the audit details). */
  viewedAt: ViewedAtSchema,
  /** An opening of handover notes: the house shown. */
  house: z.string().optional(),
  /** An opening of handover notes: the ids of the notes on screen. */
  handoverIds: z.array(z.string()).optional(),
  _deleted: z.boolean(),
});
export type ResidentViewDoc = z.infer<typeof ResidentViewDocSchema>;

/** A pushed opening of handover notes, as the server takes it (decision 142). */
export const HandoverViewPushSchema = z.object({
  id: z.uuid({ message: 'id must be a UUID' }),
  house: z.string({ message: 'house is required' }).min(1, 'house is required').max(100),
  handoverIds: z
    .array(z.string({ message: HANDOVER_MESSAGES.viewIds }).min(1, HANDOVER_MESSAGES.viewIds).max(100), {
      message: HANDOVER_MESSAGES.viewIds,
    })
    .min(1, HANDOVER_MESSAGES.viewIds)
    .max(HANDOVER_VIEW_IDS_MAX, HANDOVER_MESSAGES.viewIds),
  viewedAt: ViewedAtSchema,
});
export type HandoverViewPush = z.infer<typeof HandoverViewPushSchema>;

/** An addendum inside its note's document: appended by any reader, never changed (decision 138). */
export const HandoverAddendumDocSchema = z.object({
  /** A device-made UUID: a re-pushed addendum is stored once. */
  id: z.string(),
  /** Set by the server to the signed-in writer; null once the account is deleted. */
  authorId: z.string().nullable(),
  content: z.string(),
  createdAt: millis,
  writtenAt: millis,
});
export type HandoverAddendumDoc = z.infer<typeof HandoverAddendumDocSchema>;

/**
 * A shift handover note as one user pulls it (decision 138): only staff of its house and admins pull it; a note hidden
 * by an admin, or of a house the user has left, is a tombstone with no content (admins pull a hidden one with
 * `hidden: true`). Addenda and everyone's reads travel inside it; `readAt` is the puller's own, so copies differ.
 * A device creates a note (house, shift, content, residentIds, writtenAt), appends addenda and sets its `readAt`.
 */
export const HandoverDocSchema = z.object({
  id: z.string(),
  house: z.string(),
  shift: z.string(),
  authorId: z.string().nullable(),
  content: z.string(),
  residentIds: z.array(z.string()),
  createdAt: millis,
  writtenAt: millis,
  updatedAt: millis,
  correctedAt: millis.nullable(),
  addenda: z.array(HandoverAddendumDocSchema),
  /** Server-owned: who has read it, by the device's clock bounded (decision 119), in the order they read it. */
  reads: z.array(z.object({ userId: z.string(), readAt: millis })),
  /** The pulling user's own read, or null; writable once. */
  readAt: millis.nullable(),
  hidden: z.boolean(),
  _deleted: z.boolean(),
});
export type HandoverDoc = z.infer<typeof HandoverDocSchema>;

export interface SyncDocs {
  posts: PostDoc;
  comments: CommentDoc;
  reactions: ReactionDoc;
  users: DirectoryUserDoc;
  conversations: ConversationDoc;
  messages: MessageDoc;
  acknowledgements: AcknowledgementDoc;
  residents: ResidentDoc;
  residentViews: ResidentViewDoc;
  handovers: HandoverDoc;
}

export interface PullResponse<T> {
  documents: T[];
  checkpoint: SyncCheckpoint;
  /**
   * The global sequence when the page was read (pulls in change order): a page shorter than its limit holds every
   * change this user may see up to it, so a change event following from there can be stored as it is (decision 131).
   */
  through?: number;
}

/** A pushed document: an id, `_deleted`, and the collection's fields (checked per collection). */
const PushedDocSchema = z.looseObject({ id: z.string().min(1).max(200), _deleted: z.boolean().optional() });

/** One row of RxDB's push: the state the client wants and the master state it started from (null: a create). */
export const PushRowSchema = z.object({
  newDocumentState: PushedDocSchema,
  assumedMasterState: PushedDocSchema.nullable().optional(),
});
export type PushRow = z.infer<typeof PushRowSchema>;

/** POST /api/sync/{collection}/push */
export const PushBodySchema = z
  .array(PushRowSchema, { message: 'The push body must be a list of rows' })
  .max(PUSH_ROWS_MAX, `At most ${PUSH_ROWS_MAX} rows can be pushed at once`);

/**
 * An edit the server merged field by field onto a version someone else had changed since the edit's base
 * (residents, decision 120): `mine` the pusher's fields applied, `theirs` the fields someone else changed since,
 * `both` those of `theirs` the pusher changed too (the pusher's value was kept).
 */
export interface FieldMerge {
  mine: string[];
  theirs: string[];
  both: string[];
}

/**
 * Push answers only the master documents of the rows that conflicted or were refused. For posts, `bases` gives,
 * by id, the state this device's last accepted push left when that is newer than the assumed master it sent
 * (a push answer was lost): the device merges from it instead (decision 69). For residents, `merges` names, by
 * id, the accepted edits someone else's changes were merged with, so the device can tell its user (decision 120).
 */
export interface PushResponse<T> {
  conflicts: T[];
  bases?: Record<string, T>;
  merges?: Record<string, FieldMerge>;
}

export const PushHeadersSchema = z.object({
  'x-sync-device': z
    .string()
    .regex(/^[A-Za-z0-9_-]{6,64}$/, 'The X-Sync-Device header must be 6 to 64 letters, digits, dashes or underscores')
    .optional(),
});

export const SyncChangeEventSchema = z.object({ collection: SyncCollectionSchema });
export type SyncChangeEvent = z.infer<typeof SyncChangeEventSchema>;
