import type { ComponentProps } from 'react';
import { cx } from '../../lib/cx';

type Tone = 'neutral' | 'brand' | 'success' | 'warning' | 'danger' | 'info';

export function Badge({ tone = 'neutral', className, ...props }: ComponentProps<'span'> & { tone?: Tone }) {
  return <span className={cx('badge', `badge-${tone}`, className)} {...props} />;
}
