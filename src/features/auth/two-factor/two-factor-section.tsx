import { ShieldCheck } from 'lucide-react';
import { useCallback, useEffect, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { Notice } from '../../../components/ui/notice';
import { InlineSpinner } from '../../../components/ui/spinner';
import { toastRequestFailure } from '../../../lib/form';
import { toast } from '../../../lib/toast';
import type { TwoFactorStatus } from '../../../../schema/two-factor';
import { PasskeysPanel } from './passkeys-panel';
import { PasswordConfirm } from './password-confirm';
import { RecoveryCodesList } from './recovery-codes';
import { loadTwoFactorStatus, regenerateRecoveryCodes, removeTotp } from './two-factor-api';
import { TotpSetupForm } from './totp-setup';
import './two-factor.css';

type Phase = 'idle' | 'setup' | 'codes' | 'remove' | 'regenerate';

/**
 * "Two-factor sign-in" (decision 148): the authenticator app (set up, remove), the recovery codes (shown once,
 * made anew), and passkeys. Any change reloads who is signed in, so a session that had to set up a
 * second factor is let through at once.
 */
export function TwoFactorSection({
  onChanged,
}: {
  /** Reloads who is signed in. */
  onChanged: () => void;
}) {
  const [status, setStatus] = useState<TwoFactorStatus | null>(null);
  const [phase, setPhase] = useState<Phase>('idle');
  const [codes, setCodes] = useState<string[]>([]);

  const reload = useCallback(() => {
    loadTwoFactorStatus().then(setStatus, toastRequestFailure('Could not load', 'Please try again.'));
  }, []);
  useEffect(reload, [reload]);
  const changed = useCallback(() => {
    reload();
    onChanged();
  }, [reload, onChanged]);
  const cancel = useCallback(() => setPhase('idle'), []);
  const showCodes = (next: string[]) => {
    setCodes(next);
    setPhase('codes');
  };

  if (!status) return <InlineSpinner />;
  const none = !status.totp && status.passkeys.length === 0;
  return (
    <section className="stack two-factor" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      {status.required && none ? (
        <Notice tone="warning" role="status" title="Two-factor sign-in is required for administrators">
          Set up an authenticator app or a passkey to continue.
        </Notice>
      ) : null}
      <h3>Authenticator app</h3>
      {phase === 'setup' ? (
        <TotpSetupForm
          onCancel={cancel}
          onDone={(next) => {
            showCodes(next);
            toast({ title: 'Two-factor sign-in is on', description: 'You will be asked for a code when you sign in.' });
            // Who is signed in is reloaded once the codes are put away: a setup-only session's screen changes then.
            reload();
          }}
        />
      ) : null}
      {phase === 'codes' ? (
        <RecoveryCodesList
          codes={codes}
          onDone={() => {
            setPhase('idle');
            onChanged();
          }}
        />
      ) : null}
      {phase === 'remove' ? (
        <PasswordConfirm
          id="remove-totp-password"
          action="Remove authenticator app"
          onCancel={cancel}
          onConfirm={async (password) => {
            setStatus(await removeTotp(password));
            setPhase('idle');
            toast({ title: 'Authenticator app removed' });
            changed();
          }}
        />
      ) : null}
      {phase === 'regenerate' ? (
        <PasswordConfirm
          id="regenerate-codes-password"
          action="Make new recovery codes"
          onCancel={cancel}
          onConfirm={async (password) => {
            showCodes(await regenerateRecoveryCodes(password));
            reload();
          }}
        />
      ) : null}
      {phase === 'idle' ? (
        <TotpSummary
          status={status}
          onSetUp={() => setPhase('setup')}
          onRemove={() => setPhase('remove')}
          onRegenerate={() => setPhase('regenerate')}
        />
      ) : null}
      {phase === 'idle' ? (
        <PasskeysPanel
          passkeys={status.passkeys}
          onChanged={changed}
          onCodes={(next) => {
            showCodes(next);
            reload();
          }}
        />
      ) : null}
    </section>
  );
}

function TotpSummary({
  status,
  onSetUp,
  onRemove,
  onRegenerate,
}: {
  status: TwoFactorStatus;
  onSetUp: () => void;
  onRemove: () => void;
  onRegenerate: () => void;
}) {
  if (!status.totp) {
    return (
      <div className="stack">
        <p>Use an app such as Google Authenticator or Microsoft Authenticator to make a code each time you sign in.</p>
        <div className="row-end two-factor-actions">
          {status.passkeys.length > 0 ? (
            <Button variant="outline" onClick={onRegenerate}>
              New recovery codes ({status.recoveryCodesLeft} of 10 left)
            </Button>
          ) : null}
          <Button onClick={onSetUp}>Set up authenticator app</Button>
        </div>
      </div>
    );
  }
  return (
    <div className="stack">
      <p className="two-factor-on">
        <ShieldCheck aria-hidden size={18} /> Authenticator app is on. {status.recoveryCodesLeft} of 10 recovery codes
        left.
      </p>
      <div className="row-end two-factor-actions">
        <Button variant="outline" onClick={onRegenerate}>
          New recovery codes
        </Button>
        <Button variant="destructive" onClick={onRemove}>
          Remove authenticator app
        </Button>
      </div>
    </div>
  );
}
