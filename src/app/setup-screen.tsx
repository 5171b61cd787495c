import { useEffect, useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { PasswordField, TextField } from '../components/ui/field';
import { InlineSpinner, PageSpinner } from '../components/ui/spinner';
import { AuthLayout } from '../features/auth/auth-layout';
import { toastConnectionError } from '../lib/auth-toasts';
import { refreshCurrentUser } from '../features/auth/current-user';
import { noteSignIn } from '../features/auth/session-marks';
import { PasswordChecklist } from '../features/auth/password-checklist';
import { useLinkToken } from '../features/auth/use-link-token';
import { NetworkError, api, serverMessageOf } from '../lib/api';
import { setupSchema } from '../lib/account-schemas';
import { useLoadedFormValidation, withPasswordMatch } from '../lib/form';
import { toast } from '../lib/toast';

type Phase = 'validating' | 'invalid' | 'form';

/** /setup?token=: creates the first System Administrator from the one-time link printed on the console. */
export function SetupScreen() {
  const token = useLinkToken();
  const [phase, setPhase] = useState<Phase>(token ? 'validating' : 'invalid');

  useEffect(() => {
    if (!token) return;
    let cancelled = false;
    api
      .get(`/api/setup/validate?token=${encodeURIComponent(token)}`)
      .then(() => {
        if (!cancelled) setPhase('form');
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        if (error instanceof NetworkError) toastConnectionError();
        setPhase('invalid');
      });
    return () => {
      cancelled = true;
    };
  }, [token]);

  if (phase === 'validating')
    return (
      <AuthLayout>
        <PageSpinner text="Validating setup link..." />
      </AuthLayout>
    );
  if (phase === 'invalid')
    return (
      <AuthLayout>
        <Card className="auth-card">
          <CardHeader>
            <CardTitle>Setup link not valid</CardTitle>
            <CardDescription>
              This setup link is invalid, expired or already used. Restart the server to print a new one while no System
              Administrator exists.
            </CardDescription>
          </CardHeader>
          <CardContent>
            <Link to="/" className="text-link">
              Return to Home
            </Link>
          </CardContent>
        </Card>
      </AuthLayout>
    );
  return (
    <AuthLayout>
      <SetupForm token={token} />
    </AuthLayout>
  );
}

function SetupForm({ token }: { token: string }) {
  const navigate = useNavigate();
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const values = { token, firstName, lastName, email, password, confirmPassword };
  const { errors, check, prepare } = useLoadedFormValidation(
    setupSchema,
    values,
    withPasswordMatch(password, confirmPassword),
  );

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = await check();
    if (!body) return;
    setBusy(true);
    try {
      await api.post('/api/setup', body);
      toast({ title: 'System Administrator created', description: 'You are now signed in.' });
      noteSignIn();
      await refreshCurrentUser();
      navigate('/', { replace: true });
    } catch (error) {
      if (error instanceof NetworkError) toastConnectionError();
      else
        toast({
          title: 'Setup failed',
          description: serverMessageOf(error, 'Unable to create the System Administrator'),
          variant: 'destructive',
        });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card className="auth-card">
      <CardHeader>
        <CardTitle>Create the System Administrator</CardTitle>
        <CardDescription>
          This first account has full access and can add and approve all other staff accounts.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form className="stack" onFocus={prepare} onSubmit={(e) => void submit(e)} noValidate>
          <div className="field-row">
            <TextField
              id="setup-first-name"
              label="First Name"
              autoComplete="given-name"
              value={firstName}
              onChange={(e) => setFirstName(e.target.value)}
              error={errors.firstName}
            />
            <TextField
              id="setup-last-name"
              label="Last Name"
              autoComplete="family-name"
              value={lastName}
              onChange={(e) => setLastName(e.target.value)}
              error={errors.lastName}
            />
          </div>
          <TextField
            id="setup-email"
            label="Email"
            type="email"
            autoComplete="email"
            inputMode="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={errors.email}
          />
          <PasswordField
            id="setup-password"
            label="Password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={errors.password}
            hint={<PasswordChecklist password={password} />}
          />
          <PasswordField
            id="setup-confirm-password"
            label="Confirm Password"
            autoComplete="new-password"
            value={confirmPassword}
            onChange={(e) => setConfirmPassword(e.target.value)}
            error={errors.confirmPassword}
          />
          <Button type="submit" size="lg" disabled={busy}>
            {busy ? <InlineSpinner /> : null}
            {busy ? 'Creating account...' : 'Create System Administrator'}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
