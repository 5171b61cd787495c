import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Times are stored as integer milliseconds since the epoch (UTC). */

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    role: text('role', { enum: ['staff', 'admin', 'system_admin'] }).notNull(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull(),
    pendingApproval: integer('pending_approval', { mode: 'boolean' }).notNull().default(false),
    requestedRole: text('requested_role'),
    profileImageUrl: text('profile_image_url'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    lastLoginAt: integer('last_login_at'),
    /** Place in the sync change feed; bumped when a field of the staff directory changes. */
    serverSeq: integer('server_seq').notNull().default(0),
    /** Employee, bank or agency (decision 145). */
    accountType: text('account_type', { enum: ['employee', 'bank', 'agency'] })
      .notNull()
      .default('employee'),
    /** When a bank or agency worker's access ends; the server deactivates the account then (decision 145). */
    accessEndsAt: integer('access_ends_at'),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(t.email),
    index('users_server_seq_idx').on(t.serverSeq, t.id),
    index('users_access_ends_idx').on(t.accessEndsAt),
  ],
);

export const sessions = sqliteTable(
  'sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    lastActiveAt: integer('last_active_at').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/**
 * Sessions the server ended for a reason the device should be told (decision 151): a request with such a cookie is
 * answered 401 with that reason as its code. Kept for a session's maximum age, then swept.
 */
export const endedSessions = sqliteTable('ended_sessions', {
  tokenHash: text('token_hash').primaryKey(),
  reason: text('reason', { enum: ['access_ended'] }).notNull(),
  endedAt: integer('ended_at').notNull(),
});

/** Single-use tokens e-mailed to a user: password reset (1 hour) and invitation (7 days). */
export const userTokens = sqliteTable(
  'user_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ['reset', 'invite'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [index('user_tokens_user_idx').on(t.userId)],
);

/** Failed sign-ins, kept for the rate-limit window. */
export const loginFailures = sqliteTable(
  'login_failures',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    email: text('email').notNull(),
    ip: text('ip').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('login_failures_email_idx').on(t.email, t.at), index('login_failures_ip_idx').on(t.ip, t.at)],
);

/**
 * Password-reset and registration requests, counted per e-mail and per client before any lookup or hashing, so
 * a flood is refused alike for known and unknown addresses (decision 124).
 */
export const accountRequests = sqliteTable(
  'account_requests',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    email: text('email').notNull(),
    ip: text('ip').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('account_requests_email_idx').on(t.email, t.at), index('account_requests_ip_idx').on(t.ip, t.at)],
);

/**
 * Mail waiting to be sent, written with the token it carries; the body is erased once sent or given up, so the
 * database keeps no usable link (decision 124).
 */
export const mailOutbox = sqliteTable(
  'mail_outbox',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    to: text('to_address').notNull(),
    subject: text('subject').notNull(),
    text: text('text'),
    createdAt: integer('created_at').notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at').notNull(),
    sentAt: integer('sent_at'),
    lastError: text('last_error'),
  },
  (t) => [index('mail_outbox_due_idx').on(t.sentAt, t.nextAttemptAt)],
);

/** Append-only record of who did what, when and from where; triggers refuse updates and deletes. */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    actorId: text('actor_id'),
    actorEmail: text('actor_email'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    ip: text('ip'),
    details: text('details'),
  },
  (t) => [
    index('audit_log_at_idx').on(t.at),
    index('audit_log_actor_idx').on(t.actorId, t.at),
    // The audit screen's action filter, newest first.
    index('audit_log_action_idx').on(t.action, t.at),
  ],
);

/** Server-wide values kept across restarts (setup token, later VAPID keys). */
export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * The global sync sequence (docs/sync.md): one row, incremented inside every transaction that writes a synced
 * row, so `server_seq` is strictly increasing across all synced tables and never depends on a client clock.
 */
export const syncCounter = sqliteTable('sync_counter', {
  id: integer('id').primaryKey(),
  seq: integer('seq').notNull(),
});

/**
 * The last state of a document each device had accepted, for documents merged field by field (posts). When a
 * push answer is lost, the device's own idea of the server's version (RxDB's assumed master) stays older than
 * what it wrote; a conflict answer carries this state so the device merges from what it really last wrote
 * (docs/sync.md, "Lost answers"; decision 69).
 */
