import type { PullQuery, SyncCollection } from '../../../schema/sync';
import type { AppDeps } from '../../lib/context';
import { committedSeq, currentSeq } from '../../lib/seq.queries';
import { findSessionUserById } from '../users/users.service';
import type { HubDelivery } from './sync.hub';
import { SYNC_HANDLERS } from './sync.handlers';
import { changeEventEncoder, changeEventOf, type SyncDoc, type SyncHandler } from './sync.service';

/**
 * Change events that carry the change (decision 131): each stream's event is computed by the collection's own pull, as
 * the user it belongs to; for collections every user sees alike, once for all. `deps` is read when events are sent,
 * after the server has built it.
 */
export function hubDeliveryOf(deps: () => AppDeps): HubDelivery {
  return {
    currentSeq: () => committedSeq(deps().db),
    sameForEveryone: (collection) => SYNC_HANDLERS[collection].sameForEveryone === true,
    async eventsFor(collection, wanted, through) {
      const handler = SYNC_HANDLERS[collection];
      if (handler.pullOfUsers && wanted.length > 1) return eventsOfUsers(deps(), collection, handler, wanted, through);
      // One user after another: thousands of reads at once would queue every request's queries behind them.
      const events: (string | null)[] = [];
      for (const { userId, since } of wanted) {
        const actor = await findSessionUserById(deps(), userId);
        events.push(actor ? await changeEventOf(deps(), actor, collection, handler, since, through) : null);
      }
      return events;
    },
    failed: (error) => deps().log.error('Live stream: change events could not be read; announced instead', error),
  };
}

/** Events for many users read together, one read per starting point (`pullOfUsers`). */
async function eventsOfUsers(
  deps: AppDeps,
  collection: SyncCollection,
  handler: SyncHandler,
  wanted: readonly { userId: string; since: number }[],
  through: number,
): Promise<(string | null)[]> {
  const bySince = new Map<
    number,
    { rows: Map<string, { doc: SyncDoc }[]>; encode: ReturnType<typeof changeEventEncoder> }
  >();
  for (const since of new Set(wanted.map((w) => w.since))) {
    const userIds = new Set(wanted.filter((w) => w.since === since).map((w) => w.userId));
    bySince.set(since, {
      rows: await handler.pullOfUsers!(deps, userIds, since),
      encode: changeEventEncoder(collection, since, through),
    });
  }
  return wanted.map(({ userId, since }) => {
    const { rows, encode } = bySince.get(since)!;
    return encode(rows.get(userId) ?? []);
  });
}

/** Answers kept for the current sequence, by collection and query. */
const SHARED_ANSWERS_MAX = 200;
const sharedAnswers = new WeakMap<AppDeps['db'], { seq: number; bodies: Map<string, Promise<string>> }>();

/**
 * A pull answer every user would get alike (same collection, checkpoint and query), computed once while nothing new is
 * written: after a change, thousands of devices that missed or could not use its event ask for the same page
 * (decision 131). Per-user collections always compute their own.
 */
export async function sharedPullBody(
  deps: AppDeps,
  collection: SyncCollection,
  query: PullQuery,
  compute: () => Promise<string>,
): Promise<string> {
  if (deps.config.syncDelivery === 'announce' || !SYNC_HANDLERS[collection].sameForEveryone) return compute();
  const seq = await currentSeq(deps.db);
  let kept = sharedAnswers.get(deps.db);
  // A later sequence replaces what was kept; an answer still being read for an earlier one is not kept.
  if (!kept || kept.seq < seq) sharedAnswers.set(deps.db, (kept = { seq, bodies: new Map() }));
  else if (kept.seq > seq) return compute();
  const key = `${collection} ${JSON.stringify(query)}`;
  let body = kept.bodies.get(key);
  if (body === undefined) {
    // Kept while it is read, so the devices asking for the same page meanwhile wait for this one answer.
    body = compute();
    if (kept.bodies.size >= SHARED_ANSWERS_MAX) kept.bodies.clear();
    const { bodies } = kept;
    bodies.set(key, body);
    // A failed read is not kept: the next ask reads again.
    body.catch(() => bodies.get(key) === body && bodies.delete(key));
  }
  return body;
}
