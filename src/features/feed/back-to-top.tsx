import { ArrowUp } from 'lucide-react';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { LIMITS } from '../../../schema/constants';
import { cx } from '../../lib/cx';

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

/** What a tap can reach: the button steps aside rather than cover one of these. */
const CONTROL = 'a[href], button, input, select, textarea, summary, label, [role="button"], [tabindex="0"]';

/** Whether a control lies under any part of the button (its centre, corners and edges). */
function coversControl(button: HTMLElement): boolean {
  const { left, top, right, bottom } = button.getBoundingClientRect();
  const xs = [left + 2, (left + right) / 2, right - 2];
  const ys = [top + 2, (top + bottom) / 2, bottom - 2];
  return xs.some((x) =>
    ys.some((y) => {
      const under = document.elementsFromPoint(x, y).find((element) => !button.contains(element));
      return Boolean(under?.closest(CONTROL));
    }),
  );
}

/**
 * Shown once the page has scrolled more than 300 px, except while a control lies under it:
 * it never takes a tap meant for a card's button (decision 128). Checked once a frame while the page scrolls.
 */
export function BackToTop() {
  const visible = useSyncExternalStore(subscribe, scrolledFar, () => false);
  const button = useRef<HTMLButtonElement>(null);
  const [aside, setAside] = useState(false);
  useEffect(() => {
    if (!visible) return;
    let frame = 0;
    const check = () => {
      frame = 0;
      if (button.current) setAside(coversControl(button.current));
    };
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(check);
    };
    schedule();
    window.addEventListener('scroll', schedule, { passive: true });
    window.addEventListener('resize', schedule);
    return () => {
      cancelAnimationFrame(frame);
      window.removeEventListener('scroll', schedule);
      window.removeEventListener('resize', schedule);
    };
  }, [visible]);
  if (!visible) return null;
  return (
    <button
      ref={button}
      type="button"
      className={cx('back-to-top', aside && 'back-to-top-aside')}
      aria-label="Back to top"
      onClick={() => window.scrollTo({ top: 0, behavior: 'smooth' })}
    >
      <ArrowUp aria-hidden size={20} />
    </button>
  );
}