export const syncDeviceStates = sqliteTable(
  'sync_device_states',
  {
    collection: text('collection').notNull(),
    docId: text('doc_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Chosen by the device (its local database's storage token); scoped by user so it cannot reach another's. */
    deviceId: text('device_id').notNull(),
    /** JSON of the document as the push left it on the server. */
    state: text('state').notNull(),
    writtenAt: integer('written_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.collection, t.docId, t.userId, t.deviceId] }),
    index('sync_device_states_written_idx').on(t.writtenAt),
  ],
);

/** Tombstones of deleted accounts, so the synced staff directory can remove them from every client. */
export const deletedUsers = sqliteTable(
  'deleted_users',
  {
    id: text('id').primaryKey(),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [index('deleted_users_server_seq_idx').on(t.serverSeq, t.id)],
);

/** Feed posts (docs/behaviour.md, "Posts and categories"). JSON lists are stored as text; deletes are tombstones. */
export const posts = sqliteTable(
  'posts',
  {
    /** A client-generated UUID, so a post written offline keeps its id. */
    id: text('id').primaryKey(),
    authorId: text('author_id').references(() => users.id, { onDelete: 'set null' }),
    content: text('content').notNull(),
    category: text('category').notNull(),
    isUrgent: integer('is_urgent', { mode: 'boolean' }).notNull(),
    /** JSON array of house names. */
    houseTags: text('house_tags').notNull().default('[]'),
    /** Urgent posts: JSON array of the houses the alert is addressed to; empty means all staff. */
    audienceHouses: text('audience_houses').notNull().default('[]'),
    /** JSON array of upload URLs. */
    images: text('images').notNull().default('[]'),
    /** JSON array of { id, url, originalName, fileType, fileSize }. */
    attachments: text('attachments').notNull().default('[]'),
    createdAt: integer('created_at').notNull(),
    /** The device's time of writing, bounded by the server (decision 119); rows older than it: created_at. */
    writtenAt: integer('written_at').notNull().default(0),
    updatedAt: integer('updated_at').notNull(),
    /** Who last edited the post when that was not its author (decision 126); null otherwise. */
    editedBy: text('edited_by').references(() => users.id, { onDelete: 'set null' }),
    /** Its audience must confirm they have read it (decision 136). */
    requiresConfirmation: integer('requires_confirmation', { mode: 'boolean' }).notNull().default(false),
    /** YYYY-MM-DD in the provider's time zone: when confirmations are due; null when none is set. */
    confirmBy: text('confirm_by'),
    /** JSON array of the user ids and `house:<name>` the post mentions, as kept by the server (decision 144). */
    mentions: text('mentions').notNull().default('[]'),
    deleted: integer('deleted', { mode: 'boolean' }).notNull().default(false),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    index('posts_created_idx').on(t.createdAt, t.id),
    index('posts_category_created_idx').on(t.category, t.createdAt, t.id),
    index('posts_server_seq_idx').on(t.serverSeq, t.id),
    index('posts_author_idx').on(t.authorId),
  ],
);

/**
 * Posts waiting for their publish time (decision 141): in no pull, list, count or change event. At that time the row
 * moves to `posts`, where it takes its sequence and its `created_at`.
 */
export const scheduledPosts = sqliteTable(
  'scheduled_posts',
  {
    /** The id the post keeps once published (a client-generated UUID when written offline). */
    id: text('id').primaryKey(),
    /** Nobody has seen it: it goes with its author's account. */
    authorId: text('author_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    content: text('content').notNull(),
    category: text('category').notNull(),
    isUrgent: integer('is_urgent', { mode: 'boolean' }).notNull(),
    houseTags: text('house_tags').notNull().default('[]'),
    audienceHouses: text('audience_houses').notNull().default('[]'),
    images: text('images').notNull().default('[]'),
    attachments: text('attachments').notNull().default('[]'),
    requiresConfirmation: integer('requires_confirmation', { mode: 'boolean' }).notNull().default(false),
    confirmBy: text('confirm_by'),
    /** When it is to be published (milliseconds). */
    publishAt: integer('publish_at').notNull(),
    /** When it reached the server, scheduled. */
    createdAt: integer('created_at').notNull(),
    writtenAt: integer('written_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    editedBy: text('edited_by').references(() => users.id, { onDelete: 'set null' }),
    /** As posts.mentions; nobody is told until it is published (decision 144). */
    mentions: text('mentions').notNull().default('[]'),
  },
  (t) => [index('scheduled_posts_publish_idx').on(t.publishAt), index('scheduled_posts_author_idx').on(t.authorId)],
);

export const comments = sqliteTable(
  'comments',
  {
    id: text('id').primaryKey(),
    postId: text('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    authorId: text('author_id').references(() => users.id, { onDelete: 'set null' }),
    content: text('content').notNull(),
    createdAt: integer('created_at').notNull(),
    /** The device's time of writing, bounded by the server (decision 119). */
    writtenAt: integer('written_at').notNull().default(0),
    updatedAt: integer('updated_at').notNull(),
    /** JSON array of the user ids and `house:<name>` the comment mentions, as kept by the server (decision 144). */
    mentions: text('mentions').notNull().default('[]'),
    deleted: integer('deleted', { mode: 'boolean' }).notNull().default(false),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    // Covers a post's comment list (oldest first) and its live count without reading the table.
    index('comments_post_live_idx').on(t.postId, t.deleted, t.createdAt),
    index('comments_server_seq_idx').on(t.serverSeq, t.id),
    index('comments_author_idx').on(t.authorId),
  ],
);

/**
 * One reaction per (post, user), id `${postId}:${userId}`. Removing one, or deleting the user, leaves a
 * tombstone (user_id set to null on account deletion) so every client learns it is gone (decision 18).
 */
export const reactions = sqliteTable(
  'reactions',
  {
    id: text('id').primaryKey(),
    postId: text('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'set null' }),
    type: text('type').notNull(),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    deleted: integer('deleted', { mode: 'boolean' }).notNull().default(false),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    // Covers the feed's per-post counts and the viewer's own reaction without reading the table.
    index('reactions_post_live_idx').on(t.postId, t.deleted, t.type, t.userId),
    index('reactions_server_seq_idx').on(t.serverSeq, t.id),
    index('reactions_user_idx').on(t.userId),
  ],
);

/** Uploaded files: stored under DATA_DIR/uploads/ by a random name, never the client's. */
export const uploads = sqliteTable(
  'uploads',
  {
    id: text('id').primaryKey(),
    ownerId: text('owner_id').references(() => users.id, { onDelete: 'set null' }),
    originalName: text('original_name').notNull(),
    storedName: text('stored_name').notNull(),
    mime: text('mime').notNull(),
    size: integer('size').notNull(),
    kind: text('kind', { enum: ['image', 'file'] }).notNull(),
    createdAt: integer('created_at').notNull(),
    /** A file sent in a chat: only the conversation's current members may read it (decision 150). */
    conversationId: text('conversation_id').references(() => conversations.id, { onDelete: 'cascade' }),
  },
  (t) => [index('uploads_owner_idx').on(t.ownerId)],
);

/** The houses a staff member works in (set on the admin page); an urgent post can be addressed to houses. */
export const userHouses = sqliteTable(
  'user_houses',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    house: text('house').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.house] }), index('user_houses_house_idx').on(t.house, t.userId)],
);

/**
 * A conversation (decision 143): `direct` between two users, its id made from the pair (schema/chat.ts), the two ids
 * sorted into user_a_id < user_b_id, a deleted account's side null; `group`, named, started by `created_by`; `house`,
 * one per house, its members the house's active staff plus admins who joined. Who is in it, and each member's read
 * mark and mute, are in conversation_members.
 */
export const conversations = sqliteTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['direct', 'group', 'house'] })
      .notNull()
      .default('direct'),
    name: text('name'),
    house: text('house'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    userAId: text('user_a_id').references(() => users.id, { onDelete: 'set null' }),
    userBId: text('user_b_id').references(() => users.id, { onDelete: 'set null' }),
    lastMessageAt: integer('last_message_at'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    uniqueIndex('conversations_pair_unique').on(t.userAId, t.userBId),
    index('conversations_user_b_idx').on(t.userBId),
    uniqueIndex('conversations_house_unique').on(t.house),
  ],
);

