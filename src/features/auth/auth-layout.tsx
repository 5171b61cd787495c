import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { PRODUCT_NAME } from '../../../schema/constants';
import { CopyrightFooter } from '../../components/copyright-footer';
import { Logo } from '../../components/logo';

/** The frame of the signed-out screens: brand bar, a centred column, the copyright footer. */
export function AuthLayout({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  return (
    <div className="auth-page">
      <header className="auth-brand">
        <Link to="/" className="brand-link">
          <Logo size={36} decorative />
          <span>{PRODUCT_NAME}</span>
        </Link>
      </header>
      <main className={wide ? 'auth-main auth-main-wide' : 'auth-main'}>{children}</main>
      <CopyrightFooter />
    </div>
  );
}
