import { useAtomValue } from 'jotai';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { MESSAGES } from '../../schema/auth-rules';
import { REGISTRATION_ROLES, ROLE_LABELS, toRole, type RegistrationRole } from '../../schema/role-rules';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { FieldFrame, PasswordField, TextField } from '../components/ui/field';
import { Select } from '../components/ui/select';
import { InlineSpinner } from '../components/ui/spinner';
import { AuthLayout } from '../features/auth/auth-layout';
import { toastConnectionError } from '../lib/auth-toasts';
import { PasswordChecklist } from '../features/auth/password-checklist';
import { NetworkError, api, serverMessageOf } from '../lib/api';
import { registerSchema } from '../lib/account-schemas';
import { useLoadedFormValidation, withPasswordMatch } from '../lib/form';
import { configAtom } from '../lib/public-config';
import { toast } from '../lib/toast';
import { EmailAddress } from '../components/email-address';

const ROLE_OPTIONS = REGISTRATION_ROLES.map((value) => ({ value, label: ROLE_LABELS[toRole(value)] }));

function RegistrationClosed({ supportEmail }: { supportEmail: string }) {
  return (
    <Card className="auth-card">
      <CardHeader>
        <CardTitle>Registration closed</CardTitle>
        <CardDescription>{MESSAGES.registrationClosed}</CardDescription>
      </CardHeader>
      <CardContent className="stack">
        {supportEmail ? (
          <p>
            Contact{' '}
            <a href={`mailto:${supportEmail}`} aria-label={supportEmail}>
              <EmailAddress email={supportEmail} />
            </a>
          </p>
        ) : null}
        <Link to="/login" className="text-link">
          Back to Login
        </Link>
      </CardContent>
    </Card>
  );
}

/** /register (spec section 2: Registration screen); accounts wait for an administrator's approval. */
export function RegisterScreen() {
  const navigate = useNavigate();
  const { registration, supportEmail } = useAtomValue(configAtom);
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<RegistrationRole>('staff');
  const [password, setPassword] = useState('');
  const [confirmPassword, setConfirmPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const values = { firstName, lastName, email, role, password, confirmPassword };
  const { errors, check, prepare } = useLoadedFormValidation(
    registerSchema,
    values,
    withPasswordMatch(password, confirmPassword),
  );

  if (registration === 'closed') {
    return (
      <AuthLayout>
        <RegistrationClosed supportEmail={supportEmail} />
      </AuthLayout>
    );
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = await check();
    if (!body) return;
    setBusy(true);
    try {
      await api.post('/api/auth/register', body);
      toast({
        title: 'Account created successfully!',
        description: 'An administrator must approve your account before you can sign in.',
      });
      navigate('/login');
    } catch (error) {
      if (error instanceof NetworkError) toastConnectionError();
      else
        toast({
          title: 'Registration failed',
          description: serverMessageOf(error, 'Unable to create account'),
          variant: 'destructive',
        });
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout>
      <Card className="auth-card">
        <CardHeader>
          <CardTitle>Create New Account</CardTitle>
          <CardDescription>An administrator approves every new account before it can be used.</CardDescription>
        </CardHeader>
        <CardContent>
          <form className="stack" onFocus={prepare} onSubmit={(e) => void submit(e)} noValidate>
            <div className="field-row">
              <TextField
                id="register-first-name"
                label="First Name"
                autoComplete="given-name"
                value={firstName}
                onChange={(e) => setFirstName(e.target.value)}
                error={errors.firstName}
              />
              <TextField
                id="register-last-name"
                label="Last Name"
                autoComplete="family-name"
                value={lastName}
                onChange={(e) => setLastName(e.target.value)}
                error={errors.lastName}
              />
            </div>
            <TextField
              id="register-email"
              label="Email"
              type="email"
              autoComplete="email"
              inputMode="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              error={errors.email}
            />
            <FieldFrame id="register-role" label="Role" error={errors.role}>
              <Select id="register-role" value={role} onValueChange={setRole} options={ROLE_OPTIONS} />
            </FieldFrame>
            <PasswordField
              id="register-password"
              label="Password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              error={errors.password}
              hint={<PasswordChecklist password={password} />}
            />
            <PasswordField
              id="register-confirm-password"
              label="Confirm Password"
              autoComplete="new-password"
              value={confirmPassword}
              onChange={(e) => setConfirmPassword(e.target.value)}
              error={errors.confirmPassword}
            />
            <Button type="submit" size="lg" disabled={busy}>
              {busy ? <InlineSpinner /> : null}
              {busy ? 'Creating account...' : 'Create Account'}
            </Button>
          </form>
          <p className="auth-alt">
            Already have an account?{' '}
            <Link to="/login" className="text-link">
              Sign in
            </Link>
          </p>
        </CardContent>
      </Card>
    </AuthLayout>
  );
}