/**
 * A user's place in a conversation (decision 143). In a direct or group chat the row is the membership: in while
 * left_at is null. In a house chat the house list decides (user_houses, active accounts); the row keeps the read
 * mark and mute, and for an admin outside the house that they joined. access_seq is the sequence of the last
 * joining or leaving: a member's pull brings the conversation's messages from there, a former member's brings
 * their tombstones at it.
 */
export const conversationMembers = sqliteTable(
  'conversation_members',
  {
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    joinedAt: integer('joined_at').notNull(),
    leftAt: integer('left_at'),
    /** The createdAt of the newest message this member has read. */
    readUpTo: integer('read_up_to').notNull().default(0),
    muted: integer('muted', { mode: 'boolean' }).notNull().default(false),
    accessSeq: integer('access_seq').notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.conversationId, t.userId] }),
    index('conversation_members_user_idx').on(t.userId, t.conversationId),
  ],
);

/** Direct messages: created once, never edited; createdAt is strictly increasing within a conversation. */
export const messages = sqliteTable(
  'messages',
  {
    /** A client-generated UUID, so a message written offline keeps its id. */
    id: text('id').primaryKey(),
    conversationId: text('conversation_id')
      .notNull()
      .references(() => conversations.id, { onDelete: 'cascade' }),
    senderId: text('sender_id').references(() => users.id, { onDelete: 'set null' }),
    content: text('content').notNull(),
    createdAt: integer('created_at').notNull(),
    /** The device's time of writing, bounded by the server (decision 119); the order stays created_at. */
    writtenAt: integer('written_at').notNull().default(0),
    /** JSON array of the members' ids and `house:<name>` the message mentions, as kept by the server (decision 150). */
    mentions: text('mentions').notNull().default('[]'),
    /** JSON arrays of the pictures' URLs and the files sent with it, as posts hold them (decision 150). */
    images: text('images').notNull().default('[]'),
    attachments: text('attachments').notNull().default('[]'),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    // A conversation's messages in order, its last message and its unread count, read along the index.
    index('messages_conversation_created_idx').on(t.conversationId, t.createdAt, t.senderId),
    index('messages_conversation_seq_idx').on(t.conversationId, t.serverSeq, t.id),
    index('messages_sender_idx').on(t.senderId),
  ],
);

