import { useMemo } from 'react';
import { combineLatest, map } from 'rxjs';
import type { UserDatabase } from '../../db/database';
import { writeAcknowledgement } from '../../lib/acknowledge';
import { useObservable } from '../../lib/use-observable';
import { alertsToShow, type PendingAlert } from './alert-list';

const NONE: PendingAlert[] = [];

/** The signed-in user's alerts for the EMERGENCY ALERT modal, live from the local database. */
export function usePendingAlerts(db: UserDatabase | null, userId: string): PendingAlert[] {
  const alerts$ = useMemo(
    () =>
      db
        ? combineLatest([
            db.acknowledgements.find({ selector: { userId } }).$,
            db.posts.find({ selector: { isUrgent: true } }).$,
          ]).pipe(
            map(([acks, posts]) =>
              alertsToShow(
                acks.map((doc) => doc._data),
                new Map(posts.map((doc) => [doc.id, doc._data])),
              ),
            ),
          )
        : null,
    [db, userId],
  );
  return useObservable(alerts$, NONE).value;
}

/**
 * Acknowledges an alert: written locally and pushed. The server keeps its own time of arrival (decision 34)
 * and `writtenAt`, this moment, bounded: the report counts from it (decision 119).
 */
export async function acknowledgeAlert(db: UserDatabase, acknowledgementId: string, now = Date.now()): Promise<void> {
  await writeAcknowledgement(db, acknowledgementId, now);
}
