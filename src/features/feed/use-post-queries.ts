import { useMemo } from 'react';
import { map } from 'rxjs';
import { reactionId } from '../../../schema/sync-protocol';
import type { CommentLocal, ReactionLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';
import { useObservable } from '../../lib/use-observable';

const NO_COMMENTS: CommentLocal[] = [];

/** The user's own live reaction to one post, by its id (only mounted cards ask). */
export function useOwnReaction(db: UserDatabase | null, postId: string, userId: string): ReactionLocal | null {
  const reaction$ = useMemo(
    () =>
      db?.reactions
        .findOne(reactionId(postId, userId))
        .$.pipe(map((doc): ReactionLocal | null => (doc ? doc._data : null))) ?? null,
    [db, postId, userId],
  );
  return useObservable(reaction$, null).value;
}

/** How many live comments a post has. */
export function useCommentCount(db: UserDatabase | null, postId: string): number {
  const count$ = useMemo(() => db?.comments.count({ selector: { postId } }).$ ?? null, [db, postId]);
  return useObservable(count$, 0).value;
}

/**
 * A post's comments, oldest first; queried only while `enabled` (load when expanded;
 * docs/behaviour.md, "Comments and reactions").
 */
export function usePostComments(
  db: UserDatabase | null,
  postId: string,
  enabled: boolean,
): { comments: CommentLocal[]; ready: boolean } {
  const comments$ = useMemo(
    () =>
      enabled && db
        ? db.comments
            .find({ selector: { postId }, sort: [{ createdAt: 'asc' }] })
            .$.pipe(map((docs) => docs.map((doc): CommentLocal => doc._data)))
        : null,
    [db, postId, enabled],
  );
  const { value, ready } = useObservable(comments$, NO_COMMENTS);
  return { comments: value, ready };
}