/**
 * One row per urgent post and member of its audience, made when the alert goes out (decision 32):
 * acknowledged_at and viewed_at stay null until the user acknowledges it or opens the bell; reminded_at marks
 * the one reminder push. A tombstone (deleted) is an alert withdrawn from this user before they acknowledged.
 */
export const acknowledgements = sqliteTable(
  'acknowledgements',
  {
    /** `${postId}:${userId}` */
    id: text('id').primaryKey(),
    postId: text('post_id')
      .notNull()
      .references(() => posts.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: integer('created_at').notNull(),
    acknowledgedAt: integer('acknowledged_at'),
    /** When the user acknowledged by their device's clock, between created_at and acknowledged_at (decision 119). */
    writtenAt: integer('written_at'),
    viewedAt: integer('viewed_at'),
    remindedAt: integer('reminded_at'),
    /** The row asks for the alert's acknowledgement: its post is urgent (decision 136). */
    alert: integer('alert', { mode: 'boolean' }).notNull().default(true),
    /** The row asks for a confirmation of reading: its post requires one; acknowledged_at is then when it came. */
    confirm: integer('confirm', { mode: 'boolean' }).notNull().default(false),
    /** Confirmation reminders sent (at most 5) and when the last one went. */
    confirmReminders: integer('confirm_reminders').notNull().default(0),
    confirmRemindedAt: integer('confirm_reminded_at'),
    deleted: integer('deleted', { mode: 'boolean' }).notNull().default(false),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    index('acknowledgements_user_seq_idx').on(t.userId, t.serverSeq, t.id),
    // An event for many users reads every row changed since a sequence, not the whole table.
    index('acknowledgements_seq_idx').on(t.serverSeq, t.id),
    index('acknowledgements_post_idx').on(t.postId),
    // The reminder check reads only the open ones, oldest first.
    index('acknowledgements_due_idx')
      .on(t.createdAt)
      .where(sql`acknowledged_at IS NULL AND reminded_at IS NULL AND deleted = 0`),
  ],
);

/**
 * The bell's mention entries (decision 144): one per person told of a mention in a post or a comment, id
 * `mention:${commentId ?? postId}:${userId}`, so a person is told of one post or comment once whatever is re-sent or
 * edited. They replicate in the user's `acknowledgements` collection beside the alert rows; viewed_at is set once when
 * the bell shows them, and a tombstone (deleted) is an entry whose post or comment was deleted.
 */
export const mentionEntries = sqliteTable(
  'mention_entries',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The post of a mention in a post or comment; null for one in a chat message (decision 150). */
    postId: text('post_id').references(() => posts.id, { onDelete: 'cascade' }),
    /** Null when the mention is in the post itself. */
    commentId: text('comment_id'),
    /** A mention in a chat message: its conversation and message (decision 150); null otherwise. */
    conversationId: text('conversation_id').references(() => conversations.id, { onDelete: 'cascade' }),
    messageId: text('message_id'),
    /** Who mentioned them; null once that account is deleted. */
    mentionedBy: text('mentioned_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
    viewedAt: integer('viewed_at'),
    deleted: integer('deleted', { mode: 'boolean' }).notNull().default(false),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    index('mention_entries_user_seq_idx').on(t.userId, t.serverSeq, t.id),
    index('mention_entries_seq_idx').on(t.serverSeq, t.id),
    index('mention_entries_post_idx').on(t.postId),
    index('mention_entries_comment_idx').on(t.commentId),
    index('mention_entries_conversation_idx').on(t.conversationId),
  ],
);

/** Browsers that asked for web push. An endpoint is a secret: it is never sent back to any client. */
export const pushSubscriptions = sqliteTable(
  'push_subscriptions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('push_subscriptions_endpoint_unique').on(t.endpoint),
    index('push_subscriptions_user_idx').on(t.userId),
  ],
);

