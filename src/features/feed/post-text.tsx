import { useMemo } from 'react';
import { cx } from '../../lib/cx';
import { elementTiming } from '../../lib/when-presented';
import { linkify } from './linkify';

/**
 * Post or comment text as plain text: line breaks kept by CSS, web addresses as links opening in a new
 * tab. React escapes every run, so markup such as <script> shows as the characters typed.
 */
export function PostText({ text, className, timing }: { text: string; className?: string; timing?: string }) {
  const parts = useMemo(() => linkify(text), [text]);
  return (
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
}
