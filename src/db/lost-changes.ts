import { filter, firstValueFrom, map, Subject, takeUntil } from 'rxjs';
import type { RxCollection } from 'rxdb';
import { SYNC_WRITABLE_FIELDS, type SyncCollection } from '../../schema/sync-protocol';
import { recordLostChange, type LostChange } from './lost-changes-store';
import { sameJson } from '../../schema/same-json';

export type { LostChange };

type Doc = Record<string, unknown> & { _deleted?: boolean };

/**
 * What a conflict whose master is deleted took from the user, or null when it took nothing of theirs: only a live
 * document this device wrote and has not sent (`localPending`) is theirs. A post counts when it was an edit (the
 * server had it) that changed a field from the state it was made on (`from`); a comment or reaction counts only
 * once its post turns out gone too (watchLostChanges), since the server also refuses them for other reasons; a
 * message refused always counts, since its tombstone keeps none of its words (decision 150).
 */
export function lostChangeOf(
  collection: SyncCollection,
  conflict: { mine: Doc; real: Doc; from: Doc | null | undefined },
): LostChange | null {
  const { mine, real, from } = conflict;
  if (!real._deleted || mine._deleted || mine.localPending !== true) return null;
  const base = { id: String(mine.id), at: Date.now() };
  if (collection === 'posts') {
    if (!from || from._deleted) return null;
    const changed = SYNC_WRITABLE_FIELDS.posts.some((field) => !sameJson(mine[field], from[field]));
    return changed ? { ...base, kind: 'post', postId: base.id, text: String(mine.content ?? '') } : null;
  }
  if (collection === 'comments')
    return { ...base, kind: 'comment', postId: String(mine.postId), text: String(mine.content) };
  if (collection === 'reactions')
    return { ...base, kind: 'reaction', postId: String(mine.postId), text: String(mine.type) };
  // A refused message's tombstone holds no words (decision 150): they are kept for its sender here.
  if (collection === 'messages' && typeof mine.content === 'string' && mine.content !== '')
    return { ...base, kind: 'message', conversationId: String(mine.conversationId), text: mine.content };
  return null;
}

/** Where the conflict handlers of one local database tell what was lost; held until someone listens. */
export interface LostChangeReporter {
  report: (change: LostChange) => void;
  listen: (listener: (change: LostChange) => void) => () => void;
}

const reporters = new WeakMap<object, LostChangeReporter>();

/** The reporter of a local database (one per database, like its merge bases). */
export function lostChangesOf(database: object): LostChangeReporter {
  let reporter = reporters.get(database);
  if (reporter) return reporter;
  const held: LostChange[] = [];
  let listener: ((change: LostChange) => void) | null = null;
  reporter = {
    report: (change) => (listener ? listener(change) : held.push(change)),
    listen: (next) => {
      listener = next;
      held.splice(0).forEach(next);
      return () => {
        if (listener === next) listener = null;
      };
    },
  };
  reporters.set(database, reporter);
  return reporter;
}

/**
 * Records, under the database's name, what its conflict handlers report lost. A post's edit is recorded at once
 * (its master is the deleted post); a comment or reaction once its post is gone from this device, which the pull
 * of the post's tombstone makes so. Stops when `stop` is called.
 */
export function watchLostChanges(
  database: { name: string },
  posts: RxCollection<Record<string, unknown>> | undefined,
): () => void {
  const stopped$ = new Subject<void>();
  const unlisten = lostChangesOf(database).listen((change) => {
    if (change.kind === 'post' || change.kind === 'message' || !posts) return recordLostChange(database.name, change);
    void firstValueFrom(
      posts.findOne(change.postId).$.pipe(
        filter((post) => post === null),
        map(() => true),
        takeUntil(stopped$),
      ),
      { defaultValue: false },
    ).then((gone) => {
      if (gone) recordLostChange(database.name, change);
    });
  });
  return () => {
    unlisten();
    stopped$.next();
    stopped$.complete();
  };
}