/**
 * Test notifications a user sent, for their limit (three in ten minutes): kept in the database, not in one server's
 * memory, so the limit holds whichever server answers (decision 156). Rows older than the window are removed.
 */
export const pushTestSends = sqliteTable(
  'push_test_sends',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    sentAt: integer('sent_at').notNull(),
  },
  (t) => [index('push_test_sends_user_idx').on(t.userId, t.sentAt)],
);

/**
 * One colleague's pushes of one kind (`key`) in the current minute, for the burst limit (decision 125): kept in the
 * database, not in one server's memory, so the limit and its one summary hold whichever server sends (decision 159).
 * `summary` (JSON) is what the summary will say, `options` (JSON) how it is sent: the newest held push's.
 */
export const pushBursts = sqliteTable(
  'push_bursts',
  {
    key: text('key').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    windowStart: integer('window_start').notNull(),
    sent: integer('sent').notNull(),
    held: integer('held').notNull(),
    summary: text('summary').notNull(),
    options: text('options').notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.userId] }), index('push_bursts_window_idx').on(t.windowStart)],
);

/**
 * Staff suggestions (docs/behaviour.md, "Support and suggestions"): written by any active user, read by system
 * administrators.
 */
export const suggestions = sqliteTable(
  'suggestions',
  {
    id: text('id').primaryKey(),
    authorId: text('author_id').references(() => users.id, { onDelete: 'set null' }),
    title: text('title').notNull(),
    content: text('content').notNull(),
    category: text('category').notNull(),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('suggestions_created_idx').on(t.createdAt, t.id), index('suggestions_author_idx').on(t.authorId)],
);

/**
 * Residents' One Page Profiles (docs/behaviour.md, "Residents"): health data. Text fields are '' when empty; house
 * tags a JSON array. Archiving keeps the row (archived, who and when) and the pull sends a tombstone.
 */
