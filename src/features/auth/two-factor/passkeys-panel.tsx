import { KeyRound } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import type { PasskeyView } from '../../../../schema/two-factor';
import { PASSKEY_NAME_MAX } from '../../../../schema/two-factor-rules';
import { Button } from '../../../components/ui/button';
import { TextField } from '../../../components/ui/field';
import { InlineSpinner } from '../../../components/ui/spinner';
import { toastRequestFailure } from '../../../lib/form';
import { toast } from '../../../lib/toast';
import { addPasskey, passkeysSupported, removePasskey } from './passkey-api';
import { PasswordConfirm } from './password-confirm';

/** The passkeys of "Two-factor sign-in" (decision 148): add one with a name, list them, remove one with the password. */
export function PasskeysPanel({
  passkeys,
  onChanged,
  onCodes,
}: {
  passkeys: PasskeyView[];
  onChanged: () => void;
  /** The recovery codes a first second factor brings, shown once. */
  onCodes: (codes: string[]) => void;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [removing, setRemoving] = useState<PasskeyView | null>(null);

  const add = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = name.trim();
    if (!trimmed) {
      setError('Name is required');
      return;
    }
    setError(undefined);
    setBusy(true);
    try {
      const added = await addPasskey(trimmed);
      setName('');
      toast({ title: 'Passkey added', description: `"${added.passkey.name}" can now sign you in.` });
      if (added.recoveryCodes) onCodes(added.recoveryCodes);
      else onChanged();
    } catch (failure) {
      if (failure instanceof Error && failure.name === 'NotAllowedError') {
        toast({ title: 'No passkey added', description: 'The passkey prompt was closed. You can try again.' });
      } else {
        toastRequestFailure('No passkey added', 'The passkey could not be added. Please try again.')(failure);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="stack">
      <h3>Passkeys</h3>
      <p>A passkey signs you in with this device&apos;s fingerprint, face or PIN, without typing a code.</p>
      {passkeys.length > 0 ? (
        <ul className="passkey-list" aria-label="Your passkeys">
          {passkeys.map((key) => (
            <li key={key.id}>
              <KeyRound aria-hidden size={16} />
              <span className="passkey-name">{key.name}</span>
              <span className="muted">added {new Date(key.createdAt).toLocaleDateString()}</span>
              <Button variant="outline" size="sm" onClick={() => setRemoving(key)} aria-label={`Remove ${key.name}`}>
                Remove
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      {removing ? (
        <PasswordConfirm
          id="remove-passkey-password"
          action={`Remove ${removing.name}`}
          onCancel={() => setRemoving(null)}
          onConfirm={async (password) => {
            await removePasskey(removing.id, password);
            setRemoving(null);
            toast({ title: 'Passkey removed' });
            onChanged();
          }}
        />
      ) : null}
      {passkeysSupported() ? (
        <form className="stack" onSubmit={(event) => void add(event)} noValidate>
          <TextField
            id="passkey-name"
            label="Passkey name"
            hint="For example: Work phone"
            maxLength={PASSKEY_NAME_MAX}
            value={name}
            error={error}
            onChange={(event) => setName(event.target.value)}
          />
          <div>
            <Button type="submit" disabled={busy}>
              {busy ? <InlineSpinner /> : null}
              Add a passkey
            </Button>
          </div>
        </form>
      ) : (
        <p className="muted">This browser cannot make passkeys.</p>
      )}
    </div>
  );
}
