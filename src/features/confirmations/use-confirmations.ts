import { useMemo } from 'react';
import { combineLatest, map } from 'rxjs';
import { acknowledgementId } from '../../../schema/sync-protocol';
import type { AcknowledgementLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { writeAcknowledgement } from '../../lib/acknowledge';
import { useObservable } from '../../lib/use-observable';
import { outstandingPosts, type OutstandingPost } from './confirm-list';

const NONE: OutstandingPost[] = [];

/** The user's posts still to confirm, live from the local database ("To confirm", decision 137). */
export function useOutstandingPosts(db: UserDatabase | null, userId: string): OutstandingPost[] {
  const outstanding$ = useMemo(
    () =>
      db
        ? combineLatest([
            db.acknowledgements.find({ selector: { userId } }).$,
            db.posts.find({ selector: { requiresConfirmation: true } }).$,
          ]).pipe(
            map(([acks, posts]) =>
              outstandingPosts(
                acks.map((doc) => doc._data),
                new Map(posts.map((doc) => [doc.id, doc._data])),
              ),
            ),
          )
        : null,
    [db, userId],
  );
  return useObservable(outstanding$, NONE).value;
}

/** The user's acknowledgement document of a post, live: what its card's confirmation shows; null while there is none. */
export function useOwnAcknowledgement(db: UserDatabase | null, postId: string, userId: string) {
  const ack$ = useMemo(
    () =>
      db
        ? db.acknowledgements
            .findOne(acknowledgementId(postId, userId))
            .$.pipe(map((doc): AcknowledgementLocal | null => (doc ? doc._data : null)))
        : null,
    [db, postId, userId],
  );
  return useObservable(ack$, null).value;
}

/**
 * Confirms a post: the acknowledgement document is written as an alert's is, locally and pushed once; the server
 * records it as the confirmation (decision 136).
 */
export function confirmPost(db: UserDatabase, postId: string, userId: string, now = Date.now()): Promise<void> {
  return writeAcknowledgement(db, acknowledgementId(postId, userId), now);
}
