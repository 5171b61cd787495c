import { KeyRound } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Button } from '../../../components/ui/button';
import { InlineSpinner } from '../../../components/ui/spinner';
import { api } from '../../../lib/api';
import { toastRequestFailure } from '../../../lib/form';
import { toast } from '../../../lib/toast';
import { TWO_FACTOR_MESSAGES as M } from '../../../../schema/two-factor-rules';
import { prepareAuthentication } from './passkey-api';

const PATHS = {
  // Signing in with a passkey alone: the browser offers the passkeys it holds for this site.
  alone: { options: '/api/auth/passkey-sign-in/options', verify: '/api/auth/passkey-sign-in' },
  // The second step after the password: the account's own passkeys.
  secondStep: { options: '/api/auth/login/passkey/options', verify: '/api/auth/login/passkey' },
} as const;

/** A cancelled prompt says nothing; anything else says the passkey could not be checked. */
function failed(error: unknown) {
  if (error instanceof Error && error.name === 'NotAllowedError') {
    toast({ title: 'No passkey used', description: 'The passkey prompt was closed. You can try again.' });
  } else {
    toastRequestFailure('Sign-in failed', M.passkeyFailed)(error);
  }
}

/**
 * "Use a passkey" (decision 148): the options are asked for before the tap (on mount for the second step,
 * on hover or focus for the sign-in screen), then the tap opens the browser's prompt at once.
 */
export function PasskeySignIn({
  mode,
  onSignedIn,
  label = 'Use a passkey',
}: {
  mode: keyof typeof PATHS;
  onSignedIn: () => Promise<void>;
  label?: string;
}) {
  const prepared = useRef<ReturnType<typeof prepareAuthentication> | null>(null);
  const [busy, setBusy] = useState(false);
  const prepare = () => {
    prepared.current ??= prepareAuthentication(PATHS[mode].options);
    return prepared.current;
  };
  useEffect(() => {
    if (mode === 'secondStep') prepare();
    // Prepared once per mount: a new challenge is asked for after each try.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const start = async () => {
    const authenticate = prepare();
    prepared.current = null;
    setBusy(true);
    try {
      const response = await authenticate();
      await api.post(PATHS[mode].verify, { response });
      await onSignedIn();
    } catch (error) {
      failed(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Button
      variant="outline"
      size="lg"
      disabled={busy}
      onPointerEnter={() => void prepare()}
      onFocus={() => void prepare()}
      onClick={() => void start()}
    >
      {busy ? <InlineSpinner /> : <KeyRound aria-hidden size={18} />}
      {label}
    </Button>
  );
}
