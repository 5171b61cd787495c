import { CircleCheck } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import type { ResetLinkAnswer } from '../../schema/auth';
import { PRODUCT_NAME } from '../../schema/constants';
import { NewPasswordFields, SubmitButton } from '../components/account-fields';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { PageSpinner } from '../components/ui/spinner';
import { AuthLayout } from '../features/auth/auth-layout';
import { toastConnectionError, toastInvalidLink } from '../lib/auth-toasts';
import { useLinkToken } from '../features/auth/use-link-token';
import { NetworkError, api, serverMessageOf } from '../lib/api';
import { resetLinkAnswerSchema, resetPasswordFormSchema } from '../lib/account-schemas';
import { useFormFields, useFormSubmit, useLoadedFormValidation, withPasswordMatch } from '../lib/form';
import { toast } from '../lib/toast';

type LinkInfo = ResetLinkAnswer;

type Phase = { name: 'validating' } | { name: 'offline' } | { name: 'form'; link: LinkInfo } | { name: 'done' };

/** /reset-password?token= (docs/behaviour.md, "Accounts"), also used by invitations to choose a first password. */
export function ResetPasswordScreen() {
  const navigate = useNavigate();
  const token = useLinkToken();
  const [phase, setPhase] = useState<Phase>({ name: 'validating' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    const rejectLink = () => {
      toastInvalidLink();
      navigate('/forgot-password', { replace: true });
    };
    if (!token) {
      rejectLink();
      return;
    }
    let cancelled = false;
    Promise.all([
      api.get(`/api/auth/reset-password/validate?token=${encodeURIComponent(token)}`),
      resetLinkAnswerSchema(),
    ])
      .then(([answer, schema]) => {
        if (!cancelled) setPhase({ name: 'form', link: schema.parse(answer) });
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        if (error instanceof NetworkError) {
          toastConnectionError();
          setPhase({ name: 'offline' });
        } else rejectLink();
      });
    return () => {
      cancelled = true;
    };
  }, [token, navigate, attempt]);

  let content;
  if (phase.name === 'validating') content = <PageSpinner text="Validating reset link..." />;
  else if (phase.name === 'offline')
    content = (
      <Card className="auth-card">
        <CardHeader>
          <CardTitle>Connection error</CardTitle>
          <CardDescription>Unable to connect to the server. Please try again.</CardDescription>
        </CardHeader>
        <CardContent>
          <Button
            onClick={() => {
              setPhase({ name: 'validating' });
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </Button>
        </CardContent>
      </Card>
    );
  else if (phase.name === 'done')
    content = (
      <Card className="auth-card">
        <CardHeader>
          <div className="card-icon card-icon-success">
            <CircleCheck aria-hidden size={28} />
          </div>
          <CardTitle>Password Changed!</CardTitle>
          <CardDescription>You can now log in with your new password.</CardDescription>
        </CardHeader>
        <CardContent>
          <Button asChild size="lg" className="full-width">
            <Link to="/login">Go to Login</Link>
          </Button>
        </CardContent>
      </Card>
    );
  else content = <NewPasswordForm token={token} link={phase.link} onDone={() => setPhase({ name: 'done' })} />;

  return <AuthLayout>{content}</AuthLayout>;
}

function NewPasswordForm({ token, link, onDone }: { token: string; link: LinkInfo; onDone: () => void }) {
  const { values, bind } = useFormFields({ password: '', confirmPassword: '' });
  const { errors, check, prepare } = useLoadedFormValidation(
    resetPasswordFormSchema,
    values,
    withPasswordMatch(values.password, values.confirmPassword),
  );
  const field = bind(errors);
  const invite = link.purpose === 'invite';
  const { busy, onSubmit } = useFormSubmit(
    check,
    async (body) => {
      await api.post('/api/auth/reset-password', { token, password: body.password });
      toast({
        title: 'Password Reset Successful',
        description: 'Your password has been changed. You can now log in with your new password.',
      });
      onDone();
    },
    (error) =>
      toast({
        title: 'Error',
        description: serverMessageOf(error, 'Failed to reset password. Please try again.'),
        variant: 'destructive',
      }),
  );

  return (
    <Card className="auth-card">
      <CardHeader>
        <CardTitle>{invite ? 'Choose your password' : 'Reset your password'}</CardTitle>
        <CardDescription>
          {invite
            ? `Welcome to ${PRODUCT_NAME}! Choose a password to activate your account.`
            : 'Choose a new password for your account.'}
          {link.email ? ` (${link.email})` : ''}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <form className="stack" onFocus={prepare} onSubmit={onSubmit} noValidate>
          <NewPasswordFields
            idPrefix="reset"
            label="New Password"
            hint="At least 8 characters, with an uppercase letter, a lowercase letter and a number."
            password={field('password')}
            confirmPassword={field('confirmPassword')}
          />
          <SubmitButton busy={busy}>{invite ? 'Set Password' : 'Reset Password'}</SubmitButton>
        </form>
        <p className="auth-alt">
          <Link to="/login" className="text-link">
            Back to Login
          </Link>
        </p>
      </CardContent>
    </Card>
  );
}
