import { useAtomValue } from 'jotai';
import { HeartHandshake, MessagesSquare, Users } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { MESSAGES } from '../../schema/auth-rules';
import { isSecondFactorNeeded, type SecondFactorMethod } from '../../schema/two-factor-rules';
import { EmailField, SubmitButton } from '../components/account-fields';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { PasswordField } from '../components/ui/field';
import { InlineSpinner } from '../components/ui/spinner';
import { AuthLayout } from '../features/auth/auth-layout';
import { refreshCurrentUser } from '../features/auth/current-user';
import { IdleLogoutNotice } from '../features/auth/idle-logout-notice';
import { KeptWorkNotice } from '../features/auth/kept-work-notice';
import { SsoSignIn, usePasswordFormShown } from '../features/auth/sso-sign-in';
import { completePendingSignOut, noteSignIn } from '../features/auth/session-marks';
import { api } from '../lib/api';
import { loginSchema } from '../lib/account-schemas';
import { toastRequestFailure, useFormFields, useFormSubmit, useLoadedFormValidation } from '../lib/form';
import { configAtom } from '../lib/public-config';
import { toast } from '../lib/toast';

// The second step loads only when an account asks for it, so the sign-in screen stays small (decision 148).
const SecondFactorStep = lazy(() =>
  import('../features/auth/two-factor/second-factor-step').then((m) => ({ default: m.SecondFactorStep })),
);

const PasskeySignIn = lazy(() =>
  import('../features/auth/two-factor/passkey-sign-in').then((m) => ({ default: m.PasskeySignIn })),
);
const passkeysSupported = typeof window.PublicKeyCredential === 'function';

/** /login (Sign-in screen; docs/behaviour.md, "Accounts"). */
export function LoginScreen() {
  const navigate = useNavigate();
  const { orgName, passwordSignIn } = useAtomValue(configAtom);
  const { values, bind } = useFormFields({ email: '', password: '' });
  const { errors, check, prepare } = useLoadedFormValidation(loginSchema, values);
  const field = bind(errors);
  const passwordShown = usePasswordFormShown();
  const [secondStep, setSecondStep] = useState<SecondFactorMethod[] | null>(null);
  const signedIn = async () => {
    noteSignIn();
    toast({ title: 'Welcome back!', description: 'You have been successfully logged in.' });
    await refreshCurrentUser();
    navigate('/');
  };
  const { busy, onSubmit } = useFormSubmit(
    check,
    async (body) => {
      // A sign-out made offline on this device is completed first, so the server records it (decision 114).
      await completePendingSignOut();
      const answer = await api.post('/api/auth/login', body);
      if (isSecondFactorNeeded(answer)) setSecondStep(answer.secondFactor.methods);
      else await signedIn();
    },
    toastRequestFailure('Login failed', MESSAGES.invalidCredentials),
  );

  return (
    <AuthLayout wide>
      <div className="auth-split">
        <Card className="auth-card">
          <CardHeader>
            <CardTitle>Staff Login</CardTitle>
            <CardDescription>
              {passwordShown ? 'Use the email and password of your staff account.' : 'Use your work account.'}
            </CardDescription>
          </CardHeader>
          <CardContent>
            <IdleLogoutNotice />
            <KeptWorkNotice />
            {!secondStep && <SsoSignIn />}
            <form
              className="stack"
              onFocus={prepare}
              onSubmit={onSubmit}
              noValidate
              hidden={!passwordShown || secondStep !== null}
            >
              <EmailField id="login-email" autoComplete="username" {...field('email')} />
              <PasswordField
                id="login-password"
                label="Password"
                autoComplete="current-password"
                {...field('password')}
              />
              <div className="row-end">
                <Link to="/forgot-password" className="text-link">
                  Forgot password?
                </Link>
              </div>
              <SubmitButton busy={busy} busyLabel="Signing in...">
                Sign In
              </SubmitButton>
            </form>
            {!secondStep && passwordShown && passkeysSupported ? (
              <Suspense fallback={null}>
                <PasskeySignIn mode="alone" onSignedIn={signedIn} />
              </Suspense>
            ) : null}
            {secondStep ? (
              <Suspense fallback={<InlineSpinner />}>
                <SecondFactorStep methods={secondStep} onSignedIn={signedIn} onBack={() => setSecondStep(null)} />
              </Suspense>
            ) : null}
            {/* With password sign-in off, accounts come only from administrators: registration is refused. */}
            {passwordSignIn !== false && (
              <p className="auth-alt">
                <Link to="/register" className="text-link">
                  Don&apos;t have an account? Contact your administrator
                </Link>
              </p>
            )}
          </CardContent>
        </Card>

        <section className="blurbs" aria-label="What the portal offers">
          <div className="blurb">
            <Users aria-hidden size={22} />
            <div>
              <h2>Team Communication</h2>
              <p>Share updates, news and announcements with the whole team.</p>
            </div>
          </div>
          <div className="blurb">
            <MessagesSquare aria-hidden size={22} />
            <div>
              <h2>Private Messaging</h2>
              <p>Talk one to one with colleagues in a private chat.</p>
            </div>
          </div>
          <div className="blurb">
            <HeartHandshake aria-hidden size={22} />
            <div>
              <h2>Resident Care</h2>
              <p>Celebrate resident activities and keep everyone informed.</p>
            </div>
          </div>
        </section>
      </div>
      <p className="auth-operator">
        Operated by {orgName} · Staff Portal, the staff communication platform for residential care
      </p>
    </AuthLayout>
  );
}
