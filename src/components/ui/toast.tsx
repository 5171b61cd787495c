import { X } from 'lucide-react';
import { useAtomValue } from 'jotai';
import { Toast as ToastPrimitive } from 'radix-ui';
import { useEffect } from 'react';
import { flushSync } from 'react-dom';
import { LIMITS } from '../../../schema/constants';
import { cx } from '../../lib/cx';
import { appStore } from '../../lib/store';
import { dismissToast, toastsAtom } from '../../lib/toast';

/** Where the user can be working under a toast: a dialog, a menu or a list of options. */
const LAYER = '[role="dialog"], [role="alertdialog"], [role="menu"], [role="listbox"]';

/**
 * Escape closes what the user is working in first (decision 129). A toast that appears over an open dialog is the
 * newest of radix's dismissable layers, and radix gives Escape to the newest only: the dialog kept waiting for a
 * second press. With focus in a dialog (not in the toast), the toast is dismissed before the key reaches radix's
 * layers, synchronously (a closed toast has no exit animation to wait for), so the same press closes the dialog.
 */
function giveEscapeToDialogs(): () => void {
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    const focused = document.activeElement;
    if (!focused?.closest(LAYER) || focused.closest('.toast')) return;
    const shown = appStore.get(toastsAtom).filter((t) => t.open);
    if (shown.length > 0) flushSync(() => shown.forEach((t) => dismissToast(t.id)));
  };
  // On the window in the capture phase: before radix's listener on the document.
  window.addEventListener('keydown', onKeyDown, { capture: true });
  return () => window.removeEventListener('keydown', onKeyDown, { capture: true });
}

/**
 * Shows the toasts of lib/toast.ts (one at a time, 5000 ms; docs/behaviour.md, "Messages and formats"). Each toast is
 * its own role="status" live region; its text is kept out of radix's hidden announcer so it is not duplicated.
 */
export function Toaster() {
  const toasts = useAtomValue(toastsAtom);
  useEffect(giveEscapeToDialogs, []);
  return (
    <ToastPrimitive.Provider duration={LIMITS.toastDurationMs} swipeDirection="right">
      {toasts.map((t) => (
        <ToastPrimitive.Root
          key={t.id}
          open={t.open}
          onOpenChange={(open) => {
            if (!open) dismissToast(t.id);
          }}
          className={cx('toast', t.variant === 'destructive' && 'toast-destructive')}
          role="status"
          aria-live={t.variant === 'destructive' ? 'assertive' : 'polite'}
          aria-atomic="true"
        >
          <div data-radix-toast-announce-exclude="" className="toast-text">
            <ToastPrimitive.Title className="toast-title">{t.title}</ToastPrimitive.Title>
            {t.description ? (
              <ToastPrimitive.Description className="toast-description">{t.description}</ToastPrimitive.Description>
            ) : null}
            {t.detail ? <p className="toast-description">{t.detail}</p> : null}
          </div>
          <ToastPrimitive.Close className="toast-close" aria-label="Dismiss notification">
            <X aria-hidden size={16} />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      {/* A div, not radix's default <ol>: each toast is a role="status" region, which a list may not hold. */}
      <ToastPrimitive.Viewport asChild>
        <div className="toast-viewport" />
      </ToastPrimitive.Viewport>
    </ToastPrimitive.Provider>
  );
}
