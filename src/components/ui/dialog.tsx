import { X } from 'lucide-react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { useRef, type ComponentProps } from 'react';
import { useBackCloses } from '../../lib/back-closes';
import { cx } from '../../lib/cx';
import { useReturnFocus } from './return-focus';

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

/**
 * Modal panel with overlay, focus trap and a Close button (radix Dialog). `sheet` shows it as a card at the foot of
 * the screen over an undimmed page, for a question the app asks unprompted (decision 104): still modal, and a tap
 * outside it closes it as anywhere else. While shown, Back closes it as its Close button does (decision 128), except a
 * sheet: opened without a tap, its history entry would make Chrome's Back skip the page beneath it.
 */
export function DialogContent({
  className,
  children,
  onOpenAutoFocus,
  onCloseAutoFocus,
  sheet = false,
  ...props
}: ComponentProps<typeof DialogPrimitive.Content> & { sheet?: boolean }) {
  const focus = useReturnFocus({ onOpenAutoFocus, onCloseAutoFocus });
  const closeButton = useRef<HTMLButtonElement>(null);
  // Mounted only while open, so a closed dialog (one on each card with photos) costs the feed nothing.
  useBackCloses(!sheet, () => closeButton.current?.click());
  return (
    <DialogPrimitive.Portal>
      <DialogPrimitive.Overlay className={cx('overlay', sheet && 'overlay-clear')} />
      <DialogPrimitive.Content className={cx('dialog', sheet && 'dialog-sheet', className)} {...focus} {...props}>
        {children}
        <DialogPrimitive.Close ref={closeButton} className="dialog-close" aria-label="Close">
          <X aria-hidden size={18} />
        </DialogPrimitive.Close>
      </DialogPrimitive.Content>
    </DialogPrimitive.Portal>
  );
}

export function DialogTitle({ className, ...props }: ComponentProps<typeof DialogPrimitive.Title>) {
  return <DialogPrimitive.Title className={cx('dialog-title', className)} {...props} />;
}

export function DialogDescription({ className, ...props }: ComponentProps<typeof DialogPrimitive.Description>) {
  return <DialogPrimitive.Description className={cx('dialog-description', className)} {...props} />;
}

export function DialogFooter({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cx('dialog-footer', className)} {...props} />;
}
