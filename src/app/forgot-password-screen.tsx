import { Mail } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { EmailField, SubmitButton } from '../components/account-fields';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';
import { AuthLayout } from '../features/auth/auth-layout';
import { api } from '../lib/api';
import { forgotPasswordSchema } from '../lib/account-schemas';
import { useFormFields, useFormSubmit, useLoadedFormValidation } from '../lib/form';
import { toast } from '../lib/toast';

/** /forgot-password (docs/behaviour.md, "Accounts"): the form, then the "Check Your Email" confirmation. */
export function ForgotPasswordScreen() {
  const { values, bind } = useFormFields({ email: '' });
  const [sent, setSent] = useState(false);
  const { errors, check, prepare } = useLoadedFormValidation(forgotPasswordSchema, values);
  const field = bind(errors);
  const { busy, onSubmit } = useFormSubmit(
    check,
    async (body) => {
      await api.post('/api/auth/forgot-password', body);
      setSent(true);
      toast({
        title: 'Password reset email sent',
        description: 'Please check your email for instructions to reset your password.',
      });
    },
    (error) => {
      console.error('Failed to send reset email', error);
      toast({
        title: 'Error',
        description: 'Failed to send password reset email. Please try again.',
        variant: 'destructive',
      });
    },
  );

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
              <form className="stack" onFocus={prepare} onSubmit={onSubmit} noValidate>
                <EmailField id="forgot-email" {...field('email')} />
                <SubmitButton busy={busy}>Send Reset Instructions</SubmitButton>
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
