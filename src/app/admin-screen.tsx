import { RefreshCw, ShieldAlert } from 'lucide-react';
import { Link } from 'react-router-dom';
import type { CurrentUser } from '../../schema/auth';
import {
  canArchiveResident,
  canEditPost,
  canManageUsers,
  canRequireConfirmation,
  canSeeAdminLink,
  canSeeAlertReport,
} from '../../schema/permissions';
import { CopyrightFooter } from '../components/copyright-footer';
import { PageTitle } from '../components/page-title';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { PageSpinner } from '../components/ui/spinner';
import { AddStaffForm } from '../features/admin/add-staff-form';
import { AuditLog } from '../features/audit/audit-log';
import { ConfirmationOverview } from '../features/confirmations/confirmation-overview';
import { HandoverReportCard } from '../features/handovers/handover-report';
import { SuggestionList } from '../features/suggestions/suggestion-list';
import { useAdminUsers } from '../features/admin/use-admin-users';
import { UserList } from '../features/admin/user-list';
import { AppHeader } from './app-header';
// The houses dialog's chips are styled by the feed's stylesheet.
import '../features/feed/feed.css';

function AccessDenied({ reason }: { reason: string }) {
  return (
    <main className="center-page">
      <Card className="auth-card">
        <CardHeader>
          <div className="card-icon card-icon-danger">
            <ShieldAlert aria-hidden size={28} />
          </div>
          <CardTitle>Access Denied</CardTitle>
          <CardDescription>{reason}</CardDescription>
        </CardHeader>
        <CardContent>
          <Button asChild variant="outline">
            <Link to="/">Back to Home</Link>
          </Button>
        </CardContent>
      </Card>
    </main>
  );
}

/**
 * /admin for an administrator who is not a System Administrator: the Admin Dashboard link is theirs (decision 129),
 * so the page says what their role may do and where, rather than only refusing them (decision 129).
 */
function AdministratorPage({ user }: { user: CurrentUser }) {
  const rights = [
    canEditPost(user, { authorId: null })
      ? 'Edit and delete any post in the feed, with its Edit post and Delete post buttons.'
      : null,
    canSeeAlertReport(user)
      ? 'See who has acknowledged an urgent post, with its Acknowledgements button in the feed.'
      : null,
    canArchiveResident(user) ? "Archive a resident's One Page Profile on the Residents page." : null,
    canRequireConfirmation(user)
      ? 'Ask staff to confirm they have read a post ("Requires confirmation") and follow who has, below.'
      : null,
  ].filter((right): right is string => right !== null);
  return (
    <div className="app-page">
      <AppHeader user={user} />
      <main className="app-main admin-main">
        <PageTitle title="Admin Dashboard" subtitle="What your administrator role can do" />
        <Card>
          <CardContent className="stack">
            <ul className="admin-rights">
              {rights.map((right) => (
                <li key={right}>{right}</li>
              ))}
            </ul>
            <p className="muted">
              Staff accounts, staff suggestions and the audit log are managed by a System Administrator. System
              Administrator access required.
            </p>
            <div className="admin-links">
              <Button asChild variant="outline" size="sm">
                <Link to="/">Home Feed</Link>
              </Button>
              <Button asChild variant="outline" size="sm">
                <Link to="/residents">Residents</Link>
              </Button>
            </div>
          </CardContent>
        </Card>
        {canRequireConfirmation(user) ? <ConfirmationOverview /> : null}
        {user.isAdmin ? <HandoverReportCard /> : null}
      </main>
      <CopyrightFooter />
    </div>
  );
}

/**
 * /admin: System Administration, User Management Panel (docs/behaviour.md, "Administration"), for system administrators
 * only.
 */
export function AdminScreen({ user }: { user: CurrentUser | null }) {
  if (!user) return <AccessDenied reason="You must be logged in to access this page." />;
  if (!canManageUsers(user) && canSeeAdminLink(user)) return <AdministratorPage user={user} />;
  if (!canManageUsers(user)) return <AccessDenied reason="System Administrator access required." />;
  return <AdminPanel user={user} />;
}

function AdminPanel({ user }: { user: CurrentUser }) {
  const { state, added, replaced, removed } = useAdminUsers();
  return (
    <div className="app-page">
      <AppHeader user={user} />
      <main className="app-main admin-main">
        <PageTitle title="System Administration" subtitle="User Management Panel" />
        <AddStaffForm onCreated={added} />
        {state.status === 'loading' ? <PageSpinner /> : null}
        {state.status === 'error' ? (
          <Card>
            <CardContent className="stack">
              <p className="error-text" role="alert">
                {`Error: ${state.message}`}
              </p>
              <div>
                <Button variant="outline" onClick={() => window.location.reload()}>
                  <RefreshCw aria-hidden size={16} />
                  Retry
                </Button>
              </div>
            </CardContent>
          </Card>
        ) : null}
        {state.status === 'ready' ? (
          <UserList users={state.users} selfId={user.id} onChanged={replaced} onDeleted={removed} />
        ) : null}
        <ConfirmationOverview />
        <HandoverReportCard />
        <SuggestionList />
        <AuditLog />
      </main>
      <CopyrightFooter />
    </div>
  );
}
