import { cx } from '../../lib/cx';

/** A count badge; hidden at zero, "99+" beyond. */
export function CountBadge({ count, className }: { count: number; className?: string }) {
  if (count <= 0) return null;
  return (
    <span className={cx('count-badge', className)} aria-hidden>
      {count > 99 ? '99+' : count}
    </span>
  );
}
