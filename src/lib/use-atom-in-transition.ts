import type { Atom } from 'jotai';
import { startTransition, useEffect, useState } from 'react';
import { appStore } from './store';

/**
 * An atom's value (in the app's store), like jotai's `useAtomValue`, except that a change renders as a transition:
 * React renders it in short slices, yielding to input and paint in between. For atoms whose change re-renders a
 * whole screen (the local store opening, a new device's preview): jotai's own hook re-renders at once, in one task,
 * however much has to render, when the value changed before the screen subscribed. A change to null (a sign-out,
 * say) renders at once: nothing should go on using what was there.
 */
export function useAtomInTransition<T>(atom: Atom<T>): T {
  // Held in React state, not read from the store while rendering: of a render it bails out of, React keeps the
  // memoised hooks but drops the effects, so a query memoised on a value read that way was never subscribed.
  const [held, setHeld] = useState(() => ({ atom, value: appStore.get(atom) }));
  useEffect(() => {
    const changed = () => {
      const next = appStore.get(atom);
      const hold = () =>
        setHeld((prev) => (prev.atom === atom && Object.is(prev.value, next) ? prev : { atom, value: next }));
      if (next === null) hold();
      else startTransition(hold);
    };
    const unsubscribe = appStore.sub(atom, changed);
    // It may have changed between the first render and this subscription.
    changed();
    return unsubscribe;
  }, [atom]);
  return held.atom === atom ? held.value : appStore.get(atom);
}
