import { displayName } from '../../../schema/format';
import { roleLabel } from '../../../schema/role-rules';
import type { ConversationLocal, DirectoryUserLocal, MessageLocal } from '../../db/collections';

/** One row of the conversation list (docs/behaviour.md, "Chat"), derived from the local documents. */
export interface ConversationSummary {
  id: string;
  kind: ConversationLocal['kind'];
  /** A group's name or a house chat's house; null for a one-to-one chat, named by the other person. */
  name: string | null;
  otherUserId: string | null;
  muted: boolean;
  unreadCount: number;
  lastMessage: { content: string; senderId: string | null } | null;
  lastMessageAt: number | null;
  createdAt: number;
}

/**
 * Whether a message counts as unread for `meId` in this conversation: from someone else, after the reader's mark
 * (decision 31). In a one-to-one chat only the other person's count, as before; in groups and house chats anyone's
 * but one's own, a former member's too (decision 146). One's own messages, pending ones included, never count.
 */
export function isUnread(conversation: ConversationLocal, message: MessageLocal, meId: string): boolean {
  if (message.createdAt <= conversation.readUpTo || message.localPending) return false;
  if (conversation.kind === 'direct') {
    return conversation.otherUserId !== null && message.senderId === conversation.otherUserId;
  }
  return message.senderId !== meId;
}

/**
 * Every conversation the user is in (one-to-one chats, house chats, groups) with its last message and unread count,
 * the most recent first (a conversation without messages by its creation time). A muted one still counts (decision
 * 143).
 */
export function summariseConversations(
  conversations: readonly ConversationLocal[],
  messages: readonly MessageLocal[],
  meId: string,
): ConversationSummary[] {
  const byConversation = new Map<string, MessageLocal[]>();
  for (const message of messages) {
    const list = byConversation.get(message.conversationId) ?? [];
    list.push(message);
    byConversation.set(message.conversationId, list);
  }
  return conversations
    .map((conversation) => {
      const list = byConversation.get(conversation.id) ?? [];
      let last: MessageLocal | null = null;
      let unreadCount = 0;
      for (const message of list) {
        if (!last || message.createdAt > last.createdAt) last = message;
        if (isUnread(conversation, message, meId)) unreadCount += 1;
      }
      return {
        id: conversation.id,
        kind: conversation.kind,
        name: conversation.kind === 'direct' ? null : (conversation.name ?? conversation.house),
        otherUserId: conversation.otherUserId,
        muted: conversation.muted,
        unreadCount,
        lastMessage: last ? { content: messagePreview(last), senderId: last.senderId } : null,
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

/** In a group or house chat: the newest message from anyone but `meId`, whose time the read mark moves to. */
export function newestFromOthers(messages: readonly MessageLocal[], meId: string): number | null {
  let newest: number | null = null;
  for (const message of messages) {
    if (message.senderId !== meId && !message.localPending) newest = Math.max(newest ?? 0, message.createdAt);
  }
  return newest;
}

/**
 * Who has seen one's own message in a group or house chat: the members other than the sender whose read mark is at or
 * after it (decision 143), from the conversation's `readMarks`, so messages never change for it.
 */
export function seenBy(
  conversation: Pick<ConversationLocal, 'memberIds' | 'readMarks'>,
  message: Pick<MessageLocal, 'senderId' | 'createdAt'>,
): string[] {
  return conversation.memberIds.filter(
    (id) => id !== message.senderId && (conversation.readMarks[id] ?? 0) >= message.createdAt,
  );
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

/** A message as the conversation list shows it: its words, or what it carries when it has none (decision 150). */
export function messagePreview(message: Pick<MessageLocal, 'content' | 'images' | 'attachments'>): string {
  if (message.content) return message.content;
  const photos = message.images?.length ?? 0;
  const files = message.attachments?.length ?? 0;
  const parts = [
    photos > 0 ? (photos === 1 ? 'Photo' : `${photos} photos`) : '',
    files > 0 ? (files === 1 ? 'File' : `${files} files`) : '',
  ];
  return parts.filter(Boolean).join(', ');
}
