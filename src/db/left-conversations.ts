import { concatMap, filter, from, type Subscription } from 'rxjs';
import type { MessageLocal } from './collections';
import type { UserDatabase } from './database';
import { recordLostChange } from './lost-changes-store';

/**
 * Removes a conversation's messages from the local store, unsent ones included (decision 146), whose words go to the
 * lost-changes notice (decision 150). Each is blanked first,
 * as the server's own tombstones are, so the deleted document RxDB keeps holds no content; the blanking is marked as
 * the server's state so it is never pushed, and the delete that follows is one the server ignores.
 */
export async function dropConversationMessages(db: UserDatabase, conversationId: string): Promise<void> {
  const docs = await db.messages.find({ selector: { conversationId } }).exec();
  if (docs.length === 0) return;
  // Unsent words leave the store, not their writer: the chat's notice keeps them to copy (decision 150).
  for (const doc of docs) {
    if (doc.localPending && doc.content !== '')
      recordLostChange(db.name, { kind: 'message', id: doc.id, conversationId, text: doc.content, at: Date.now() });
  }
  const blank = docs.map((doc): MessageLocal => ({ ...doc.toMutableJSON(), content: '', localPending: false }));
  await db.messages.bulkUpsert(blank);
  await db.messages.bulkRemove(docs.map((doc) => doc.id));
}

/**
 * Blanks a message that was deleted with its words still in it: a message the server refused (its conversation was
 * left meanwhile) comes back as its own document, deleted (docs/sync.md, "Push"). Written again blank, as the server's
 * state so it is not sent as new, then deleted again: that delete's answer leaves the replication's copy blank too.
 */
export async function blankDeletedMessage(db: UserDatabase, message: MessageLocal): Promise<void> {
  await db.messages.upsert({ ...message, content: '', localPending: false });
  await (await db.messages.findOne(message.id).exec())?.remove();
}

/**
 * Whenever a conversation's tombstone arrives (the user left it or was removed, decision 143), its messages leave the
 * device with it, one conversation after another; a message deleted with its words still in it is blanked. Unsubscribe
 * to stop.
 */
export function dropLeftConversations(db: UserDatabase): Subscription {
  const blanking = db.messages.remove$
    .pipe(
      filter((event) => Boolean(event.documentData?.content)),
      concatMap((event) =>
        from(
          blankDeletedMessage(db, stripStored(event.documentData)).catch((error: unknown) => {
            console.warn('Could not blank a refused message', error);
          }),
        ),
      ),
    )
    .subscribe();
  const dropping = db.conversations.remove$
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
  dropping.add(blanking);
  return dropping;
}

/** The message's own fields, without RxDB's stored ones (`_rev`, `_meta`, `_attachments`, `_deleted`). */
function stripStored(doc: MessageLocal): MessageLocal {
  const { id, conversationId, senderId, content, createdAt, writtenAt, localPending } = doc;
  return { id, conversationId, senderId, content, createdAt, writtenAt, localPending };
}
