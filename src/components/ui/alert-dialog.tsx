import { AlertDialog as AlertDialogPrimitive } from 'radix-ui';
import { useState, type ComponentProps } from 'react';
import { useBackCloses } from '../../lib/back-closes';
import { cx } from '../../lib/cx';
import { buttonClass } from './button';
import { useReturnFocus } from './return-focus';

/** The radix AlertDialog root; while it is open, Back answers it as Cancel does (decision 128). */
export function AlertDialog({
  open: openProp,
  defaultOpen = false,
  onOpenChange,
  ...props
}: ComponentProps<typeof AlertDialogPrimitive.Root>) {
  const [own, setOwn] = useState(defaultOpen);
  const open = openProp ?? own;
  const change = (next: boolean) => {
    setOwn(next);
    onOpenChange?.(next);
  };
  useBackCloses(open, () => change(false));
  return <AlertDialogPrimitive.Root open={open} onOpenChange={change} {...props} />;
}
export const AlertDialogTrigger = AlertDialogPrimitive.Trigger;

/** A confirmation that must be answered: no click outside closes it (radix AlertDialog). */
export function AlertDialogContent({
  className,
  onOpenAutoFocus,
  onCloseAutoFocus,
  ...props
}: ComponentProps<typeof AlertDialogPrimitive.Content>) {
  const focus = useReturnFocus({ onOpenAutoFocus, onCloseAutoFocus });
  return (
    <AlertDialogPrimitive.Portal>
      <AlertDialogPrimitive.Overlay className="overlay" />
      <AlertDialogPrimitive.Content className={cx('dialog', className)} {...focus} {...props} />
    </AlertDialogPrimitive.Portal>
  );
}

export function AlertDialogTitle({ className, ...props }: ComponentProps<typeof AlertDialogPrimitive.Title>) {
  return <AlertDialogPrimitive.Title className={cx('dialog-title', className)} {...props} />;
}

export function AlertDialogDescription({
  className,
  ...props
}: ComponentProps<typeof AlertDialogPrimitive.Description>) {
  return <AlertDialogPrimitive.Description className={cx('dialog-description', className)} {...props} />;
}

export function AlertDialogFooter({ className, ...props }: ComponentProps<'div'>) {
  return <div className={cx('dialog-footer', className)} {...props} />;
}

export function AlertDialogCancel({ className, ...props }: ComponentProps<typeof AlertDialogPrimitive.Cancel>) {
  return <AlertDialogPrimitive.Cancel className={buttonClass('outline', 'md', className)} {...props} />;
}

export function AlertDialogAction({ className, ...props }: ComponentProps<typeof AlertDialogPrimitive.Action>) {
  return <AlertDialogPrimitive.Action className={buttonClass('destructive', 'md', className)} {...props} />;
}
