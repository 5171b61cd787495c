import { startTransition, useEffect, useState } from 'react';
import type { Observable, Subscription } from 'rxjs';

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
    let subscription: Subscription | null = null;
    // Each subscription starts in a task of its own: when the local store opens, every query on the screen (the
    // feed's, and each card's reactions and comments) subscribes at once, and running their first reads in the
    // commit's own task made one long task on a slow phone.
    const timer = setTimeout(() => {
      subscription = source.subscribe({
        // A transition: React renders what changed in short slices, yielding to input and paint in between, so
        // a first sync storing page after page does not block a slow phone for long stretches.
        next: (value) => startTransition(() => setLatest({ source, value })),
        error: (error: unknown) => console.error('A local query failed', error),
      });
    }, 0);
    return () => {
      clearTimeout(timer);
      subscription?.unsubscribe();
    };
  }, [source]);
  const ready = source !== null && latest.source === source;
  return { value: ready ? latest.value : initial, ready };
}
