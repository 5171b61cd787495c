/** Direct messages between two staff members (docs/behaviour.md, "Chat"; docs/api-chat-alerts.md). */
import { z } from 'zod';
import {
  CHAT_MESSAGES,
  CONVERSATION_KINDS,
  GROUP_MEMBERS_MAX,
  GROUP_NAME_MAX,
  MESSAGE_CONTENT_MAX,
  MESSAGE_FILES_MAX,
  MESSAGES_PAGE_DEFAULT,
  MESSAGES_PAGE_MAX,
} from './chat-rules';
import { ClientIdSchema, WrittenAtSchema } from './common';
import { MentionsSchema } from './mentions';
import { AttachmentRefSchema, AttachmentSchema } from './posts';
import { RoleSchema } from './roles';

export * from './chat-rules';
export { CountSchema, type Count } from './common';

export const MessageContentSchema = z
  .string({ message: CHAT_MESSAGES.messageRequired })
  .trim()
  .min(1, CHAT_MESSAGES.messageRequired)
  .max(MESSAGE_CONTENT_MAX, CHAT_MESSAGES.messageTooLong);

/**
 * POST /api/conversations/{id}/messages; `id` lets a message written offline keep its id. Its words may be empty
 * when it carries photos or files, uploaded for this conversation first (decision 150).
 */
export const SendMessageBodySchema = z
  .object({
    id: ClientIdSchema.optional(),
    content: z
      .string({ message: CHAT_MESSAGES.messageRequired })
      .trim()
      .max(MESSAGE_CONTENT_MAX, CHAT_MESSAGES.messageTooLong),
    /** The pictures' URLs (`/api/uploads/{id}`), as a post holds them. */
    images: z.array(z.string().max(300)).default([]),
    /** The files, by upload id; their names, types and sizes are the server's record. */
    attachments: z.array(AttachmentRefSchema).default([]),
    /** When the sender wrote it, by the device's clock; the server bounds it (decision 119). */
    writtenAt: WrittenAtSchema,
    /**
     * Members' ids and, in a house chat, `house:<its house>`; anyone else is dropped (decision 150). A message without
     * them mentions nobody.
     */
    mentions: MentionsSchema.default([]),
  })
  .refine((body) => body.images.length + body.attachments.length <= MESSAGE_FILES_MAX, {
    message: CHAT_MESSAGES.tooManyFiles,
    path: ['images'],
  })
  .refine((body) => body.content.length > 0 || body.images.length + body.attachments.length > 0, {
    message: CHAT_MESSAGES.messageRequired,
    path: ['content'],
  });
export type SendMessageBody = z.infer<typeof SendMessageBodySchema>;

const UserIdSchema = z
  .string({ message: CHAT_MESSAGES.userNotFound })
  .min(1, CHAT_MESSAGES.userNotFound)
  .max(100, CHAT_MESSAGES.userNotFound);

const UserIdsSchema = z
  .array(UserIdSchema, { message: CHAT_MESSAGES.membersRequired })
  .min(1, CHAT_MESSAGES.membersRequired)
  .max(GROUP_MEMBERS_MAX, CHAT_MESSAGES.tooManyMembers);

/** A group's name: one trimmed line. */
export const GroupNameSchema = z
  .string({ message: CHAT_MESSAGES.groupNameRequired })
  .trim()
  .min(1, CHAT_MESSAGES.groupNameRequired)
  .max(GROUP_NAME_MAX, CHAT_MESSAGES.groupNameTooLong);

/**
 * POST /api/conversations: `memberIds` (the others) opens the one-to-one chat with one colleague, or starts a group
 * with several, which needs `name` (decision 143). `participantId` is the one-to-one form devices already send.
 */
export const CreateConversationBodySchema = z
  .object({
    participantId: UserIdSchema.optional(),
    memberIds: UserIdsSchema.optional(),
    name: GroupNameSchema.optional(),
  })
  .refine((body) => body.participantId !== undefined || body.memberIds !== undefined, {
    message: CHAT_MESSAGES.participantRequired,
    path: ['memberIds'],
  });
export type CreateConversationBody = z.infer<typeof CreateConversationBodySchema>;

/** POST /api/conversations/{id}/members */
export const AddMembersBodySchema = z.object({ userIds: UserIdsSchema });
export type AddMembersBody = z.infer<typeof AddMembersBodySchema>;

/** PATCH /api/conversations/{id}: a group's new name (its creator or admins) and one's own mute. */
export const UpdateConversationBodySchema = z
  .object({ name: GroupNameSchema.optional(), muted: z.boolean({ message: 'muted must be true or false' }).optional() })
  .refine((body) => body.name !== undefined || body.muted !== undefined, { message: CHAT_MESSAGES.nothingToChange });
export type UpdateConversationBody = z.infer<typeof UpdateConversationBodySchema>;

/** POST /api/conversations/{id}/read: read up to this message (its id). */
export const ReadConversationBodySchema = z.object({
  upTo: z
    .string({ message: CHAT_MESSAGES.invalidUpTo })
    .min(1, CHAT_MESSAGES.invalidUpTo)
    .max(200, CHAT_MESSAGES.invalidUpTo),
});
export type ReadConversationBody = z.infer<typeof ReadConversationBodySchema>;

/** DELETE /api/conversations/{id}/members/{userId} */
export const MemberParamsSchema = z.object({ id: z.string().min(1).max(250), userId: z.string().min(1).max(100) });

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

export const ConversationKindSchema = z.enum(CONVERSATION_KINDS);

/** A conversation as GET /api/conversations answers it (docs/behaviour.md, "Chat"; decision 143). */
export const ConversationViewSchema = z.object({
  id: z.string(),
  kind: ConversationKindSchema,
  /** A group's name, or the house's for a house chat; null for a one-to-one chat. */
  name: z.string().nullable(),
  /** House chats only: the house. */
  house: z.string().optional(),
  /** The current members, the signed-in user included. */
  memberIds: z.array(z.string()),
  /** Who started a group; null for other kinds and once that account is deleted. */
  createdBy: z.string().nullable(),
  /** Whether the signed-in user muted it (no push; still counted as unread). */
  muted: z.boolean(),
  /** One-to-one chats only: the other person ("Deleted user" once the account is deleted). */
  otherUser: ChatUserSchema.optional(),
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
  /** Whether the recipient has read it (for one's own messages: the other person has; in a group: anyone has). */
  isRead: z.boolean(),
  /** Groups and house chats: the members other than its sender who have read it ("Seen by N"). */
  seenBy: z.array(z.string()).optional(),
  /** Members' ids and `house:<name>` the message mentions, as the server kept them (decision 150). */
  mentions: z.array(z.string()),
  /** Its pictures' URLs and its files, readable by the conversation's members only (decision 150). */
  images: z.array(z.string()),
  attachments: z.array(AttachmentSchema),
});
export type MessageView = z.infer<typeof MessageViewSchema>;
