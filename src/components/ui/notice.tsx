import type { ReactNode } from 'react';
import { cx } from '../../lib/cx';

type Tone = 'success' | 'info' | 'warning' | 'danger';

interface NoticeProps {
  tone: Tone;
  title?: string;
  icon?: ReactNode;
  children?: ReactNode;
  className?: string;
  role?: 'status' | 'alert' | 'note';
}

/** A coloured message box: green success, blue information, orange warning, red danger. */
export function Notice({ tone, title, icon, children, className, role = 'note' }: NoticeProps) {
  return (
    <div className={cx('notice', `notice-${tone}`, className)} role={role}>
      {icon ? <span className="notice-icon">{icon}</span> : null}
      <div>
        {title ? <p className="notice-title">{title}</p> : null}
        {children ? <div className="notice-body">{children}</div> : null}
      </div>
    </div>
  );
}
