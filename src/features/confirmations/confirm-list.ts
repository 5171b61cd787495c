import type { AcknowledgementLocal, PostLocal } from '../../db/collections';

/** One post the user still has to confirm, as "To confirm" lists it. */
export interface OutstandingPost {
  post: PostLocal;
  /** YYYY-MM-DD, or null. */
  confirmBy: string | null;
  /** The due date has passed (the day after it has begun on this device). */
  overdue: boolean;
}

/** The device's calendar day, YYYY-MM-DD: a due date is a day where the user is. */
export function localDay(at = Date.now()): string {
  const day = new Date(at);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${day.getFullYear()}-${pad(day.getMonth() + 1)}-${pad(day.getDate())}`;
}

/** Dates (YYYY-MM-DD) compared as text, a missing one last. */
function byDue(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
}

/** Whether this acknowledgement document asks the user to confirm this post and they have not yet (decision 136). */
export function asksConfirmation(ack: AcknowledgementLocal, post: PostLocal | undefined): post is PostLocal {
  // A mention entry in the same collection asks for nothing (decision 144).
  return post?.requiresConfirmation === true && ack.acknowledgedAt === null && !ack.mention;
}

/**
 * The user's posts still to confirm, from the local database (so the count works offline): their own acknowledgement
 * documents not yet acknowledged whose post is here and requires confirmation. Earliest due date first, posts without
 * one last, then the oldest request first (as GET /api/confirmations/outstanding orders them).
 */
export function outstandingPosts(
  acknowledgements: readonly AcknowledgementLocal[],
  posts: ReadonlyMap<string, PostLocal>,
  today = localDay(),
): OutstandingPost[] {
  const rows: (OutstandingPost & { requestedAt: number })[] = [];
  for (const ack of acknowledgements) {
    const post = posts.get(ack.postId);
    if (!asksConfirmation(ack, post)) continue;
    const confirmBy = post.confirmBy ?? null;
    rows.push({ post, confirmBy, overdue: confirmBy !== null && confirmBy < today, requestedAt: ack.createdAt });
  }
  rows.sort((a, b) => byDue(a.confirmBy, b.confirmBy) || a.requestedAt - b.requestedAt || byDue(a.post.id, b.post.id));
  return rows.map(({ post, confirmBy, overdue }) => ({ post, confirmBy, overdue }));
}
