import { ArrowUp } from 'lucide-react';
import { useSyncExternalStore } from 'react';
import { LIMITS } from '../../../schema/constants';

/**
 * Whether the page is scrolled past the limit, read in scroll events only. Reading `scrollY` while rendering forced
 * the browser to lay out the page at every render of the feed, which during a first sync is many times a frame.
 */
let far = false;

function subscribe(onChange: () => void): () => void {
  const update = () => {
    const next = window.scrollY > LIMITS.backToTopPx;
    if (next === far) return;
    far = next;
    onChange();
  };
  // The page may open scrolled (history restores it); read it once the first frame is laid out anyway.
  const frame = requestAnimationFrame(update);
  window.addEventListener('scroll', update, { passive: true });
  return () => {
    cancelAnimationFrame(frame);
    window.removeEventListener('scroll', update);
  };
}

const scrolledFar = () => far;

/** Shown once the page has scrolled more than 300 px (spec sections 2 and 9). */
export function BackToTop() {
  const visible = useSyncExternalStore(subscribe, scrolledFar, () => false);
  if (!visible) return null;
  return (
    <button
      type="button"
      className="back-to-top"
      aria-label="Back to top"
      onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
    >
      <ArrowUp aria-hidden size={20} />
    </button>
  );
}
