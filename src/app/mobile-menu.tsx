import { useAtomValue } from 'jotai';
import {
  BookOpen,
  ClipboardList,
  LayoutDashboard,
  Lightbulb,
  LogOut,
  Menu,
  Newspaper,
  ShieldCheck,
  Users,
  X,
} from 'lucide-react';
import { Dialog as DialogPrimitive } from 'radix-ui';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { CurrentUser } from '../../schema/auth';
import { displayName } from '../../schema/format';
import { canSeeAdminLink } from '../../schema/permissions';
import { roleLabel } from '../../schema/role-rules';
import { UserAvatar } from '../components/ui/avatar';
import { useSignOut } from '../features/auth/use-sign-out';
import { ChatButton } from '../features/chat/chat-button';
import { ProfilePictureUploader } from '../features/auth/profile-picture-uploader';
import { PushSettings } from '../features/push/push-settings';
import { SuggestionDialog } from '../features/suggestions/suggestion-dialog';
import { useBackCloses } from '../lib/back-closes';
import { configAtom } from '../lib/public-config';
import { EmailAddress } from '../components/email-address';
import { NeedHelp } from '../components/need-help';

/**
 * The mobile slide-out menu (docs/behaviour.md, "Feed"; a radix Dialog shown as a sheet): profile (with the picture
 * uploader), Home Feed, the Chat, Residents OPP (decision 54), Handover (decision 140), Admin Dashboard, Push
 * Notifications, the suggestion dialog, Staff Handbook and Sign Out; and the support contact the desktop sidebar shows
 * (decision 128).
 * Back closes it; its links replace the menu's history entry, so Back from the screen opened returns to the one
 * under the menu (decision 128).
 */
export function MobileMenu({ user }: { user: CurrentUser }) {
  const [open, setOpen] = useState(false);
  const [suggesting, setSuggesting] = useState(false);
  const { requestSignOut, signOutDialog } = useSignOut();
  const { handbookUrl, supportEmail } = useAtomValue(configAtom);
  const close = () => setOpen(false);
  useBackCloses(open, close);
  return (
    <>
      <DialogPrimitive.Root open={open} onOpenChange={setOpen}>
        <DialogPrimitive.Trigger className="header-icon-button menu-button" aria-label="Open menu">
          <Menu aria-hidden size={22} />
        </DialogPrimitive.Trigger>
        <DialogPrimitive.Portal>
          <DialogPrimitive.Overlay className="overlay" />
          <DialogPrimitive.Content className="sheet" aria-describedby={undefined}>
            <div className="sheet-head">
              <DialogPrimitive.Title className="sheet-title">Menu</DialogPrimitive.Title>
              <DialogPrimitive.Close className="dialog-close sheet-close" aria-label="Close menu">
                <X aria-hidden size={18} />
              </DialogPrimitive.Close>
            </div>
            <div className="sheet-profile">
              <UserAvatar user={user} size={48} />
              <div>
                <p className="profile-name">{displayName(user)}</p>
                <p className="profile-role">{roleLabel(user.role)}</p>
                <p className="profile-email">
                  <EmailAddress email={user.email} />
                </p>
                <ProfilePictureUploader className="sheet-picture" />
              </div>
            </div>
            <nav className="sheet-nav" aria-label="Menu">
              <Link to="/" replace className="sheet-item" onClick={close}>
                <Newspaper aria-hidden size={18} />
                Home Feed
              </Link>
              <ChatButton variant="menu" onClick={close} />
              <Link to="/residents" replace className="sheet-item" onClick={close}>
                <Users aria-hidden size={18} />
                Residents OPP
              </Link>
              <Link to="/handover" replace className="sheet-item" onClick={close}>
                <ClipboardList aria-hidden size={18} />
                Handover
              </Link>
              {canSeeAdminLink(user) ? (
                <Link to="/admin" replace className="sheet-item" onClick={close}>
                  <LayoutDashboard aria-hidden size={18} />
                  Admin Dashboard
                </Link>
              ) : null}
              <PushSettings user={user} compact />
              <button
                type="button"
                className="sheet-item"
                onClick={() => {
                  close();
                  setSuggesting(true);
                }}
              >
                <Lightbulb aria-hidden size={18} />
                Make a Suggestion
              </button>
              <Link to="/two-factor" className="sheet-item" onClick={close}>
                <ShieldCheck aria-hidden size={18} />
                Two-factor sign-in
              </Link>
              {handbookUrl ? (
                <a href={handbookUrl} target="_blank" rel="noopener noreferrer" className="sheet-item" onClick={close}>
                  <BookOpen aria-hidden size={18} />
                  Staff Handbook
                </a>
              ) : null}
              <button
                type="button"
                className="sheet-item sheet-item-danger"
                onClick={() => {
                  close();
                  requestSignOut();
                }}
              >
                <LogOut aria-hidden size={18} />
                Sign Out
              </button>
            </nav>
            {/* Without a support address the menu leaves the card out; the sidebar keeps its heading. */}
            {supportEmail ? <NeedHelp variant="sheet" /> : null}
          </DialogPrimitive.Content>
        </DialogPrimitive.Portal>
      </DialogPrimitive.Root>
      <SuggestionDialog open={suggesting} onOpenChange={setSuggesting} />
      {signOutDialog}
    </>
  );
}
