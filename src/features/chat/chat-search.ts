import type { MessageLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';

/** Most messages a chat search shows: the newest that match. */
export const CHAT_SEARCH_LIMIT = 50;

const wordsOf = (search: string) => search.trim().toLowerCase().split(/\s+/).filter(Boolean);
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether a message's text holds every word typed, in any case (as New Chat's and the feed's searches match). */
export function matchesMessage(content: string, search: string): boolean {
  const text = content.toLowerCase();
  return wordsOf(search).every((word) => text.includes(word));
}

/**
 * The messages on this device that match the search, newest first (decision 146): the local store only, so it works
 * offline and finds nothing of a conversation the user left. The store narrows by the longest word; the rest is
 * checked here.
 */
export async function searchMessages(
  db: UserDatabase,
  search: string,
  limit = CHAT_SEARCH_LIMIT,
): Promise<MessageLocal[]> {
  const words = wordsOf(search);
  const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
  if (!longest) return [];
  const docs = await db.messages
    .find({ selector: { content: { $regex: escapeRegex(longest), $options: 'i' } }, sort: [{ createdAt: 'desc' }] })
    .exec();
  const found: MessageLocal[] = [];
  for (const doc of docs) {
    if (found.length >= limit) break;
    if (matchesMessage(doc.content, search)) found.push(doc.toMutableJSON());
  }
  return found;
}