export const residents = sqliteTable(
  'residents',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    likeToBeCall: text('like_to_be_call').notNull().default(''),
    /** YYYY-MM-DD or null. */
    dateOfBirth: text('date_of_birth'),
    /** /api/residents/photos/{name}, or null. */
    photoUrl: text('photo_url'),
    interestsHappyPlace: text('interests_happy_place').notNull().default(''),
    supportNeedsCarePreferences: text('support_needs_care_preferences').notNull().default(''),
    whatMakesSadAnxious: text('what_makes_sad_anxious').notNull().default(''),
    medication: text('medication').notNull().default(''),
    strengthsAbilities: text('strengths_abilities').notNull().default(''),
    communicationPreferences: text('communication_preferences').notNull().default(''),
    familySocialConnections: text('family_social_connections').notNull().default(''),
    personalValuesBeliefs: text('personal_values_beliefs').notNull().default(''),
    /** JSON array of house names. */
    houseTags: text('house_tags').notNull().default('[]'),
    createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    archived: integer('archived', { mode: 'boolean' }).notNull().default(false),
    archivedAt: integer('archived_at'),
    archivedBy: text('archived_by').references(() => users.id, { onDelete: 'set null' }),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    index('residents_server_seq_idx').on(t.serverSeq, t.id),
    index('residents_archived_name_idx').on(t.archived, t.name),
  ],
);

/**
 * A resident's history: one row per change (version 1 is the creation). `changes` is a JSON list of
 * { field, from, to }; `previous` the whole profile before the change (JSON; null for the creation).
 */
export const residentVersions = sqliteTable(
  'resident_versions',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    residentId: text('resident_id')
      .notNull()
      .references(() => residents.id, { onDelete: 'cascade' }),
    version: integer('version').notNull(),
    action: text('action', { enum: ['create', 'update', 'archive'] }).notNull(),
    changedBy: text('changed_by').references(() => users.id, { onDelete: 'set null' }),
    changedAt: integer('changed_at').notNull(),
    changes: text('changes').notNull().default('[]'),
    previous: text('previous'),
    /** The device's key for a photo it sent, so a photo sent again after a lost answer is stored once (decision 123). */
    photoKey: text('photo_key'),
  },
  (t) => [
    uniqueIndex('resident_versions_resident_version_unique').on(t.residentId, t.version),
    uniqueIndex('resident_versions_photo_key_unique').on(t.residentId, t.photoKey),
  ],
);

/**
 * Openings of a full profile pushed from devices (synced collection residentViews): the id makes a re-push
 * harmless; the audit log holds the record itself. Pulled back by the viewer only, as tombstones.
 */
