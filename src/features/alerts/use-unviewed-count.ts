import { useCallback, useEffect, useState } from 'react';
import type { UserDatabase } from '../../db/database';

/** docs/behaviour.md, "Notifications": the unviewed notification count is refreshed every 30 s. */
const REFRESH_MS = 30_000;

/** GET /api/notifications/unviewed-count as background traffic (it must not keep an idle session alive); 0 on failure. */
async function fetchUnviewedCount(): Promise<number> {
  try {
    const response = await fetch('/api/notifications/unviewed-count', {
      credentials: 'include',
      headers: { Accept: 'application/json', 'X-Background': '1' },
    });
    if (!response.ok) return 0;
    // The schema loads with the first answer: the feed's first script builds none (decision 113).
    const [{ CountSchema }, answer] = await Promise.all([import('../../../schema/common'), response.json()]);
    return CountSchema.parse(answer).count;
  } catch {
    return 0;
  }
}

/**
 * The bell's badge: the server's count, refreshed every 30 s and whenever the user's alert list changes
 * through sync (a new alert, an acknowledgement). `set` lets the bell apply mark-viewed's answer at once.
 */
export function useUnviewedCount(db: UserDatabase | null): [number, (count: number) => void] {
  const [count, setCount] = useState(0);
  const refresh = useCallback(() => {
    void fetchUnviewedCount().then(setCount);
  }, []);
  useEffect(() => {
    if (!db) return;
    refresh();
    const timer = setInterval(refresh, REFRESH_MS);
    const subscription = db.acknowledgements.$.subscribe(refresh);
    return () => {
      clearInterval(timer);
      subscription.unsubscribe();
    };
  }, [db, refresh]);
  return [count, setCount];
}
