import { cx } from '../lib/cx';

/** The brand mark from public/logo.svg. */
export function Logo({
  size = 40,
  className,
  decorative = false,
}: {
  size?: number;
  className?: string;
  decorative?: boolean;
}) {
  return (
    <img
      src="/logo.svg"
      width={size}
      height={size}
      alt={decorative ? '' : 'Staff Portal logo'}
      className={cx('logo', className)}
    />
  );
}
