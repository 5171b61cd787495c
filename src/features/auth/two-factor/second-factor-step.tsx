import { useState, type FormEvent } from 'react';
import { SubmitButton } from '../../../components/account-fields';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/field';
import { api } from '../../../lib/api';
import { toastRequestFailure } from '../../../lib/form';
import { PasskeySignIn } from './passkey-sign-in';
import { TWO_FACTOR_MESSAGES as M, type SecondFactorMethod } from '../../../../schema/two-factor-rules';

export interface SecondFactorStepProps {
  methods: SecondFactorMethod[];
  /** Called once the server has started the session. */
  onSignedIn: () => Promise<void>;
  /** Back to the e-mail and password. */
  onBack: () => void;
}

const CODE = /^\d{6}$/;
const RECOVERY = /^[a-z2-7]{10}$/;

/**
 * The second step of signing in (decision 148): a code from the authenticator app, or one of the recovery codes.
 * The password step's ticket travels in its own httpOnly cookie.
 */
export function SecondFactorStep({ methods, onSignedIn, onBack }: SecondFactorStepProps) {
  const [mode, setMode] = useState<'totp' | 'recovery_code'>(methods.includes('totp') ? 'totp' : 'recovery_code');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fail = toastRequestFailure('Sign-in failed', mode === 'totp' ? M.invalidCode : M.invalidRecoveryCode);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const cleaned = mode === 'totp' ? value.replace(/\s/g, '') : value.replace(/[\s-]/g, '').toLowerCase();
    const ok = mode === 'totp' ? CODE.test(cleaned) : RECOVERY.test(cleaned);
    if (!ok) {
      setError(mode === 'totp' ? 'Enter the 6-digit code' : 'A recovery code has 10 letters and digits');
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      await api.post('/api/auth/login/second-factor', mode === 'totp' ? { code: cleaned } : { recoveryCode: cleaned });
      await onSignedIn();
    } catch (failure) {
      setValue('');
      fail(failure);
    } finally {
      setBusy(false);
    }
  };

  const switchTo = (next: 'totp' | 'recovery_code') => {
    setMode(next);
    setValue('');
    setError(undefined);
  };

  return (
    <div className="stack">
      {methods.includes('passkey') ? (
        <PasskeySignIn mode="secondStep" label="Use your passkey" onSignedIn={onSignedIn} />
      ) : null}
      {methods.includes('totp') || methods.includes('recovery_code') ? (
        <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
          {mode === 'totp' ? (
            <TextField
              id="second-factor-code"
              label="Enter the 6-digit code from your authenticator app"
              inputMode="numeric"
              autoComplete="one-time-code"
              // eslint-disable-next-line jsx-a11y/no-autofocus -- the one field of this step, shown after a submit
              autoFocus
              maxLength={7}
              value={value}
              error={error}
              onChange={(event) => setValue(event.target.value)}
            />
          ) : (
            <TextField
              id="second-factor-recovery"
              label="Enter one of your recovery codes"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              // eslint-disable-next-line jsx-a11y/no-autofocus -- the one field of this step, shown after a click
              autoFocus
              maxLength={20}
              value={value}
              error={error}
              onChange={(event) => setValue(event.target.value)}
            />
          )}
          <SubmitButton busy={busy} busyLabel="Checking...">
            Verify
          </SubmitButton>
        </form>
      ) : null}
      <div className="row-end">
        {mode === 'totp' && methods.includes('recovery_code') ? (
          <Button variant="link" onClick={() => switchTo('recovery_code')}>
            Use a recovery code
          </Button>
        ) : null}
        {mode === 'recovery_code' && methods.includes('totp') ? (
          <Button variant="link" onClick={() => switchTo('totp')}>
            Use your authenticator app
          </Button>
        ) : null}
        <Button variant="link" onClick={onBack}>
          Back
        </Button>
      </div>
    </div>
  );
}
