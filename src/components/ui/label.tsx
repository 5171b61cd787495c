import { Label as LabelPrimitive } from 'radix-ui';
import type { ComponentProps } from 'react';
import { cx } from '../../lib/cx';

export function Label({ className, ...props }: ComponentProps<typeof LabelPrimitive.Root>) {
  return <LabelPrimitive.Root className={cx('label', className)} {...props} />;
}
