import {
  BehaviorSubject,
  combineLatest,
  distinctUntilChanged,
  filter,
  map,
  of,
  switchMap,
  type Observable,
} from 'rxjs';
import type { MessageLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';

/** The messages an open conversation renders (decision 73). */
export interface MessagePage {
  /** Oldest first, as shown: every message from `since` on, the newest included. */
  messages: MessageLocal[];
  /** Older messages exist on the device before this page. */
  hasOlder: boolean;
  /** The time of the oldest message shown (0: from the start). */
  since: number;
}

/**
 * The time from which the newest `pageSize` messages older than `before` (all when not given) start; 0 when
 * fewer are left, which shows everything from the start. Read backwards along the (conversation, time) index
 * with one extra row to learn whether older ones exist.
 */
async function startOfPage(db: UserDatabase, conversationId: string, pageSize: number, before?: number) {
  const selector = before === undefined ? { conversationId } : { conversationId, createdAt: { $lt: before } };
  const docs = await db.messages.find({ selector, sort: [{ createdAt: 'desc' }], limit: pageSize + 1 }).exec();
  return docs.length > pageSize ? docs[pageSize - 1].createdAt : 0;
}

/** Every message of a conversation from `since` on, oldest first, live, and whether older ones exist. */
export function messagesSince$(db: UserDatabase, conversationId: string, since: number): Observable<MessagePage> {
  const shown$ = db.messages.find({
    selector: { conversationId, createdAt: { $gte: since } },
    sort: [{ createdAt: 'asc' }],
  }).$;
  const older$ =
    since === 0
      ? of(null)
      : db.messages.findOne({ selector: { conversationId, createdAt: { $lt: since } }, sort: [{ createdAt: 'desc' }] })
          .$;
  return combineLatest([shown$, older$]).pipe(
    map(([docs, older]) => ({
      messages: docs.map((doc): MessageLocal => doc._data),
      hasOlder: older !== null,
      since,
    })),
  );
}

/**
 * A conversation's messages a page at a time: it opens on the newest `pageSize` and each `loadOlder()` adds
 * the page before. The page is bounded by time, not by a count, so a new message is added at the end and
 * never pushes the oldest one shown out of the list (which would make the view jump). The current page stays
 * until the larger one has been read, so the list never empties while older messages load.
 */
export function pagedMessages(db: UserDatabase, conversationId: string, pageSize: number) {
  const since$ = new BehaviorSubject<number | null>(null);
  let busy = true;
  const settle = (since: number) => {
    busy = false;
    since$.next(since);
  };
  void startOfPage(db, conversationId, pageSize).then(settle, (error: unknown) => {
    console.error('Could not read the conversation', error);
    settle(0);
  });
  const page$ = since$.pipe(
    filter((since): since is number => since !== null),
    distinctUntilChanged(),
    switchMap((since) => messagesSince$(db, conversationId, since)),
  );
  return {
    page$,
    /** Adds the page before the one shown; ignored while a page is loading or when nothing is older. */
    loadOlder(shown: MessagePage): void {
      if (busy || !shown.hasOlder || shown.since !== since$.value) return;
      busy = true;
      void startOfPage(db, conversationId, pageSize, shown.since).then(settle, (error: unknown) => {
        console.error('Could not read earlier messages', error);
        busy = false;
      });
    },
  };
}

/** What changed between two renders of the list, which decides where it scrolls. */
export type ListChange = 'first' | 'older' | 'newer' | 'none';

export function listChangeOf(
  before: { oldestId: string; newestId: string } | null,
  messages: readonly MessageLocal[],
): ListChange {
  const oldest = messages[0];
  const newest = messages[messages.length - 1];
  if (!before) return 'first';
  if (!oldest || !newest) return 'none';
  if (newest.id !== before.newestId) return 'newer';
  if (oldest.id !== before.oldestId) return 'older';
  return 'none';
}
