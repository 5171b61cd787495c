import { useEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import { cx } from '../lib/cx';
import { elementTiming } from '../lib/when-presented';
import { linkify } from '../lib/linkify';

/** Lines a folded post shows (post-text-folded in feed.css); shorter texts are never measured. */
const FOLD_LINES = 10;
/** Below this many characters (and lines) a text cannot reach ten lines on the narrowest phone. */
const FOLD_MIN_CHARS = 360;

function mayFold(text: string): boolean {
  return text.length >= FOLD_MIN_CHARS || text.split('\n').length > FOLD_LINES;
}

/**
 * Post or comment text as plain text: line breaks kept by CSS, web addresses as links opening in a new
 * tab. React escapes every run, so markup such as <script> shows as the characters typed. With `fold`, a text
 * longer than ten lines shows its first ten and "Show more" (decision 128).
 */
export function PostText({
  text,
  className,
  timing,
  fold = false,
}: {
  text: string;
  className?: string;
  timing?: string;
  fold?: boolean;
}) {
  const parts = useMemo(() => linkify(text), [text]);
  const body = (
    <p className={cx('post-text', className)} {...(timing ? elementTiming(timing) : undefined)}>
      {parts.map((part, index) =>
        part.kind === 'link' ? (
          <a key={index} href={part.href} target="_blank" rel="noopener noreferrer">
            {part.text}
          </a>
        ) : (
          part.text
        ),
      )}
    </p>
  );
  return fold && mayFold(text) ? <FoldedText>{body}</FoldedText> : body;
}

/** Folds its text to ten lines when it is longer, measured after paint and again when the width changes. */
function FoldedText({ children }: { children: ReactElement }) {
  const box = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const text = box.current?.firstElementChild;
    if (!(text instanceof HTMLElement) || open) return;
    const measure = () => setOverflows(text.scrollHeight > text.clientHeight + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(text);
    return () => observer.disconnect();
  }, [open]);
  return (
    <div ref={box} className={cx('post-text-fold', !open && 'post-text-folded', overflows && !open && 'post-text-cut')}>
      {children}
      {overflows || open ? (
        <button type="button" className="post-text-more" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show less' : 'Show more'}
        </button>
      ) : null}
    </div>
  );
}
