import { useEffect, useRef } from 'react';

/** The field our history entries add beside the router's own: how many overlays deep the entry is. */
const MARK = 'backCloses';

type Overlay = { close: () => void };

/** The overlays open now, in the order they opened: the topmost last. */
const open: Overlay[] = [];
/** Traversals this module started itself: their popstate closes nothing. */
let ownPops = 0;
let scheduled = false;
let listening = false;

function depthOf(state: unknown): number {
  if (typeof state !== 'object' || state === null) return 0;
  const depth: unknown = Reflect.get(state, MARK);
  return typeof depth === 'number' ? depth : 0;
}

/**
 * Brings the history in line with the overlays: one entry above the page for each, none once they are closed.
 * An entry is removed only while it is the current one, so a menu link that has opened another page is never
 * popped; overlays closing and opening in one step (a dialog opened from the menu) hand the entry over.
 */
function reconcile(): void {
  scheduled = false;
  // The traversal under way changes the current entry; its popstate schedules this again.
  if (ownPops > 0) return;
  const state: unknown = window.history.state;
  const here = depthOf(state);
  if (here > open.length) {
    ownPops += 1;
    window.history.go(open.length - here);
    return;
  }
  const fields = typeof state === 'object' && state !== null ? state : {};
  for (let depth = here + 1; depth <= open.length; depth += 1) {
    // The router's own fields are kept, so to the router the entry is the page it covers.
    window.history.pushState({ ...fields, [MARK]: depth }, '');
  }
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(reconcile);
}

/** Back (or Android's back gesture) closes the overlays above the entry it arrives at, topmost first. */
function onPopState(event: PopStateEvent): void {
  if (ownPops > 0) {
    ownPops -= 1;
    schedule();
    return;
  }
  const here = depthOf(event.state);
  if (here < open.length) {
    for (const overlay of open.splice(here).reverse()) overlay.close();
  } else if (here > open.length) {
    // Forward onto the entry of an overlay closed since, or Back onto one left under a page a menu link opened.
    schedule();
  }
}

/** Registers an open overlay; the function returned unregisters it when it closes by its own means. */
export function registerOverlay(close: () => void): () => void {
  const overlay: Overlay = { close };
  open.push(overlay);
  if (!listening) window.addEventListener('popstate', onPopState);
  listening = true;
  schedule();
  return () => {
    const index = open.indexOf(overlay);
    if (index >= 0) open.splice(index, 1);
    schedule();
  };
}

/**
 * While `isOpen`, the overlay holds a history entry: Back calls `close` instead of leaving the page, and closing it
 * otherwise removes the entry, so Back afterwards leaves as usual (decision 128).
 */
export function useBackCloses(isOpen: boolean, close: () => void): void {
  const latest = useRef(close);
  useEffect(() => {
    latest.current = close;
  });
  useEffect(() => {
    if (!isOpen) return undefined;
    return registerOverlay(() => latest.current());
  }, [isOpen]);
}
