import type { Atom } from 'jotai';
import { startTransition, useEffect, useReducer, useRef } from 'react';
import { appStore } from './store';

/**
 * An atom's value (in the app's store), like jotai's `useAtomValue`, except that a change renders as a transition:
 * React renders it in short slices, yielding to input and paint in between. For atoms whose change re-renders a
 * whole screen (the local store opening, a new device's preview): jotai's own hook re-renders at once, in one task,
 * however much has to render, when the value changed before the screen subscribed. A change to null (a sign-out,
 * say) renders at once: nothing should go on using what was there.
 */
export function useAtomInTransition<T>(atom: Atom<T>): T {
  const [, rerender] = useReducer((count: number) => count + 1, 0);
  const value = appStore.get(atom);
  const rendered = useRef(value);
  useEffect(() => {
    rendered.current = value;
  });
  useEffect(() => {
    const changed = () => {
      const next = appStore.get(atom);
      if (Object.is(next, rendered.current)) return;
      if (next === null) rerender();
      else startTransition(rerender);
    };
    const unsubscribe = appStore.sub(atom, changed);
    // It may have changed between the render and this subscription.
    changed();
    return unsubscribe;
  }, [atom]);
  return value;
}
