import { Slot } from 'radix-ui';
import type { ComponentProps } from 'react';
import { cx } from '../../lib/cx';

type Variant = 'primary' | 'secondary' | 'outline' | 'ghost' | 'destructive' | 'link';
type Size = 'md' | 'sm' | 'lg' | 'icon';

export interface ButtonProps extends ComponentProps<'button'> {
  variant?: Variant;
  size?: Size;
  /** Renders the single child (a link, usually) with the button's look instead of a <button>. */
  asChild?: boolean;
}

export function buttonClass(variant: Variant = 'primary', size: Size = 'md', className?: string): string {
  return cx('btn', `btn-${variant}`, `btn-${size}`, className);
}

export function Button({ variant, size, asChild = false, className, type = 'button', ...props }: ButtonProps) {
  if (asChild) return <Slot.Root className={buttonClass(variant, size, className)} {...props} />;
  return <button type={type} className={buttonClass(variant, size, className)} {...props} />;
}
