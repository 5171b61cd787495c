import { useEffect, useState, type FormEvent } from 'react';
import { SubmitButton } from '../../../components/account-fields';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/field';
import { InlineSpinner } from '../../../components/ui/spinner';
import { toastRequestFailure } from '../../../lib/form';
import type { TotpSetup } from '../../../../schema/two-factor';
import { TWO_FACTOR_MESSAGES as M } from '../../../../schema/two-factor-rules';
import { confirmTotpSetup, startTotpSetup } from './two-factor-api';

/** The secret in groups of four, easier to type into a phone. */
const grouped = (secret: string) => secret.replace(/(.{4})/g, '$1 ').trim();

/**
 * Setting up the authenticator app: the QR code drawn by the server, the key to type for phones that cannot scan,
 * and the first code, which makes it active and brings the recovery codes.
 */
export function TotpSetupForm({ onDone, onCancel }: { onDone: (codes: string[]) => void; onCancel: () => void }) {
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let current = true;
    startTotpSetup().then(
      (started) => current && setSetup(started),
      (failure: unknown) => {
        toastRequestFailure('Could not start', 'Please try again.')(failure);
        if (current) onCancel();
      },
    );
    return () => {
      current = false;
    };
  }, [onCancel]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const cleaned = code.replace(/\s/g, '');
    if (!/^\d{6}$/.test(cleaned)) {
      setError('Enter the 6-digit code');
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      onDone(await confirmTotpSetup(cleaned));
    } catch (failure) {
      toastRequestFailure('Not set up', M.invalidCode)(failure);
    } finally {
      setBusy(false);
    }
  };

  if (!setup) return <InlineSpinner />;
  return (
    <div className="stack">
      <ol className="two-factor-steps">
        <li>Open your authenticator app and add an account by scanning this QR code.</li>
        <li>Enter the 6-digit code the app shows.</li>
      </ol>
      <img
        className="totp-qr"
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(setup.qrSvg)}`}
        alt="QR code to scan with your authenticator app"
        width={200}
        height={200}
      />
      <p>
        Can&apos;t scan it? Enter this key in the app instead:{' '}
        <code className="totp-secret" data-testid="totp-secret">
          {grouped(setup.secret)}
        </code>
      </p>
      <form className="stack" onSubmit={(event) => void submit(event)} noValidate>
        <TextField
          id="totp-setup-code"
          label="Enter the 6-digit code from your authenticator app"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={7}
          value={code}
          error={error}
          onChange={(event) => setCode(event.target.value)}
        />
        <div className="row-end two-factor-actions">
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <SubmitButton busy={busy} busyLabel="Checking...">
            Turn on
          </SubmitButton>
        </div>
      </form>
    </div>
  );
}
