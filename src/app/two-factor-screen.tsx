import { LogOut } from 'lucide-react';
import { Link } from 'react-router-dom';
import type { CurrentUser } from '../../schema/auth';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { AuthLayout } from '../features/auth/auth-layout';
import { refreshCurrentUser } from '../features/auth/current-user';
import { TwoFactorSection } from '../features/auth/two-factor/two-factor-section';
import { useSignOut } from '../features/auth/use-sign-out';

const reloadUser = () => void refreshCurrentUser();

/**
 * /two-factor: the user's two-factor sign-in (decision 148), opened from the profile menu; the only screen of an
 * admin who must set one up first.
 */
export function TwoFactorScreen({ user }: { user: CurrentUser }) {
  const { requestSignOut, signOutDialog } = useSignOut();
  const setupOnly = user.twoFactorSetupRequired === true;
  return (
    <AuthLayout>
      <Card className="auth-card">
        <CardHeader>
          <CardTitle>Sign-in security</CardTitle>
          <CardDescription>
            {user.firstName} {user.lastName} · {user.email}
          </CardDescription>
        </CardHeader>
        <CardContent className="stack">
          <TwoFactorSection onChanged={reloadUser} />
          <div className="row-end">
            {setupOnly ? (
              <Button variant="outline" onClick={requestSignOut}>
                <LogOut aria-hidden size={16} />
                Sign Out
              </Button>
            ) : (
              <Link to="/" className="text-link">
                Back to the feed
              </Link>
            )}
          </div>
        </CardContent>
      </Card>
      {signOutDialog}
    </AuthLayout>
  );
}
