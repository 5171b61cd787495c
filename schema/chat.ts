/** Direct messages between two staff members (docs/behaviour.md, "Chat"; docs/api-chat-alerts.md). */
import { z } from 'zod';
import { CHAT_MESSAGES, MESSAGE_CONTENT_MAX, MESSAGES_PAGE_DEFAULT, MESSAGES_PAGE_MAX } from './chat-rules';
import { ClientIdSchema, WrittenAtSchema } from './common';
import { RoleSchema } from './roles';

export * from './chat-rules';
export { CountSchema, type Count } from './common';

export const MessageContentSchema = z
  .string({ message: CHAT_MESSAGES.messageRequired })
  .trim()
  .min(1, CHAT_MESSAGES.messageRequired)
  .max(MESSAGE_CONTENT_MAX, CHAT_MESSAGES.messageTooLong);

/** POST /api/conversations/{id}/messages; `id` lets a message written offline keep its id. */
export const SendMessageBodySchema = z.object({
  id: ClientIdSchema.optional(),
  content: MessageContentSchema,
  /** When the sender wrote it, by the device's clock; the server bounds it (decision 119). */
  writtenAt: WrittenAtSchema,
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

/** A conversation as GET /api/conversations answers it (docs/behaviour.md, "Chat"). */
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

/** A message (docs/behaviour.md, "Chat"). */
export const MessageViewSchema = z.object({
  id: z.string(),
  conversationId: z.string(),
  content: z.string(),
  /** Null once the sender's account is deleted. */
  senderId: z.string().nullable(),
  sender: z.object({ firstName: z.string() }),
  /** ISO 8601, set by the server: when the message arrived (it orders the conversation). */
  createdAt: z.string(),
  /** ISO 8601: when the sender wrote it (the device's clock, bounded by the server; decision 119). */
  writtenAt: z.string(),
  /** Whether the recipient has read it (for one's own messages: the other person has). */
  isRead: z.boolean(),
});
export type MessageView = z.infer<typeof MessageViewSchema>;
