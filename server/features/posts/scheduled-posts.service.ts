import { startJob, type Job } from '../../lib/jobs';
import { canSeeAllScheduledPosts } from '../../../schema/permissions';
import type { ScheduledPostView } from '../../../schema/posts';
import type { AppDeps, SessionUser } from '../../lib/context';
import { publishScheduledPost, toScheduledView } from './posts.service';
import { listDueScheduledPosts, listScheduledPosts } from './scheduled-posts.queries';

/** Most posts one check publishes; the rest wait for the next check. */
const PUBLISHED_PER_CHECK = 100;

/** GET /api/posts/scheduled: the user's own scheduled posts, an admin's everyone's, soonest first (decision 141). */
export async function listScheduledPostViews(deps: AppDeps, viewer: SessionUser): Promise<ScheduledPostView[]> {
  return (await listScheduledPosts(deps.db, canSeeAllScheduledPosts(viewer) ? null : viewer.id)).map(toScheduledView);
}

/** Publishes every scheduled post whose time has come; answers how many (each once, however checks overlap). */
export async function publishDuePosts(deps: AppDeps): Promise<number> {
  let published = 0;
  for (const id of await listDueScheduledPosts(deps.db, deps.now(), PUBLISHED_PER_CHECK)) {
    if (await publishScheduledPost(deps, id)) published += 1;
  }
  return published;
}

/** The scheduled-post publisher of the server process: checks every `everyMs`; `check` runs one at once (tests). */
export const startPostPublisher = (deps: AppDeps, everyMs: number): Job =>
  startJob(deps, 'Publishing scheduled posts', everyMs, () => publishDuePosts(deps));
