import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import type { PasskeyAdded, TwoFactorStatus } from '../../../../schema/two-factor';
import { api } from '../../../lib/api';

// The browser library and the schemas load on demand, never with the sign-in screen (decision 148).
const browserLib = () => import('@simplewebauthn/browser');
const schemas = () => import('../../../../schema/two-factor');

/** Whether this browser can use passkeys at all. */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';
}

/** Asks for sign-in options early, before the tap, with the library: a prompt after an awaited fetch may be refused. */
export function prepareAuthentication(optionsPath: string) {
  const ready = Promise.all([api.post(optionsPath), browserLib()]);
  // Awaited only on the tap; a failure meanwhile is reported then, not as an unhandled rejection.
  ready.catch(() => undefined);
  return async (): Promise<AuthenticationResponseJSON> => {
    const [options, { startAuthentication }] = await ready;
    // The server's answer from @simplewebauthn/server; the browser library checks what it uses.
    return startAuthentication({ optionsJSON: options as PublicKeyCredentialRequestOptionsJSON });
  };
}

/** Makes a passkey in the browser and registers it under `name`. */
export async function addPasskey(name: string): Promise<PasskeyAdded> {
  const [options, { startRegistration }, { PasskeyAddedSchema }] = await Promise.all([
    api.post('/api/auth/passkeys/options'),
    browserLib(),
    schemas(),
  ]);
  // The server's answer from @simplewebauthn/server; the browser library checks what it uses.
  const response = await startRegistration({ optionsJSON: options as PublicKeyCredentialCreationOptionsJSON });
  return PasskeyAddedSchema.parse(await api.post('/api/auth/passkeys', { name, response }));
}

export async function removePasskey(id: string, password: string): Promise<TwoFactorStatus> {
  const [{ TwoFactorStatusSchema }, answer] = await Promise.all([
    schemas(),
    api.post(`/api/auth/passkeys/${encodeURIComponent(id)}/remove`, { password }),
  ]);
  return TwoFactorStatusSchema.parse(answer);
}
