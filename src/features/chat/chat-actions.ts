import { conversationIdOf } from '../../../schema/chat-rules';
import type { ConversationLocal, MessageLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { copyOfFile, UnreadableFileError } from '../../lib/file-copy';
import { saveWaitingMessage, type WaitingMessage } from './waiting-messages';

/**
 * Opens the conversation with a colleague: the id is made from the pair (decision 30), so an existing
 * conversation is found rather than duplicated, and a new one is written locally and synced (offline too).
 */
export async function openConversation(db: UserDatabase, meId: string, otherUserId: string, now = Date.now()) {
  const id = conversationIdOf(meId, otherUserId);
  const existing = await db.conversations.findOne(id).exec();
  if (existing) return id;
  const doc: ConversationLocal = {
    id,
    kind: 'direct',
    name: null,
    house: null,
    memberIds: [meId, otherUserId].sort(),
    createdBy: null,
    otherUserId,
    readUpTo: 0,
    otherReadUpTo: 0,
    readMarks: { [otherUserId]: 0 },
    muted: false,
    lastMessageAt: null,
    createdAt: now,
    updatedAt: now,
    localPending: true,
  };
  // Two quick clicks may both get here: the second insert finds the first.
  await db.conversations.upsert(doc);
  return id;
}

/**
 * Writes a message to the local database; replication delivers it (at once online, in order once back
 * online). The time is provisional: the server sets the real one. Returns null for blank content.
 */
export async function sendMessage(
  db: UserDatabase,
  meId: string,
  conversationId: string,
  content: string,
  now = Date.now(),
  /** Members the message mentions (decision 150). */
  extra: { mentions?: readonly string[] } = {},
): Promise<MessageLocal | null> {
  const text = content.trim();
  if (!text) return null;
  // Keep local order even when two messages are written within one millisecond.
  const last = await db.messages.findOne({ selector: { conversationId }, sort: [{ createdAt: 'desc' }] }).exec();
  const createdAt = Math.max(now, (last?.createdAt ?? 0) + 1);
  const doc: MessageLocal = {
    id: crypto.randomUUID(),
    conversationId,
    senderId: meId,
    content: text,
    createdAt,
    // The time it was written, shown beside the message; createdAt only keeps the order (decision 119).
    writtenAt: now,
    mentions: [...(extra.mentions ?? [])],
    images: [],
    attachments: [],
    localPending: true,
  };
  await db.messages.insert(doc);
  return doc;
}

/**
 * Marks the conversation read up to the newest message from the other person that was shown (docs/sync.md:
 * the mark only moves forward; messages that arrived unseen stay unread).
 */
export async function markConversationRead(db: UserDatabase, conversationId: string, upTo: number): Promise<void> {
  const doc = await db.conversations.findOne(conversationId).exec();
  if (!doc || doc.readUpTo >= upTo) return;
  await doc.incrementalPatch({ readUpTo: upTo, localPending: true });
}

/**
 * Keeps a message written with photos or files until they are uploaded for its conversation, then it is sent as any
 * message (decision 150); offline it waits on the device with its files.
 */
export async function writeWaitingMessage(
  db: UserDatabase,
  meId: string,
  conversationId: string,
  draft: { content: string; mentions: readonly string[]; files: readonly File[] },
  now = Date.now(),
): Promise<WaitingMessage> {
  const last = await db.messages.findOne({ selector: { conversationId }, sort: [{ createdAt: 'desc' }] }).exec();
  const message: WaitingMessage = {
    id: crypto.randomUUID(),
    userId: meId,
    conversationId,
    createdAt: Math.max(now, (last?.createdAt ?? 0) + 1),
    writtenAt: now,
    content: draft.content.trim(),
    mentions: [...draft.mentions],
    files: [],
    error: null,
  };
  for (const file of draft.files) {
    let blob: Blob = new Blob([]);
    try {
      blob = await copyOfFile(file, file.name);
    } catch (error) {
      // The words are kept, waiting with the reason and Discard, as for a file the server refuses.
      message.error ??= error instanceof UnreadableFileError ? error.message : String(error);
    }
    message.files.push({ name: file.name, type: file.type, size: file.size, blob, uploaded: null });
  }
  await saveWaitingMessage(message);
  return message;
}
