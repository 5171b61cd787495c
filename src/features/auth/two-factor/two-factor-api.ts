import type { RecoveryCodes, TotpSetup, TwoFactorStatus } from '../../../../schema/two-factor';
import { api } from '../../../lib/api';

// The schemas load with this screen's code, never with the first script (decisions 113 and 148).
const schemas = () => import('../../../../schema/two-factor');

/** GET /api/auth/two-factor: what the signed-in user has set up. */
export async function loadTwoFactorStatus(): Promise<TwoFactorStatus> {
  const [{ TwoFactorStatusSchema }, answer] = await Promise.all([schemas(), api.get('/api/auth/two-factor')]);
  return TwoFactorStatusSchema.parse(answer);
}

/** A new authenticator secret with its QR code. */
export async function startTotpSetup(): Promise<TotpSetup> {
  const [{ TotpSetupSchema }, answer] = await Promise.all([schemas(), api.post('/api/auth/two-factor/totp/start')]);
  return TotpSetupSchema.parse(answer);
}

async function recoveryCodesOf(answer: Promise<unknown>): Promise<string[]> {
  const [{ RecoveryCodesSchema }, body] = await Promise.all([schemas(), answer]);
  return (RecoveryCodesSchema.parse(body) satisfies RecoveryCodes).recoveryCodes;
}

/** Confirms the app with a code; answers the recovery codes, shown once. */
export function confirmTotpSetup(code: string): Promise<string[]> {
  return recoveryCodesOf(api.post('/api/auth/two-factor/totp/confirm', { code }));
}

export async function removeTotp(password: string): Promise<TwoFactorStatus> {
  const [{ TwoFactorStatusSchema }, answer] = await Promise.all([
    schemas(),
    api.post('/api/auth/two-factor/totp/remove', { password }),
  ]);
  return TwoFactorStatusSchema.parse(answer);
}

export function regenerateRecoveryCodes(password: string): Promise<string[]> {
  return recoveryCodesOf(api.post('/api/auth/two-factor/recovery-codes', { password }));
}
