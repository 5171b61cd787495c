import { startTransition, useEffect, useState } from 'react';
import type { Observable } from 'rxjs';

interface Latest<T> {
  source: Observable<T> | null;
  value: T;
}

/**
 * The latest value of an observable (an RxDB query's `$`, a sync counter), or `initial` until it emits.
 * Pass a memoised observable: a new one resubscribes. `ready` says whether the value came from this source.
 */
export function useObservable<T>(source: Observable<T> | null, initial: T): { value: T; ready: boolean } {
  const [latest, setLatest] = useState<Latest<T>>({ source: null, value: initial });
  useEffect(() => {
    if (!source) return;
    const subscription = source.subscribe({
      // A transition: React renders what changed in short slices, yielding to input and paint in between, so a
      // first sync storing page after page does not block a slow phone for long stretches.
      next: (value) => startTransition(() => setLatest({ source, value })),
      error: (error: unknown) => console.error('A local query failed', error),
    });
    return () => subscription.unsubscribe();
  }, [source]);
  const ready = source !== null && latest.source === source;
  return { value: ready ? latest.value : initial, ready };
}
