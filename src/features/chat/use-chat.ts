import { useMemo } from 'react';
import { combineLatest, map, of, switchMap, type Observable } from 'rxjs';
import type { ConversationLocal, DirectoryUserLocal, MessageLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { useObservable } from '../../lib/use-observable';
import { summariseConversations, type ConversationSummary } from './chat-summary';

const NONE: ConversationSummary[] = [];
const NO_USERS: DirectoryUserLocal[] = [];

/**
 * The messages a conversation's row needs, live: every message after the user's read mark (the unread ones
 * are among them, and the newest, when there are any), else only the newest. Both are read along the
 * (conversation, time) index, so a conversation of thousands of messages costs its unread few.
 */
function rowMessages$(db: UserDatabase, conversation: ConversationLocal): Observable<MessageLocal[]> {
  const conversationId = conversation.id;
  const newest$ = db.messages.findOne({ selector: { conversationId }, sort: [{ createdAt: 'desc' }] }).$;
  const afterMark$ = db.messages.find({
    selector: { conversationId, createdAt: { $gt: conversation.readUpTo } },
    sort: [{ createdAt: 'asc' }],
  }).$;
  return combineLatest([newest$, afterMark$]).pipe(
    map(([newest, afterMark]) =>
      afterMark.length > 0 ? afterMark.map((doc): MessageLocal => doc._data) : newest ? [newest._data] : [],
    ),
  );
}

/**
 * The conversation list (docs/behaviour.md, "Chat"), live from the local database: delivery is the sync
 * stream, not polling. Each row reads only its newest and unread messages, never the whole history.
 */
export function conversationSummaries$(db: UserDatabase, meId: string): Observable<ConversationSummary[]> {
  return db.conversations.find().$.pipe(
    switchMap((docs) => {
      // Every kind: one-to-one chats, house chats and groups (decision 146).
      const conversations = docs.map((doc): ConversationLocal => doc._data);
      if (conversations.length === 0) return of(NONE);
      return combineLatest(conversations.map((conversation) => rowMessages$(db, conversation))).pipe(
        map((lists) => summariseConversations(conversations, lists.flat(), meId)),
      );
    }),
  );
}

/** The conversation list, live from the local database. */
export function useConversations(
  db: UserDatabase | null,
  meId: string,
): { conversations: ConversationSummary[]; ready: boolean } {
  const rows$ = useMemo(() => (db ? conversationSummaries$(db, meId) : null), [db, meId]);
  const { value, ready } = useObservable(rows$, NONE);
  return { conversations: value, ready };
}

/** Unread messages across all conversations of every kind, muted ones included: the Chat button's badge. */
export function useUnreadChatCount(db: UserDatabase | null, meId: string): number {
  const { conversations } = useConversations(db, meId);
  return conversations.reduce((sum, row) => sum + row.unreadCount, 0);
}

/** Colleagues one can start a chat with: active, never oneself (docs/behaviour.md, "Chat"), by name. */
export function useChatContacts(db: UserDatabase | null, meId: string): DirectoryUserLocal[] {
  const users$ = useMemo(
    () =>
      db?.users.find({ selector: { isActive: true } }).$.pipe(
        map((docs) =>
          docs
            .map((doc): DirectoryUserLocal => doc._data)
            .filter((user) => user.id !== meId)
            .sort((a, b) => `${a.firstName} ${a.lastName}`.localeCompare(`${b.firstName} ${b.lastName}`)),
        ),
      ) ?? null,
    [db, meId],
  );
  return useObservable(users$, NO_USERS).value;
}

/** One conversation's local document, live; null while it is not on the device (not yet written, or left). */
export function useConversation(db: UserDatabase | null, id: string | null): ConversationLocal | null {
  const doc$ = useMemo(
    () => (db && id ? db.conversations.findOne(id).$.pipe(map((doc) => (doc ? doc._data : null))) : null),
    [db, id],
  );
  return useObservable(doc$, null).value;
}
