import { dialectOf, statement, type Db } from '../db/client';

const iso = (ms: number) => new Date(ms).toISOString();

/** An entry's time of viewing as ISO text, in each engine's words: JSON, index hint and time formatting differ. */
const OPENING_BETWEEN = {
  sqlite: `SELECT 1 FROM audit_log INDEXED BY audit_log_actor_idx
       WHERE actor_id = @userId AND at > @from AND action = @action AND target_id = @targetId
         AND coalesce(json_extract(details, '$.viewedAt'), strftime('%Y-%m-%dT%H:%M:%fZ', at / 1000.0, 'unixepoch'))
           > @fromIso
         AND coalesce(json_extract(details, '$.viewedAt'), strftime('%Y-%m-%dT%H:%M:%fZ', at / 1000.0, 'unixepoch'))
           < @toIso
       LIMIT 1`,
  // No index hints in PostgreSQL: its planner takes (actor_id, at) for these conditions by itself.
  postgres: `SELECT 1 FROM audit_log
       WHERE actor_id = @userId AND at > @from AND action = @action AND target_id = @targetId
         AND coalesce(CAST(details AS json) ->> 'viewedAt',
                      to_char(timestamp 'epoch' + at * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           > @fromIso
         AND coalesce(CAST(details AS json) ->> 'viewedAt',
                      to_char(timestamp 'epoch' + at * interval '1 millisecond', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
           < @toIso
       LIMIT 1`,
};

/**
 * Whether the audit log holds an opening (`action`) of `targetId` by this user whose time of viewing lies strictly
 * between `from` and `to` (decisions 130 and 142). The time of viewing is the entry's `details.viewedAt` (an ISO time,
 * so text order is time order), or its `at` for entries written before openings carried it; it is never after `at`,
 * so only the user's entries since `from` are read, through the (actor_id, at) index.
 */
export async function hasOpeningBetween(
  db: Db,
  opening: { action: 'resident.view' | 'handover.viewed'; userId: string; targetId: string; from: number; to: number },
): Promise<boolean> {
  const { action, userId, targetId, from, to } = opening;
  const row = await statement<Record<string, unknown>>(db, OPENING_BETWEEN[dialectOf(db)]).get({
    userId,
    action,
    targetId,
    from,
    fromIso: iso(from),
    toIso: iso(to),
  });
  return row !== undefined;
}
