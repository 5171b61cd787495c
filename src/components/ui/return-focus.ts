import { useRef } from 'react';

type FocusHandler = (event: Event) => void;

/**
 * A dialog opened from state rather than its own Trigger (most of ours: a card's button sets `open`) has no
 * trigger for radix to give the focus back to when it closes, so the focus would fall to the page. This notes
 * the element that had the focus as the dialog opens and returns the focus to it on close, unless the caller's
 * own handler already placed it (WCAG 2.4.3, focus order).
 */
export function useReturnFocus(handlers: { onOpenAutoFocus?: FocusHandler; onCloseAutoFocus?: FocusHandler }): {
  onOpenAutoFocus: FocusHandler;
  onCloseAutoFocus: FocusHandler;
} {
  const opener = useRef<Element | null>(null);
  return {
    onOpenAutoFocus: (event) => {
      opener.current = document.activeElement;
      handlers.onOpenAutoFocus?.(event);
    },
    onCloseAutoFocus: (event) => {
      handlers.onCloseAutoFocus?.(event);
      const element = opener.current;
      opener.current = null;
      if (event.defaultPrevented) return;
      if (element instanceof HTMLElement && element !== document.body && element.isConnected) {
        event.preventDefault();
        element.focus({ preventScroll: true });
      }
    },
  };
}
