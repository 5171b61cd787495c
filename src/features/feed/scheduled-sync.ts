import type { ScheduledPostView } from '../../../schema/posts';
import type { PostLocal } from '../../db/collections';
import type { UserDatabase } from '../../db/database';

/** The two things the "Scheduled" section changes, as the device and the server each hold them. */
const sameTime = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? null) === (b ?? null) || (!!a && !!b && Date.parse(a) === Date.parse(b));
const holdsSame = (post: PostLocal, view: ScheduledPostView) =>
  post.content === view.content && sameTime(post.publishAt, view.publishAt);

/**
 * Moves or rewords the user's own scheduled post on the device (decision 142): the replication sends it at once or when
 * the connection returns, and the server takes it as an edit of the scheduled post; a time already past then publishes
 * it, and `null` publishes it now.
 */
export async function rescheduleOnDevice(
  db: UserDatabase,
  id: string,
  content: string,
  publishAt: string | null,
): Promise<void> {
  const doc = await db.posts.findOne(id).exec();
  if (!doc) throw new Error('Post not found');
  await doc.incrementalModify((now) => ({
    ...now,
    content,
    publishAt,
    // Grows with every edit, as a post's edit does (decision 65).
    updatedAt: Math.max(Date.now(), now.updatedAt + 1),
    localPending: true,
  }));
}

/** Cancels the user's own scheduled post on the device; the server cancels it when the delete arrives (decision 142). */
export async function cancelOnDevice(db: UserDatabase, id: string): Promise<void> {
  const doc = await db.posts.findOne(id).exec();
  if (!doc) return;
  await doc.incrementalModify((data) => ({ ...data, localPending: true, _deleted: true }));
}

/**
 * Brings the device's own scheduled posts in line with the server's list (GET /api/posts/scheduled), as no pull tells
 * of them (decision 142). A listed post the device holds unchanged is marked sent; one the device has not changed
 * since takes the server's words and time (an admin's edit); one with a change not yet sent is left for the push. A post
 * marked sent that the list no longer holds is removed when `isGone` says the server has it nowhere (an admin
 * cancelled it); a published one is left for the pull, which brings it in its place.
 */
export async function settleScheduled(
  db: UserDatabase,
  own: readonly PostLocal[],
  server: readonly ScheduledPostView[],
  isGone: (id: string) => Promise<boolean>,
): Promise<void> {
  const listed = new Map(server.map((view) => [view.id, view]));
  for (const post of own) {
    const view = listed.get(post.id);
    if (view) {
      await followServer(db, post.id, view);
    } else if (!post.localPending && (await isGone(post.id))) {
      const doc = await db.posts.findOne(post.id).exec();
      // Only if nothing was changed here meanwhile: a change made since goes to the server, which answers it.
      if (doc && !doc.localPending) await doc.remove();
    }
  }
}

/** One listed post: marked sent when the device holds what the server does, else takes the server's if unchanged here. */
async function followServer(db: UserDatabase, id: string, view: ScheduledPostView): Promise<void> {
  const doc = await db.posts.findOne(id).exec();
  if (!doc) return;
  const local = doc.toJSON() as PostLocal; // the stored fields, without RxDB's meta
  if (holdsSame(local, view)) {
    if (local.localPending)
      await doc.incrementalModify((now) => (holdsSame(now, view) ? { ...now, localPending: false } : now));
    return;
  }
  if (local.localPending) return;
  await doc.incrementalModify((now) =>
    now.localPending ? now : { ...now, content: view.content, publishAt: view.publishAt },
  );
}
