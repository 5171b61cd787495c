import { Smile } from 'lucide-react';
import { lazy, Suspense, useRef, useState, type RefObject } from 'react';
import { cx } from '../../lib/cx';
import { recordEmojiUse } from './frequent-emoji';
import { insertText } from './insert-text';

// The picker and its library load on the first opening, never with the screen (decision 129).
const EmojiPickerPopover = lazy(() =>
  import('./emoji-picker-popover').then((module) => ({ default: module.EmojiPickerPopover })),
);

export interface EmojiButtonProps {
  /** The field the chosen emoji goes into, at its caret. */
  field: RefObject<HTMLInputElement | HTMLTextAreaElement | null>;
  /** The field's new text; the owner stores it. */
  onInsert: (value: string) => void;
  disabled?: boolean;
  className?: string;
}

/** A button that opens the emoji picker and writes the chosen emoji into `field`, then gives the field focus back. */
export function EmojiButton({ field, onInsert, disabled, className }: EmojiButtonProps) {
  const button = useRef<HTMLButtonElement>(null);
  const [open, setOpen] = useState(false);
  const [asked, setAsked] = useState(false);
  // Where the caret goes once the picker has closed after a choice; null when it closed without one.
  const caret = useRef<number | null>(null);

  const pick = (emoji: string) => {
    recordEmojiUse(emoji);
    const el = field.current;
    if (el) {
      const maxLength = el.maxLength > 0 ? el.maxLength : undefined;
      const next = insertText(el.value, emoji, el.selectionStart, el.selectionEnd, maxLength);
      onInsert(next.value);
      caret.current = next.caret;
    }
    setOpen(false);
  };

  // A choice sends focus back into the field, after the emoji; closing without one, back to this button.
  const returnFocus = () => {
    const el = field.current;
    const at = caret.current;
    caret.current = null;
    if (el && at !== null) {
      el.focus();
      el.setSelectionRange(at, at);
    } else {
      button.current?.focus();
    }
  };

  return (
    <>
      <button
        ref={button}
        type="button"
        className={cx('btn btn-ghost btn-icon emoji-button', className)}
        aria-label="Add emoji"
        aria-haspopup="dialog"
        aria-expanded={open}
        disabled={disabled}
        onClick={() => {
          setAsked(true);
          setOpen((now) => !now);
        }}
      >
        <Smile aria-hidden size={18} />
      </button>
      {asked ? (
        <Suspense fallback={null}>
          <EmojiPickerPopover anchor={button} open={open} onOpenChange={setOpen} onPick={pick} onClosed={returnFocus} />
        </Suspense>
      ) : null}
    </>
  );
}
