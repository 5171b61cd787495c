/** A post as the feed holds it: `publishAt` is set only on the user's own post while it waits (decision 141). */
export interface SchedulablePost {
  id: string;
  authorId: string | null;
  publishAt?: string | null;
}

/** Whether a local post is still waiting for its publish time: the server's published copy carries no `publishAt`. */
export function isScheduled(post: SchedulablePost): boolean {
  return typeof post.publishAt === 'string' && post.publishAt !== '';
}

/**
 * Splits the local posts into the feed and the user's own scheduled posts, soonest first (decision 141). A scheduled
 * post is never in the feed, whoever wrote it: it shows in the "Scheduled" section until the pull brings the
 * published post, which takes its place under the same id.
 */
export function splitScheduled<T extends SchedulablePost>(
  posts: readonly T[],
  userId: string,
): { published: T[]; scheduled: T[] } {
  const published: T[] = [];
  const scheduled: T[] = [];
  for (const post of posts) {
    if (!isScheduled(post)) published.push(post);
    else if (post.authorId === userId) scheduled.push(post);
  }
  scheduled.sort((a, b) => Date.parse(a.publishAt ?? '') - Date.parse(b.publishAt ?? '') || (a.id < b.id ? -1 : 1));
  return { published, scheduled };
}

/**
 * The composer's "Schedule" value (a `datetime-local` input: the device's local time) as ISO 8601 for `publishAt`;
 * null when empty or unreadable, which posts at once.
 */
export function publishAtOf(localValue: string): string | null {
  if (localValue.trim() === '') return null;
  const at = new Date(localValue).getTime();
  return Number.isNaN(at) ? null : new Date(at).toISOString();
}

/** A `datetime-local` input's value for an ISO time, in the device's local time (to edit a scheduled post). */
export function localInputOf(iso: string): string {
  const at = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}
