import type { FieldMerge } from '../../schema/sync';
import type { SyncCollection } from '../../schema/sync-protocol';
import { noticeList } from './notice-lists';

/**
 * An edit of the user's that the server merged with someone else's changes made since it was written (decision
 * 120): which fields were theirs, which the user's, and where both changed the same field (the user's value was
 * kept). Field names only, never values: the list is in localStorage until the user dismisses it.
 */
export interface MergeNotice extends FieldMerge {
  collection: SyncCollection;
  /** The merged document's id. */
  id: string;
  at: number;
}

const lists = noticeList<MergeNotice>('sp_merge_notices|');

/** The stored list of a database as its raw text (a stable value for useSyncExternalStore), or null. */
export const mergeNoticesText = lists.text;
export const parseMergeNotices = lists.parse;
export const readMergeNotices = lists.read;

/** Keeps what a push's answer said of merges (its `merges`), the newest per document. */
export function recordMerges(
  databaseName: string,
  collection: SyncCollection,
  merges: Record<string, FieldMerge> | undefined,
): void {
  const entries = Object.entries(merges ?? {});
  if (entries.length === 0) return;
  const ids = new Set(entries.map(([id]) => id));
  const kept = lists.read(databaseName).filter((notice) => notice.collection !== collection || !ids.has(notice.id));
  const at = Date.now();
  lists.write(databaseName, [
    ...kept,
    ...entries.map(([id, merge]) => ({ collection, id, mine: merge.mine, theirs: merge.theirs, both: merge.both, at })),
  ]);
}

/** The user has read the notice of one document: it goes. */
export function dismissMergeNotice(databaseName: string, collection: SyncCollection, id: string): void {
  lists.write(
    databaseName,
    lists.read(databaseName).filter((notice) => notice.collection !== collection || notice.id !== id),
  );
}
