import { useAtomValue } from 'jotai';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { MESSAGES } from '../../schema/auth-rules';
import { REGISTRATION_ROLES, ROLE_LABELS, toRole, type RegistrationRole } from '../../schema/role-rules';
import { NewAccountFields, SubmitButton } from '../components/account-fields';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { FieldFrame } from '../components/ui/field';
import { Select } from '../components/ui/select';
import { AuthLayout } from '../features/auth/auth-layout';
import { PasswordChecklist } from '../features/auth/password-checklist';
import { api } from '../lib/api';
import { registerSchema } from '../lib/account-schemas';
import { toastRequestFailure, useFormSubmit, useNewAccountForm } from '../lib/form';
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

/** /register (Registration screen; docs/behaviour.md, "Accounts"); accounts wait for an administrator's approval. */
export function RegisterScreen() {
  const navigate = useNavigate();
  const { registration, supportEmail } = useAtomValue(configAtom);
  const [role, setRole] = useState<RegistrationRole>('staff');
  const { text, field, errors, check, prepare } = useNewAccountForm(registerSchema, (typed) => ({ ...typed, role }));
  const { busy, onSubmit } = useFormSubmit(
    check,
    async (body) => {
      await api.post('/api/auth/register', body);
      toast({
        title: 'Account created successfully!',
        description: 'An administrator must approve your account before you can sign in.',
      });
      navigate('/login');
    },
    toastRequestFailure('Registration failed', 'Unable to create account'),
  );

  if (registration === 'closed') {
    return (
      <AuthLayout>
        <RegistrationClosed supportEmail={supportEmail} />
      </AuthLayout>
    );
  }

  return (
    <AuthLayout>
      <Card className="auth-card">
        <CardHeader>
          <CardTitle>Create New Account</CardTitle>
          <CardDescription>An administrator approves every new account before it can be used.</CardDescription>
        </CardHeader>
        <CardContent>
          <form className="stack" onFocus={prepare} onSubmit={onSubmit} noValidate>
            <NewAccountFields
              idPrefix="register"
              field={field}
              passwordHint={<PasswordChecklist password={text.password} />}
            >
              <FieldFrame id="register-role" label="Role" error={errors.role}>
                <Select id="register-role" value={role} onValueChange={setRole} options={ROLE_OPTIONS} />
              </FieldFrame>
            </NewAccountFields>
            <SubmitButton busy={busy} busyLabel="Creating account...">
              Create Account
            </SubmitButton>
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
