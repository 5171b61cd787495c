import type { CurrentUser } from '../../schema/auth';
import { roleLabel } from '../../schema/roles';
import { CopyrightFooter } from '../components/copyright-footer';
import { Card, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { AppHeader } from './app-header';

/** Signed-in "/" (spec section 2: Home feed). The feed itself arrives with the next issue. */
export function HomeScreen({ user }: { user: CurrentUser }) {
  return (
    <div className="app-page">
      <AppHeader user={user} />
      <main className="app-main">
        <Card>
          <CardHeader>
            <CardTitle>Welcome, {user.firstName || 'there'}!</CardTitle>
            <CardDescription>
              You are signed in as {roleLabel(user.role)}. Team updates will appear here.
            </CardDescription>
          </CardHeader>
        </Card>
      </main>
      <CopyrightFooter />
    </div>
  );
}
