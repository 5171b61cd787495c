import { useEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import { cx } from '../lib/cx';
import { elementTiming } from '../lib/when-presented';
import { linkify } from '../lib/linkify';
import { splitMentions } from '../../schema/mention-rules';

/** Lines a folded post shows (post-text-folded in feed.css); shorter texts are never measured. */
const FOLD_LINES = 10;
/** Below this many characters (and lines) a text cannot reach ten lines on the narrowest phone. */
const FOLD_MIN_CHARS = 360;

function mayFold(text: string): boolean {
  return text.length >= FOLD_MIN_CHARS || text.split('\n').length > FOLD_LINES;
}

type ShownPart = ReturnType<typeof linkify>[number] | { kind: 'mention'; text: string };

/** The text's parts: mentions (by the names in `mentionNames`, decision 144), links, and plain text. */
function partsOf(text: string, mentionNames: ReadonlyMap<string, string> | undefined): ShownPart[] {
  if (!mentionNames || mentionNames.size === 0) return linkify(text);
  return splitMentions(text, mentionNames).flatMap((part): ShownPart[] =>
    part.kind === 'mention' ? [{ kind: 'mention', text: part.text }] : linkify(part.text),
  );
}

/**
 * Post or comment text as plain text: line breaks kept by CSS, web addresses as links opening in a new
 * tab, and `@Name` of a mention as a name chip (decision 144). React escapes every run, so markup such as <script>
 * shows as the characters typed. With `fold`, a text longer than ten lines shows its first ten and "Show more"
 * (decision 128).
 */
export function PostText({
  text,
  className,
  timing,
  fold = false,
  mentionNames,
}: {
  text: string;
  className?: string;
  timing?: string;
  fold?: boolean;
  /** The names the text's mentions show as, by mention (a user id or `house:<name>`). */
  mentionNames?: ReadonlyMap<string, string>;
}) {
  const parts = useMemo(() => partsOf(text, mentionNames), [text, mentionNames]);
  const body = (
    <p className={cx('post-text', className)} {...(timing ? elementTiming(timing) : undefined)}>
      {parts.map((part, index) =>
        part.kind === 'link' ? (
          <a key={index} href={part.href} target="_blank" rel="noopener noreferrer">
            {part.text}
          </a>
        ) : part.kind === 'mention' ? (
          <span key={index} className="mention-chip">
            {part.text}
          </span>
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
