import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { NewAccountFields, SubmitButton } from '../components/account-fields';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { PageSpinner } from '../components/ui/spinner';
import { AuthLayout } from '../features/auth/auth-layout';
import { toastConnectionError } from '../lib/auth-toasts';
import { refreshCurrentUser } from '../features/auth/current-user';
import { noteSignIn } from '../features/auth/session-marks';
import { PasswordChecklist } from '../features/auth/password-checklist';
import { useLinkToken } from '../features/auth/use-link-token';
import { NetworkError, api } from '../lib/api';
import { setupSchema } from '../lib/account-schemas';
import { toastRequestFailure, useFormSubmit, useNewAccountForm } from '../lib/form';
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
  const { text, field, check, prepare } = useNewAccountForm(setupSchema, (typed) => ({ token, ...typed }));
  const { busy, onSubmit } = useFormSubmit(
    check,
    async (body) => {
      await api.post('/api/setup', body);
      toast({ title: 'System Administrator created', description: 'You are now signed in.' });
      noteSignIn();
      await refreshCurrentUser();
      navigate('/', { replace: true });
    },
    toastRequestFailure('Setup failed', 'Unable to create the System Administrator'),
  );

  return (
    <Card className="auth-card">
      <CardHeader>
        <CardTitle>Create the System Administrator</CardTitle>
        <CardDescription>
          This first account has full access and can add and approve all other staff accounts.
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form className="stack" onFocus={prepare} onSubmit={onSubmit} noValidate>
          <NewAccountFields
            idPrefix="setup"
            field={field}
            passwordHint={<PasswordChecklist password={text.password} />}
          />
          <SubmitButton busy={busy} busyLabel="Creating account...">
            Create System Administrator
          </SubmitButton>
        </form>
      </CardContent>
    </Card>
  );
}
