import { Mail } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { TextField } from '../components/ui/field';
import { InlineSpinner } from '../components/ui/spinner';
import { AuthLayout } from '../features/auth/auth-layout';
import { api } from '../lib/api';
import { forgotPasswordSchema } from '../lib/account-schemas';
import { useLoadedFormValidation } from '../lib/form';
import { toast } from '../lib/toast';

/** /forgot-password (spec section 2): the form, then the "Check Your Email" confirmation. */
export function ForgotPasswordScreen() {
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const { errors, check, prepare } = useLoadedFormValidation(forgotPasswordSchema, { email });

  async function submit(event: FormEvent) {
    event.preventDefault();
    const body = await check();
    if (!body) return;
    setBusy(true);
    try {
      await api.post('/api/auth/forgot-password', body);
      setSent(true);
      toast({
        title: 'Password reset email sent',
        description: 'Please check your email for instructions to reset your password.',
      });
    } catch (error) {
      console.error('Failed to send reset email', error);
      toast({
        title: 'Error',
        description: 'Failed to send password reset email. Please try again.',
        variant: 'destructive',
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <AuthLayout>
      <Card className="auth-card">
        {sent ? (
          <>
            <CardHeader>
              <div className="card-icon">
                <Mail aria-hidden size={28} />
              </div>
              <CardTitle>Check Your Email</CardTitle>
              <CardDescription>
                If an account with that email exists, we have sent a link to reset your password.
              </CardDescription>
            </CardHeader>
            <CardContent className="stack">
              <p className="muted">
                Didn&apos;t get it? Check your spam or junk folder, or try again in a few minutes.
              </p>
              <Button asChild variant="outline">
                <Link to="/login">Back to Login</Link>
              </Button>
            </CardContent>
          </>
        ) : (
          <>
            <CardHeader>
              <CardTitle>Forgot your password?</CardTitle>
              <CardDescription>Enter your email and we will send you a link to choose a new password.</CardDescription>
            </CardHeader>
            <CardContent>
              <form className="stack" onFocus={prepare} onSubmit={(e) => void submit(e)} noValidate>
                <TextField
                  id="forgot-email"
                  label="Email"
                  type="email"
                  autoComplete="email"
                  inputMode="email"
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                  error={errors.email}
                />
                <Button type="submit" size="lg" disabled={busy}>
                  {busy ? <InlineSpinner /> : null}
                  Send Reset Instructions
                </Button>
              </form>
              <p className="auth-alt">
                <Link to="/login" className="text-link">
                  Back to Login
                </Link>
              </p>
            </CardContent>
          </>
        )}
      </Card>
    </AuthLayout>
  );
}
