import { ShieldOff } from 'lucide-react';
import { useState } from 'react';
import type { AdminUser } from '../../../schema/admin';
import { Button } from '../../components/ui/button';
import { Notice } from '../../components/ui/notice';
import { InlineSpinner } from '../../components/ui/spinner';
import { resetTwoFactor } from './admin-api';
import { toastAdminFailure, toastAdminSuccess } from './admin-toasts';

/**
 * "Reset two-factor sign-in" on a user's edit (decision 148): asks once more, then removes the user's authenticator
 * app, recovery codes and passkeys and signs them out; the server e-mails them.
 */
export function ResetTwoFactor({ user, onReset }: { user: AdminUser; onReset: (user: AdminUser) => void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const reset = async () => {
    setBusy(true);
    try {
      const saved = await resetTwoFactor(user.id);
      toastAdminSuccess('Two-factor sign-in has been reset');
      onReset(saved);
    } catch (error) {
      toastAdminFailure('Failed to reset two-factor sign-in', error);
      setBusy(false);
    }
  };
  if (!asking) {
    return (
      <div>
        <Button variant="outline" size="sm" onClick={() => setAsking(true)}>
          <ShieldOff aria-hidden size={14} />
          Reset two-factor sign-in
        </Button>
      </div>
    );
  }
  return (
    <Notice tone="warning" role="alert" title={`Reset two-factor sign-in of ${user.firstName || user.email}?`}>
      <p>
        Their authenticator app, recovery codes and passkeys stop working, they are signed out everywhere and told by
        e-mail.
      </p>
      <div className="row-end">
        <Button variant="outline" size="sm" onClick={() => setAsking(false)}>
          Keep it
        </Button>
        <Button variant="destructive" size="sm" disabled={busy} onClick={() => void reset()}>
          {busy ? <InlineSpinner /> : null}
          Reset
        </Button>
      </div>
    </Notice>
  );
}
