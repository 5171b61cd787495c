/** Direct messages between two staff members (spec sections 3 and 7 "Chat"; docs/api-chat-alerts.md). */
import { z } from 'zod';
import { ClientIdSchema } from './ids';
import { RoleSchema } from './roles';

/** The spec gives no bound for a message; a comment's bound is used (decision 30). */
export const MESSAGE_CONTENT_MAX = 2000;
/** GET /api/conversations/{id}/messages answers the newest messages, oldest first, at most this many by default. */
export const MESSAGES_PAGE_DEFAULT = 200;
export const MESSAGES_PAGE_MAX = 1000;
/**
 * The chat screen renders a conversation a page at a time, newest first (decision 73): this many messages
 * at first and on each scroll to the top.
 */
export const CHAT_SCREEN_PAGE = 50;

export const CHAT_MESSAGES = {
  messageRequired: 'Message cannot be empty',
  messageTooLong: `Message must be at most ${MESSAGE_CONTENT_MAX} characters`,
  conversationNotFound: 'Conversation not found',
  userNotFound: 'User not found',
  participantRequired: 'participantId is required',
  notWithYourself: 'You cannot start a conversation with yourself',
  participantDeleted: 'This conversation is closed: the other account was deleted',
  messageExists: 'A message with this id already exists',
  messagesImmutable: 'Messages cannot be changed or deleted',
  invalidBefore: 'before must be the id of a message in this conversation',
} as const;

/**
 * A conversation's id is made from its two participants, so both phones name it the same even offline and a
 * pair can never have two conversations: the two user ids, sorted, joined by a colon.
 */
export function conversationIdOf(userId: string, otherUserId: string): string {
  return userId < otherUserId ? `${userId}:${otherUserId}` : `${otherUserId}:${userId}`;
}

/** The two user ids of a conversation id, or null when it is not one. */
export function participantsOf(conversationId: string): [string, string] | null {
  const parts = conversationId.split(':');
  if (parts.length !== 2 || !parts[0] || !parts[1] || parts[0] >= parts[1]) return null;
  return [parts[0], parts[1]];
}

export const MessageContentSchema = z
  .string({ message: CHAT_MESSAGES.messageRequired })
  .trim()
  .min(1, CHAT_MESSAGES.messageRequired)
  .max(MESSAGE_CONTENT_MAX, CHAT_MESSAGES.messageTooLong);

/** POST /api/conversations/{id}/messages; `id` lets a message written offline keep its id. */
export const SendMessageBodySchema = z.object({
  id: ClientIdSchema.optional(),
  content: MessageContentSchema,
});
export type SendMessageBody = z.infer<typeof SendMessageBodySchema>;

/** POST /api/conversations */
export const CreateConversationBodySchema = z.object({
  participantId: z
    .string({ message: CHAT_MESSAGES.participantRequired })
    .min(1, CHAT_MESSAGES.participantRequired)
    .max(100, CHAT_MESSAGES.userNotFound),
});
export type CreateConversationBody = z.infer<typeof CreateConversationBodySchema>;

/**
 * GET /api/conversations/{id}/messages?limit=&before=: the newest `limit` messages older than the message
 * `before` names (the newest of all without it), oldest first. The next (older) page's `before` is in the
 * `X-Next-Cursor` header, absent on the oldest page (decision 72).
 */
export const ListMessagesQuerySchema = z.object({
  limit: z.coerce
    .number({ message: `limit must be a number from 1 to ${MESSAGES_PAGE_MAX}` })
    .int()
    .min(1, `limit must be a number from 1 to ${MESSAGES_PAGE_MAX}`)
    .max(MESSAGES_PAGE_MAX, `limit must be a number from 1 to ${MESSAGES_PAGE_MAX}`)
    .default(MESSAGES_PAGE_DEFAULT),
  before: z
    .string({ message: CHAT_MESSAGES.invalidBefore })
    .min(1, CHAT_MESSAGES.invalidBefore)
    .max(200, CHAT_MESSAGES.invalidBefore)
    .optional(),
});
export type ListMessagesQuery = z.infer<typeof ListMessagesQuerySchema>;

/** A colleague as the chat shows them; a deleted account is "Deleted user" with null id and role. */
export const ChatUserSchema = z.object({
  id: z.string().nullable(),
  firstName: z.string(),
  lastName: z.string(),
  role: RoleSchema.nullable(),
  profileImageUrl: z.string().nullable(),
});
export type ChatUser = z.infer<typeof ChatUserSchema>;

/** GET /api/users: the new-chat list, every other active colleague. */
export const ChatContactSchema = ChatUserSchema.extend({ id: z.string(), role: RoleSchema });
export type ChatContact = z.infer<typeof ChatContactSchema>;

/** A conversation as GET /api/conversations answers it (spec section 3, Conversation). */
export const ConversationViewSchema = z.object({
  id: z.string(),
  otherUser: ChatUserSchema,
  /** Messages from the other person the signed-in user has not read. */
  unreadCount: z.number().int().nonnegative(),
  lastMessage: z.object({ content: z.string() }).nullable(),
  /** ISO 8601; null while the conversation has no message. */
  lastMessageAt: z.string().nullable(),
});
export type ConversationView = z.infer<typeof ConversationViewSchema>;

/** A message (spec section 3, Message). */
export const MessageViewSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  content: z.string(),
  /** Null once the sender's account is deleted. */
  senderId: z.string().nullable(),
  sender: z.object({ firstName: z.string() }),
  /** ISO 8601, set by the server. */
  createdAt: z.string(),
  /** Whether the recipient has read it (for one's own messages: the other person has). */
  isRead: z.boolean(),
});
export type MessageView = z.infer<typeof MessageViewSchema>;

/** GET /api/messages/unread-count and GET /api/notifications/unviewed-count (spec section 3, Notification counts). */
export const CountSchema = z.object({ count: z.number().int().nonnegative() });
export type Count = z.infer<typeof CountSchema>;
