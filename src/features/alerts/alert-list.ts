import type { AcknowledgementLocal, PostLocal } from '../../db/collections';

/** One alert the EMERGENCY ALERT modal lists: the post, and whether the acknowledgement still waits to be sent. */
export interface PendingAlert {
  post: PostLocal;
  acknowledgementId: string;
  /** Acknowledged on this device, not yet confirmed by the server (offline). */
  savedOffline: boolean;
}

/**
 * The user's alerts still to show, newest first (docs/sync.md "Alerts"): their own acknowledgement documents
 * without `acknowledgedAt`, or acknowledged here and not yet sent, whose post is here, live and urgent. The
 * server makes those documents only for the alert's audience, so the audience rule needs nothing here.
 */
export function alertsToShow(
  acknowledgements: readonly AcknowledgementLocal[],
  posts: ReadonlyMap<string, PostLocal>,
): PendingAlert[] {
  const rows: PendingAlert[] = [];
  for (const ack of acknowledgements) {
    const post = posts.get(ack.postId);
    // A mention entry asks for no acknowledgement (decision 144).
    if (!post?.isUrgent || ack.mention) continue;
    const savedOffline = ack.acknowledgedAt !== null && ack.localPending;
    if (ack.acknowledgedAt === null || savedOffline) rows.push({ post, acknowledgementId: ack.id, savedOffline });
  }
  return rows.sort((a, b) => b.post.createdAt - a.post.createdAt);
}

/** One mention in the bell (decision 144): "<name> mentioned you", linking to its post, or its conversation (decision 150). */
export interface MentionNotice {
  id: string;
  postId: string;
  commentId: string | null;
  /** A mention in a chat message: its conversation; null for a post or comment. */
  conversationId: string | null;
  text: string;
  createdAt: number;
  viewed: boolean;
}

/**
 * The user's mention entries the bell shows, newest first, at most `max`: from their `acknowledgements` documents
 * marked `mention`, with the name of who mentioned them from the directory.
 */
export function mentionNotices(
  acknowledgements: readonly AcknowledgementLocal[],
  nameOf: (userId: string | null) => string,
  max: number,
): MentionNotice[] {
  return acknowledgements
    .filter((ack) => ack.mention)
    .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1))
    .slice(0, max)
    .map((ack) => ({
      id: ack.id,
      postId: ack.postId,
      commentId: ack.commentId ?? null,
      conversationId: ack.conversationId ?? null,
      text: `${nameOf(ack.mentionedBy ?? null)} mentioned you`,
      createdAt: ack.createdAt,
      viewed: ack.viewedAt !== null,
    }));
}

/**
 * "just now", "5 minutes ago", "2 hours ago", "3 days ago" (the modal's relative time,
 * docs/behaviour.md, "Urgent alerts").
 */
export function formatRelativeTime(at: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 60) return 'just now';
  const units: [number, string][] = [
    [60 * 60 * 24 * 365, 'year'],
    [60 * 60 * 24 * 30, 'month'],
    [60 * 60 * 24, 'day'],
    [60 * 60, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${name}${count === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

/** "45 s", "3 min 5 s", "2 h 4 min": how long an acknowledgement took. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
