import { forgetNoticeLists, noticeList, subscribeNoticeLists } from './notice-lists';

/**
 * A change of the user's own that the server's delete won over (decision 117): an edit of a post deleted meanwhile,
 * or a comment or reaction refused because its post is gone. `text` is what the user wrote (the post's content as
 * they left it, the comment) or the reaction's type; it is kept so they can copy it, until they dismiss it.
 */
export interface LostFeedChange {
  kind: 'post' | 'comment' | 'reaction';
  /** The lost document's id. */
  id: string;
  postId: string;
  text: string;
  at: number;
}

/**
 * A message written on this device that the server refused (its conversation was left meanwhile) or that left the
 * device unsent with its conversation: its tombstone holds no words, so they are kept here for the sender (decision 150).
 */
export interface LostMessage {
  kind: 'message';
  id: string;
  conversationId: string;
  text: string;
  at: number;
}

export type LostChange = LostFeedChange | LostMessage;

/** One list per user's database, in localStorage until dismissed (src/db/notice-lists.ts). */
const lists = noticeList<LostChange>('sp_lost_changes|');

/** The stored list of a database as its raw text (a stable value for useSyncExternalStore), or null. */
export const lostChangesText = lists.text;

/** The changes lost on a database, oldest first. */
export const readLostChanges = lists.read;

/** A stored list's text as changes; anything unreadable is no list. */
export const parseLostChanges = lists.parse;

/** Adds a lost change to the database's list, once per document. */
export function recordLostChange(databaseName: string, change: LostChange): void {
  const list = readLostChanges(databaseName);
  if (list.some((kept) => kept.kind === change.kind && kept.id === change.id)) return;
  lists.write(databaseName, [...list, change]);
}

/** The user has read what was lost with one post: it goes. */
export function dismissLostChanges(databaseName: string, postId: string): void {
  lists.write(
    databaseName,
    readLostChanges(databaseName).filter((change) => change.kind === 'message' || change.postId !== postId),
  );
}

/** The user has read the messages not sent into one conversation: they go. */
export function dismissLostMessages(databaseName: string, conversationId: string): void {
  lists.write(
    databaseName,
    readLostChanges(databaseName).filter(
      (change) => change.kind !== 'message' || change.conversationId !== conversationId,
    ),
  );
}

/** Removes every database's notice lists, lost changes and the rest, but those named in `keep`. */
export const forgetLostChanges = forgetNoticeLists;

/** Calls `listener` when any list changes, in this tab or (through storage events) in another. */
export const subscribeLostChanges = subscribeNoticeLists;
