import { X } from 'lucide-react';
import { useAtomValue } from 'jotai';
import { Toast as ToastPrimitive } from 'radix-ui';
import { LIMITS } from '../../../schema/constants';
import { cx } from '../../lib/cx';
import { dismissToast, toastsAtom } from '../../lib/toast';

/**
 * Shows the toasts of lib/toast.ts (spec section 9: one at a time, 5000 ms). Each toast is its own
 * role="status" live region; its text is kept out of radix's hidden announcer so it is not duplicated.
 */
export function Toaster() {
  const toasts = useAtomValue(toastsAtom);
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
