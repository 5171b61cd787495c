import { useMemo } from 'react';
import type { LocalStore } from '../../db/local-store-state';
import { pendingPosts$, uploadPendingPosts, type PendingPost } from './pending-files';
import { uploadFile } from './upload-file';
import { useObservable } from '../../lib/use-observable';
import { useWhileOnline } from '../../lib/use-while-online';

const NONE: PendingPost[] = [];
/** The signed-in user's posts waiting for their files to upload, newest first. */
export function useWaitingPosts(userId: string): PendingPost[] {
  const waiting$ = useMemo(() => pendingPosts$(userId), [userId]);
  return useObservable(waiting$, NONE).value;
}

/** Uploads waiting files whenever the device is online (at start, on reconnect, then every 15 s). */
export function usePendingUploads(store: LocalStore | null): void {
  const run = useMemo(
    () =>
      store &&
      (() =>
        void uploadPendingPosts({
          userId: store.userId,
          upload: uploadFile,
          insertPost: async (doc) => {
            // Inserted before a crash that kept the waiting copy: the post is there already.
            if (await store.db.posts.findOne(doc.id).exec()) return;
            await store.db.posts.insert(doc);
          },
        })),
    [store],
  );
  useWhileOnline(run);
}
