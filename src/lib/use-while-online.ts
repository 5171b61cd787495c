import { useEffect } from 'react';
import { useOnline } from './use-online';

/** How often waiting work is tried again while online (a dropped connection, a server fault). */
const RETRY_MS = 15_000;

/** Runs `run` whenever the device is online: at once, on reconnect, then every 15 s. `run` must be memoised. */
export function useWhileOnline(run: (() => void) | null): void {
  const online = useOnline();
  useEffect(() => {
    if (!run || !online) return;
    run();
    const timer = setInterval(run, RETRY_MS);
    return () => clearInterval(timer);
  }, [run, online]);
}
