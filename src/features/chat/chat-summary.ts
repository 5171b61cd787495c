import { displayName } from '../../../schema/format';
import { roleLabel } from '../../../schema/role-rules';
import type { ConversationLocal, DirectoryUserLocal, MessageLocal } from '../../db/collections';

/** One row of the conversation list (docs/behaviour.md, "Chat"), derived from the local documents. */
export interface ConversationSummary {
  id: string;
  otherUserId: string | null;
  unreadCount: number;
  lastMessage: { content: string } | null;
  lastMessageAt: number | null;
  createdAt: number;
}

/**
 * One-to-one conversations with their last message and unread count, the most recent first (a conversation without
 * messages by its creation time). A message from the other person is unread after the reader's mark
 * (decision 31); one's own messages, pending ones included, never count. Groups and house chats wait for their
 * screens (decision 143).
 */
export function summariseConversations(
  conversations: readonly ConversationLocal[],
  messages: readonly MessageLocal[],
): ConversationSummary[] {
  const byConversation = new Map<string, MessageLocal[]>();
  for (const message of messages) {
    const list = byConversation.get(message.conversationId) ?? [];
    list.push(message);
    byConversation.set(message.conversationId, list);
  }
  return conversations
    .filter((conversation) => conversation.kind === 'direct')
    .map((conversation) => {
      const list = byConversation.get(conversation.id) ?? [];
      let last: MessageLocal | null = null;
      let unreadCount = 0;
      for (const message of list) {
        if (!last || message.createdAt > last.createdAt) last = message;
        if (
          conversation.otherUserId &&
          message.senderId === conversation.otherUserId &&
          message.createdAt > conversation.readUpTo
        ) {
          unreadCount += 1;
        }
      }
      return {
        id: conversation.id,
        otherUserId: conversation.otherUserId,
        unreadCount,
        lastMessage: last ? { content: last.content } : null,
        lastMessageAt: last?.createdAt ?? null,
        createdAt: conversation.createdAt,
      };
    })
    .sort((a, b) => (b.lastMessageAt ?? b.createdAt) - (a.lastMessageAt ?? a.createdAt));
}

/** The newest message from the other person, whose time the read mark moves to; null when there is none. */
export function newestFromOther(messages: readonly MessageLocal[], otherUserId: string | null): number | null {
  let newest: number | null = null;
  for (const message of messages) {
    if (otherUserId && message.senderId === otherUserId && !message.localPending) {
      newest = Math.max(newest ?? 0, message.createdAt);
    }
  }
  return newest;
}

/** Whether a colleague matches what was typed in New Chat's search: every word in their name or role, any case. */
export function matchesContact(
  contact: Pick<DirectoryUserLocal, 'firstName' | 'lastName' | 'role'>,
  search: string,
): boolean {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${displayName(contact)} ${roleLabel(contact.role)}`.toLowerCase();
  return words.every((word) => text.includes(word));
}
