import { concatMap, from, type Subscription } from 'rxjs';
import type { MessageLocal } from './collections';
import type { UserDatabase } from './database';

/**
 * Removes a conversation's messages from the local store, unsent ones included (decision 146). Each is blanked first,
 * as the server's own tombstones are, so the deleted document RxDB keeps holds no content; the blanking is marked as
 * the server's state so it is never pushed, and the delete that follows is one the server ignores.
 */
export async function dropConversationMessages(db: UserDatabase, conversationId: string): Promise<void> {
  const docs = await db.messages.find({ selector: { conversationId } }).exec();
  if (docs.length === 0) return;
  const blank = docs.map((doc): MessageLocal => ({ ...doc.toMutableJSON(), content: '', localPending: false }));
  await db.messages.bulkUpsert(blank);
  await db.messages.bulkRemove(docs.map((doc) => doc.id));
}

/**
 * Whenever a conversation's tombstone arrives (the user left it or was removed, decision 143), its messages leave the
 * device with it, one conversation after another. Ends with the database.
 */
export function dropLeftConversations(db: UserDatabase): Subscription {
  return db.conversations.remove$
    .pipe(
      concatMap((event) =>
        from(
          dropConversationMessages(db, event.documentId).catch((error: unknown) => {
            // Another tab may be removing the same messages; the server's own tombstones follow in any case.
            console.warn('Could not remove the messages of a conversation left', error);
          }),
        ),
      ),
    )
    .subscribe();
}
