import { useEffect, useState } from 'react';

/** The time, refreshed every minute, so "Access ends in N hours" counts down while the page stays open. */
export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
