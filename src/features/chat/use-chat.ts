import { useMemo } from 'react';
import { combineLatest, map } from 'rxjs';
import type { DirectoryUserLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { useObservable } from '../feed/use-observable';
import { summariseConversations, type ConversationSummary } from './chat-summary';

const NONE: ConversationSummary[] = [];
const NO_USERS: DirectoryUserLocal[] = [];

/** The conversation list, live from the local database (delivery is the sync stream, not polling). */
export function useConversations(db: UserDatabase | null): { conversations: ConversationSummary[]; ready: boolean } {
  const rows$ = useMemo(
    () =>
      db
        ? combineLatest([db.conversations.find().$, db.messages.find().$]).pipe(
            map(([conversations, messages]) =>
              summariseConversations(
                conversations.map((doc) => doc._data),
                messages.map((doc) => doc._data),
              ),
            ),
          )
        : null,
    [db],
  );
  const { value, ready } = useObservable(rows$, NONE);
  return { conversations: value, ready };
}

/** Unread messages across all conversations: the Chat button's badge. */
export function useUnreadChatCount(db: UserDatabase | null): number {
  const { conversations } = useConversations(db);
  return conversations.reduce((sum, row) => sum + row.unreadCount, 0);
}

/** Colleagues one can start a chat with: active, never oneself (spec section 2), by name. */
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