export const residentViews = sqliteTable(
  'resident_views',
  {
    id: text('id').primaryKey(),
    residentId: text('resident_id')
      .notNull()
      .references(() => residents.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The device's time of the opening. */
    viewedAt: integer('viewed_at').notNull(),
    /** The server's time of arrival. */
    recordedAt: integer('recorded_at').notNull(),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [index('resident_views_user_seq_idx').on(t.userId, t.serverSeq, t.id)],
);

/**
 * Shift handover notes per house (decision 138): written by staff of the house, read by the next shift. A hidden note
 * (written in the wrong house) stays for the record and reaches only admins.
 */
export const handovers = sqliteTable(
  'handovers',
  {
    id: text('id').primaryKey(),
    house: text('house').notNull(),
    shift: text('shift').notNull(),
    authorId: text('author_id').references(() => users.id, { onDelete: 'set null' }),
    content: text('content').notNull(),
    /** JSON array of resident ids, checked as active residents of the house when written. */
    residentIds: text('resident_ids').notNull().default('[]'),
    createdAt: integer('created_at').notNull(),
    writtenAt: integer('written_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
    correctedAt: integer('corrected_at'),
    hidden: integer('hidden', { mode: 'boolean' }).notNull().default(false),
    hiddenAt: integer('hidden_at'),
    hiddenBy: text('hidden_by').references(() => users.id, { onDelete: 'set null' }),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [
    index('handovers_house_created_idx').on(t.house, t.createdAt, t.id),
    index('handovers_server_seq_idx').on(t.serverSeq, t.id),
  ],
);

/** Addenda appended to a note after its first hour (or any time); never changed. */
export const handoverAddenda = sqliteTable(
  'handover_addenda',
  {
    id: text('id').primaryKey(),
    handoverId: text('handover_id')
      .notNull()
      .references(() => handovers.id, { onDelete: 'cascade' }),
    authorId: text('author_id').references(() => users.id, { onDelete: 'set null' }),
    content: text('content').notNull(),
    createdAt: integer('created_at').notNull(),
    writtenAt: integer('written_at').notNull(),
  },
  (t) => [index('handover_addenda_handover_idx').on(t.handoverId, t.createdAt)],
);

/** Who marked a note read: once per person; `readAt` is the device's time bounded (decision 119). */
export const handoverReads = sqliteTable(
  'handover_reads',
  {
    handoverId: text('handover_id')
      .notNull()
      .references(() => handovers.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    readAt: integer('read_at').notNull(),
    recordedAt: integer('recorded_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.handoverId, t.userId] })],
);

/**
 * Openings of a house's handover notes on a device, pushed in the synced collection residentViews (decision 142): the
 * id makes a re-push harmless; the audit log holds `handover.viewed` per note. Pulled back by the viewer, as tombstones.
 */
export const handoverViews = sqliteTable(
  'handover_views',
  {
    id: text('id').primaryKey(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    house: text('house').notNull(),
    /** JSON array of the ids of the notes shown. */
    handoverIds: text('handover_ids').notNull(),
    /** The device's time of the opening, bounded (decision 130). */
    viewedAt: integer('viewed_at').notNull(),
    /** The server's time of arrival. */
    recordedAt: integer('recorded_at').notNull(),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [index('handover_views_user_seq_idx').on(t.userId, t.serverSeq, t.id)],
);

/**
 * When a user began or stopped seeing a house's notes (joined or left it, became or stopped being an admin): the
 * sequence makes their next pull bring that house's notes, or their tombstones (decision 138).
 */
export const handoverAccess = sqliteTable(
  'handover_access',
  {
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    house: text('house').notNull(),
    visible: integer('visible', { mode: 'boolean' }).notNull(),
    serverSeq: integer('server_seq').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.house] })],
);

/**
 * Single sign-ons under way: what the callback needs, kept in the database so any server can finish one. Looked up
 * by the hash of the state, spent on first use, good for 10 minutes (decision 149).
 */
export const ssoAttempts = sqliteTable(
  'sso_attempts',
  {
    stateHash: text('state_hash').primaryKey(),
    nonce: text('nonce').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    /** The address that started it: a bounded number of live attempts per address. */
    ip: text('ip').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('sso_attempts_expires_idx').on(t.expiresAt), index('sso_attempts_ip_idx').on(t.ip, t.expiresAt)],
);

/**
 * A user's authenticator app (decision 148): the TOTP secret, active once confirmed with a code; the last time step
 * used, so a code is accepted once.
 */
export const totpFactors = sqliteTable('totp_factors', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  /** Base32; the server must read it to check codes, so it cannot be hashed. */
  secret: text('secret').notNull(),
  confirmedAt: integer('confirmed_at'),
  lastUsedStep: integer('last_used_step'),
  createdAt: integer('created_at').notNull(),
});

/** Single-use recovery codes, stored as their SHA-256 (decision 148). */
export const recoveryCodes = sqliteTable(
  'recovery_codes',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: integer('used_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId)],
);

/** A user's passkeys (WebAuthn credentials; decision 148). */
export const passkeys = sqliteTable(
  'passkeys',
  {
    /** The credential id, base64url. */
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    counter: integer('counter').notNull(),
    /** JSON array of the transports the browser reported. */
    transports: text('transports').notNull(),
    createdAt: integer('created_at').notNull(),
    lastUsedAt: integer('last_used_at'),
  },
  (t) => [index('passkeys_user_idx').on(t.userId)],
);

/**
 * Short-lived sign-in state kept by a random token in an httpOnly cookie, stored hashed (decision 148): a password
 * checked and a second factor awaited, or a passkey ceremony's challenge.
 */
export const authChallenges = sqliteTable(
  'auth_challenges',
  {
    tokenHash: text('token_hash').primaryKey(),
    purpose: text('purpose', { enum: ['second_factor', 'passkey_sign_in', 'passkey_register'] }).notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The WebAuthn challenge (base64url) when a passkey ceremony has started. */
    challenge: text('challenge'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('auth_challenges_expires_idx').on(t.expiresAt)],
);
