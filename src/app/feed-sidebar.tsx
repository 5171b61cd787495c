import { useAtomValue } from 'jotai';
import { BookOpen, LayoutDashboard, Users } from 'lucide-react';
import { Link } from 'react-router-dom';
import type { CurrentUser } from '../../schema/auth';
import { displayName } from '../../schema/format';
import { canSeeAdminLink } from '../../schema/permissions';
import { roleLabel } from '../../schema/role-rules';
import { UserAvatar } from '../components/ui/avatar';
import { Button } from '../components/ui/button';
import { Card } from '../components/ui/card';
import { configAtom } from '../lib/public-config';
import { ChatButton } from '../features/chat/chat-button';
import { ProfilePictureUploader } from '../features/auth/profile-picture-uploader';
import { PushSettings } from '../features/push/push-settings';
import { SuggestionButton } from '../features/suggestions/suggestion-button';
import { EmailAddress } from '../components/email-address';
import { NeedHelp } from '../components/need-help';

/** The desktop sidebar (docs/behaviour.md, "Feed"): Your Profile, Team Resources and Need Help?. */
export function FeedSidebar({ user }: { user: CurrentUser }) {
  const { handbookUrl } = useAtomValue(configAtom);
  return (
    <aside className="feed-sidebar" aria-label="Sidebar">
      <Card className="sidebar-card" aria-labelledby="sidebar-profile">
        <h2 id="sidebar-profile" className="sidebar-title">
          Your Profile
        </h2>
        <div className="sidebar-profile">
          <UserAvatar user={user} size={56} />
          <div className="sidebar-profile-text">
            <h3 className="profile-name">{displayName(user)}</h3>
            <span className="profile-role">{roleLabel(user.role)}</span>
            <span className="profile-email">
              <EmailAddress email={user.email} />
            </span>
          </div>
        </div>
        <ProfilePictureUploader />
      </Card>

      <Card className="sidebar-card" aria-labelledby="sidebar-resources">
        <h2 id="sidebar-resources" className="sidebar-title">
          Team Resources
        </h2>
        <div className="sidebar-actions">
          {handbookUrl ? (
            <Button asChild variant="outline" className="sidebar-button">
              <a href={handbookUrl} target="_blank" rel="noopener noreferrer">
                <BookOpen aria-hidden size={18} />
                Staff Handbook
              </a>
            </Button>
          ) : null}
          {/* Decision 54: Residents OPP is a real link, for every signed-in user. */}
          <Button asChild variant="outline" className="sidebar-button">
            <Link to="/residents">
              <Users aria-hidden size={18} />
              Resident Profiles (OPP)
            </Link>
          </Button>
          <PushSettings user={user} />
          <ChatButton variant="sidebar" />
          <SuggestionButton />
          {canSeeAdminLink(user) ? (
            <Button asChild variant="outline" className="sidebar-button">
              <Link to="/admin">
                <LayoutDashboard aria-hidden size={18} />
                Admin Dashboard
              </Link>
            </Button>
          ) : null}
        </div>
      </Card>

      <NeedHelp variant="sidebar" />
    </aside>
  );
}
