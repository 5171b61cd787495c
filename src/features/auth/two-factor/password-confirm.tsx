import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button';
import { PasswordField } from '../../../components/ui/field';
import { InlineSpinner } from '../../../components/ui/spinner';
import { toastRequestFailure } from '../../../lib/form';

/** Asks for the password before a change to two-factor sign-in (decision 148). */
export function PasswordConfirm({
  id,
  action,
  onConfirm,
  onCancel,
}: {
  id: string;
  action: string;
  onConfirm: (password: string) => Promise<void>;
  onCancel: () => void;
}) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!password) {
      setError('Password is required');
      return;
    }
    setBusy(true);
    try {
      await onConfirm(password);
    } catch (failure) {
      setPassword('');
      toastRequestFailure('Not changed', 'Please try again.')(failure);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
      <PasswordField
        id={id}
        label="Your password"
        autoComplete="current-password"
        value={password}
        error={error}
        onChange={(event) => setPassword(event.target.value)}
      />
      <div className="row-end two-factor-actions">
        <Button variant="outline" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" variant="destructive" disabled={busy}>
          {busy ? <InlineSpinner /> : null}
          {action}
        </Button>
      </div>
    </form>
  );
}
