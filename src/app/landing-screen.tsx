import { useAtomValue } from 'jotai';
import { Bell, CircleCheck, Heart, KeyRound, LogIn, Monitor, ShieldCheck, Smartphone, UserPlus } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, useLocation, useNavigate } from 'react-router-dom';
import { CopyrightFooter } from '../components/copyright-footer';
import { Logo } from '../components/logo';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { IdleLogoutNotice } from '../features/auth/idle-logout-notice';
import { KeptWorkNotice } from '../features/auth/kept-work-notice';
import { Notice } from '../components/ui/notice';
import { api, serverMessageOf } from '../lib/api';
import { configAtom } from '../lib/public-config';
import { EmailAddress } from '../components/email-address';

const LEGACY_FAILED = 'Login failed. Please contact support.';

/** True when the app runs installed, outside a browser tab. */
function isStandalone(): boolean {
  const media = typeof window.matchMedia === 'function' && window.matchMedia('(display-mode: standalone)').matches;
  // iOS Safari exposes navigator.standalone, which the DOM typings do not declare.
  return media || Reflect.get(navigator, 'standalone') === true;
}

/** The retired shared sign-in (docs/behaviour.md, "Accounts"): a prompt, then an alert with the server's answer. */
async function legacyAccess(): Promise<void> {
  const password = window.prompt('Enter the legacy access password:');
  if (!password) return;
  try {
    await api.post('/api/legacy-login', { password });
    window.location.reload();
  } catch (error) {
    window.alert(serverMessageOf(error, LEGACY_FAILED));
  }
}

/** Signed-out "/" (Landing screen; docs/behaviour.md, "Accounts"). */
export function LandingScreen() {
  const { orgName, supportEmail, needsSetup } = useAtomValue(configAtom);
  const location = useLocation();
  const navigate = useNavigate();
  const loggedOutParam = new URLSearchParams(location.search).get('logged_out') === 'true';
  // Latched: the notice stays after the parameter has been removed from the address.
  const [loggedOut, setLoggedOut] = useState(loggedOutParam);
  if (loggedOutParam && !loggedOut) setLoggedOut(true);
  const [standalone] = useState(isStandalone);

  useEffect(() => {
    if (!loggedOut) return;
    // Drop logged_out=true from the address (history.replaceState through the router).
    const params = new URLSearchParams(location.search);
    if (!params.has('logged_out')) return;
    params.delete('logged_out');
    const search = params.toString();
    navigate(
      { pathname: location.pathname, search: search ? `?${search}` : '', hash: location.hash },
      { replace: true },
    );
  }, [loggedOut, location.pathname, location.search, location.hash, navigate]);

  return (
    <div className="landing-page">
      <main className="landing-main">
        <div className="landing-notices">
          {loggedOut ? (
            <Notice tone="success" role="status" icon={<CircleCheck aria-hidden size={20} />}>
              You have been logged out successfully
            </Notice>
          ) : null}
          {loggedOut ? <KeptWorkNotice /> : null}
          {loggedOut ? null : <IdleLogoutNotice />}
          {standalone ? (
            <Notice tone="info" title="App Reinstalled" icon={<Smartphone aria-hidden size={20} />}>
              You need to sign in again after reinstalling the app. This is normal for security reasons.
            </Notice>
          ) : null}
          {needsSetup ? (
            <Notice tone="info" title="First-time setup">
              No System Administrator exists yet. Open the one-time setup link printed on the server console.
            </Notice>
          ) : null}
        </div>

        <section className="landing-hero" aria-labelledby="landing-title">
          <Logo size={88} />
          <h1 id="landing-title">Welcome to {orgName}</h1>
          <p className="landing-subtitle">Staff Portal</p>
          <ul className="feature-list">
            <li>
              <ShieldCheck aria-hidden size={20} />
              <span>Secure staff-only communication</span>
            </li>
            <li>
              <Bell aria-hidden size={20} />
              <span>Real-time updates and notifications</span>
            </li>
            <li>
              <Heart aria-hidden size={20} />
              <span>Share resident activities and moments</span>
            </li>
          </ul>
        </section>

        <Card className="landing-card">
          <CardHeader>
            <CardTitle>Staff Login</CardTitle>
            <CardDescription>Sign in to access the staff portal.</CardDescription>
          </CardHeader>
          <CardContent className="stack">
            <Button asChild size="lg">
              <Link to="/login">
                <LogIn aria-hidden size={18} />
                Sign In with Email &amp; Password
              </Link>
            </Button>
            <Button asChild size="lg" variant="outline">
              <Link to="/register">
                <UserPlus aria-hidden size={18} />
                Create New Account
              </Link>
            </Button>
            <Button variant="ghost" size="sm" className="legacy-button" onClick={() => void legacyAccess()}>
              <KeyRound aria-hidden size={14} />
              Legacy Access
            </Button>
          </CardContent>
        </Card>

        {supportEmail ? (
          <p className="support-line">
            Need help? Contact{' '}
            <a href={`mailto:${supportEmail}`} aria-label={supportEmail}>
              <EmailAddress email={supportEmail} />
            </a>
          </p>
        ) : null}

        <Notice tone="warning" title="Shared Computer Notice" icon={<Monitor aria-hidden size={20} />}>
          If you use a shared computer, always log out completely when you finish. The system asks you to pick your
          account at each login.
        </Notice>
      </main>
      <CopyrightFooter />
    </div>
  );
}
