import type { ReactNode } from 'react';
import type { FieldBinding, NewAccountText } from '../lib/form';
import { Button } from './ui/button';
import { PasswordField, TextField } from './ui/field';
import { InlineSpinner } from './ui/spinner';

/** The Email field of the account screens; sign-in fills it as the account's user name. */
export function EmailField({
  id,
  autoComplete = 'email',
  ...binding
}: { id: string; autoComplete?: 'email' | 'username' } & FieldBinding) {
  return <TextField id={id} label="Email" type="email" autoComplete={autoComplete} inputMode="email" {...binding} />;
}

/** First Name and Last Name side by side (registration, setup). */
export function NameFields({
  idPrefix,
  firstName,
  lastName,
}: {
  idPrefix: string;
  firstName: FieldBinding;
  lastName: FieldBinding;
}) {
  return (
    <div className="field-row">
      <TextField id={`${idPrefix}-first-name`} label="First Name" autoComplete="given-name" {...firstName} />
      <TextField id={`${idPrefix}-last-name`} label="Last Name" autoComplete="family-name" {...lastName} />
    </div>
  );
}

/** A new password, with its rules as the hint, and its confirmation (registration, setup, reset, invitation). */
export function NewPasswordFields({
  idPrefix,
  label = 'Password',
  hint,
  password,
  confirmPassword,
}: {
  idPrefix: string;
  label?: string;
  hint: ReactNode;
  password: FieldBinding;
  confirmPassword: FieldBinding;
}) {
  return (
    <>
      <PasswordField id={`${idPrefix}-password`} label={label} autoComplete="new-password" {...password} hint={hint} />
      <PasswordField
        id={`${idPrefix}-confirm-password`}
        label="Confirm Password"
        autoComplete="new-password"
        {...confirmPassword}
      />
    </>
  );
}

/** An account form's submit button: a spinner, and `busyLabel` when given, while the request runs. */
export function SubmitButton({ busy, busyLabel, children }: { busy: boolean; busyLabel?: string; children: string }) {
  return (
    <Button type="submit" size="lg" disabled={busy}>
      {busy ? <InlineSpinner /> : null}
      {busy && busyLabel ? busyLabel : children}
    </Button>
  );
}

/** A new account's names, email and password twice; `children` go between the email and the password. */
export function NewAccountFields({
  idPrefix,
  field,
  passwordHint,
  children,
}: {
  idPrefix: string;
  field: (name: keyof NewAccountText & string) => FieldBinding;
  passwordHint: ReactNode;
  children?: ReactNode;
}) {
  return (
    <>
      <NameFields idPrefix={idPrefix} firstName={field('firstName')} lastName={field('lastName')} />
      <EmailField id={`${idPrefix}-email`} {...field('email')} />
      {children}
      <NewPasswordFields
        idPrefix={idPrefix}
        hint={passwordHint}
        password={field('password')}
        confirmPassword={field('confirmPassword')}
      />
    </>
  );
}
