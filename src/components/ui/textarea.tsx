import type { ComponentProps } from 'react';
import { cx } from '../../lib/cx';

export function Textarea({ className, ...props }: ComponentProps<'textarea'>) {
  return <textarea className={cx('input', 'textarea', className)} {...props} />;
}
