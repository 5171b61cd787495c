/**
 * The sync protocol's names, limits and ids (docs/sync.md), apart from its zod schemas in sync.ts: the app's
 * replication uses these, and building the schemas cost a slow phone's first screen time it did not need
 * (decision 106). sync.ts exports them too.
 */
import { RESIDENT_TEXT_FIELDS } from './resident-rules';

/** Synced collections, in the order a client should pull them after a RESYNC (authors first). */
export const SYNC_COLLECTIONS = [
  'users',
  'posts',
  'comments',
  'reactions',
  'conversations',
  'messages',
  'acknowledgements',
  'residents',
  'residentViews',
  'handovers',
] as const;

/**
 * Collections the server serves before the app keeps them (decision 138): pull, push and change events work as for
 * the others, and the app's replication, which opens only SYNC_COLLECTIONS, leaves them out until its store has them.
 * None now: the device keeps handover notes since decision 140.
 */
export const SERVER_FIRST_COLLECTIONS = [] as const;

/** Every collection the sync routes take. */
export const SERVED_COLLECTIONS = [...SYNC_COLLECTIONS, ...SERVER_FIRST_COLLECTIONS] as const;
export type SyncCollection = (typeof SERVED_COLLECTIONS)[number];

/** Collections a client may push to; the staff directory is read-only, residents take edits only (decision 120). */
export const PUSHABLE_COLLECTIONS = [
  'posts',
  'comments',
  'reactions',
  'conversations',
  'messages',
  'acknowledgements',
  'residents',
  'residentViews',
  'handovers',
] as const satisfies readonly SyncCollection[];

export { FIRST_FEED_PAGE, PULL_LIMIT_DEFAULT, PULL_LIMIT_MAX } from './sync-limits';

/** The checkpoint id that sorts after every real id (ids are UUIDs or `postId:userId`). */
export const CHECKPOINT_ID_END = '~';
export const PUSH_ROWS_MAX = 100;

/**
 * Fields compared, with `_deleted`, to detect a conflict; also the only fields a client's write can change.
 * `writtenAt` is not among them: a client gives it once, with a create or an acknowledgement, and the server's
 * bounded value stands from then on, as `createdAt` does (decision 119).
 */
export const SYNC_WRITABLE_FIELDS = {
  posts: [
    'content',
    'category',
    'isUrgent',
    'houseTags',
    'audienceHouses',
    'requiresConfirmation',
    'confirmBy',
    'images',
    'attachments',
    'mentions',
    // Changed only while the post is scheduled, by its author or an admin; refused once published (decision 142).
    'publishAt',
  ],
  comments: ['postId', 'content', 'mentions'],
  reactions: ['postId', 'type'],
  users: [],
  conversations: ['otherUserId', 'readUpTo', 'muted'],
  messages: ['conversationId', 'content'],
  acknowledgements: ['postId', 'acknowledgedAt', 'viewedAt'],
  // Every field the resident form edits but the photo, which goes through REST (decision 120).
  residents: ['name', 'likeToBeCall', 'dateOfBirth', ...RESIDENT_TEXT_FIELDS, 'houseTags'],
  residentViews: ['residentId', 'viewedAt'],
  // Set once with the create; afterwards only the user's own read and new addenda are taken (decision 138).
  handovers: ['house', 'shift', 'content', 'residentIds', 'addenda', 'readAt'],
} as const satisfies Record<SyncCollection, readonly string[]>;

/** The reaction id of a user on a post. */
export function reactionId(postId: string, userId: string): string {
  return `${postId}:${userId}`;
}

/** The acknowledgement id of a user on an urgent post. */
export function acknowledgementId(postId: string, userId: string): string {
  return `${postId}:${userId}`;
}

/** Header naming the pushing device (its local database's storage token), for `bases`. */
export const SYNC_DEVICE_HEADER = 'X-Sync-Device';

/** Events of GET /api/sync/stream. */
export const SYNC_EVENTS = {
  /** Sent on connect: pull every collection, changes may have been missed while away. */
  resync: 'RESYNC',
  /** A committed change; data is a ChangeEvent. */
  change: 'change',
} as const;

/**
 * Data of a `change` event (docs/sync.md, decision 131). With `documents`, the change itself: the documents this user
 * may see that changed after the sequence `since`, as a pull would answer them, and the checkpoint to store them at.
 * A device holding everything up to `since` stores them without a request; any other device, and every device when
 * only `collection` is given (a change too large to carry, or a server that only announces), pulls that collection.
 */
export interface ChangeEvent<D = Record<string, unknown>> {
  collection: SyncCollection;
  since?: number;
  checkpoint?: { seq: number; id: string; before: null };
  documents?: D[];
}
