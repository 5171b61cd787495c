import { ArrowUp } from 'lucide-react';
import { useSyncExternalStore } from 'react';
import { LIMITS } from '../../../schema/constants';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('scroll', onChange, { passive: true });
  return () => window.removeEventListener('scroll', onChange);
}

const scrolledFar = () => window.scrollY > LIMITS.backToTopPx;

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
