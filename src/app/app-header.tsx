import { memo } from 'react';
import { ClipboardList, LayoutDashboard, LogOut, Newspaper, Search, ShieldCheck, Users } from 'lucide-react';
import { Link, useLocation } from 'react-router-dom';
import type { CurrentUser } from '../../schema/auth';
import { PRODUCT_NAME } from '../../schema/constants';
import { displayName } from '../../schema/format';
import { canSeeAdminLink } from '../../schema/permissions';
import { roleLabel } from '../../schema/role-rules';
import { Logo } from '../components/logo';
import { UserAvatar } from '../components/ui/avatar';
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '../components/ui/dropdown-menu';
import { useLocalStore } from '../db/local-store-state';
import { cx } from '../lib/cx';
import { useSignOut } from '../features/auth/use-sign-out';
import { EmergencyAlertModal } from '../features/alerts/emergency-alert-modal';
import { NotificationBell } from '../features/alerts/notification-bell';
import { ChatButton } from '../features/chat/chat-button';
import { ToConfirmButton } from '../features/confirmations/to-confirm-button';
import { ChatPanel } from '../features/chat/chat-panel';
import { usePendingUploads } from '../features/feed/use-pending-uploads';
import { useSendWaitingPhotos } from '../features/residents/use-pending-photos';
import { MobileMenu } from './mobile-menu';
import { SyncBanner } from './sync-banner';
import { EmailAddress } from '../components/email-address';

interface AppHeaderProps {
  user: CurrentUser;
  /** Opens the feed's search palette; the search button shows only where there is one. */
  onOpenSearch?: () => void;
}

/**
 * The sticky header of the signed-in screens, with the offline/sync banner under it and
 * in the chat panel (decision 116). Posts waiting for their files and residents' new photos are sent from here, so
 * they go up on any screen.
 */
export const AppHeader = memo(function AppHeader({ user, onOpenSearch }: AppHeaderProps) {
  const store = useLocalStore();
  usePendingUploads(store);
  useSendWaitingPhotos(store);
  const { requestSignOut, signOutDialog } = useSignOut();
  const { pathname } = useLocation();
  const onFeed = pathname === '/';
  const name = displayName(user);
  return (
    <>
      <header className="app-header">
        <div className="app-header-inner">
          <MobileMenu user={user} />
          <Link to="/" className="brand-link">
            <Logo size={34} decorative />
            <span className="brand-name">{PRODUCT_NAME}</span>
          </Link>
          <nav className="app-nav" aria-label="Main">
            <Link
              to="/"
              className={cx('nav-tab', onFeed && 'nav-tab-active')}
              aria-current={onFeed ? 'page' : undefined}
            >
              <Newspaper aria-hidden size={16} />
              Feed
            </Link>
            {/* Decision 54: the Residents OPP tab opens the real page, for every signed-in user. */}
            <Link
              to="/residents"
              className={cx('nav-tab', pathname === '/residents' && 'nav-tab-active')}
              aria-current={pathname === '/residents' ? 'page' : undefined}
            >
              <Users aria-hidden size={16} />
              Residents OPP
            </Link>
            {/* Decision 140: every signed-in user; one in no house sees why it is empty. */}
            <Link
              to="/handover"
              className={cx('nav-tab', pathname === '/handover' && 'nav-tab-active')}
              aria-current={pathname === '/handover' ? 'page' : undefined}
            >
              <ClipboardList aria-hidden size={16} />
              Handover
            </Link>
            {canSeeAdminLink(user) ? (
              <Link
                to="/admin"
                className={cx('nav-tab', pathname === '/admin' && 'nav-tab-active')}
                aria-current={pathname === '/admin' ? 'page' : undefined}
              >
                <LayoutDashboard aria-hidden size={16} />
                Admin Dashboard
              </Link>
            ) : null}
          </nav>
          <div className="header-actions">
            {onOpenSearch ? (
              <button
                type="button"
                className="header-icon-button search-button"
                aria-label="Search"
                onClick={onOpenSearch}
              >
                <Search aria-hidden size={20} />
                <span className="search-button-text">Search</span>
                <kbd className="search-button-kbd">Ctrl K</kbd>
              </button>
            ) : null}
            <ChatButton variant="header" alwaysInHeader={!onFeed} />
            <ToConfirmButton user={user} />
            <NotificationBell user={user} />
            <DropdownMenu>
              <DropdownMenuTrigger className="avatar-button">
                <UserAvatar user={user} size={36} />
                <span className="visually-hidden">Profile menu</span>
              </DropdownMenuTrigger>
              <DropdownMenuContent className="profile-menu">
                <DropdownMenuLabel>
                  <span className="profile-name">{name}</span>
                  <span className="profile-role">{roleLabel(user.role)}</span>
                  <span className="profile-email">
                    <EmailAddress email={user.email} />
                  </span>
                </DropdownMenuLabel>
                <DropdownMenuSeparator />
                <DropdownMenuItem asChild>
                  <Link to="/two-factor">
                    <ShieldCheck aria-hidden size={16} />
                    Two-factor sign-in
                  </Link>
                </DropdownMenuItem>
                <DropdownMenuItem onSelect={requestSignOut}>
                  <LogOut aria-hidden size={16} />
                  Sign Out
                </DropdownMenuItem>
              </DropdownMenuContent>
            </DropdownMenu>
          </div>
        </div>
        <ChatPanel user={user} status={<SyncBanner store={store} userId={user.id} inChat />} />
        <EmergencyAlertModal user={user} />
        {signOutDialog}
      </header>
      <SyncBanner store={store} userId={user.id} />
    </>
  );
});
