import { LIMITS } from '../../../schema/constants';
import { ApiError, NetworkError, api } from '../../lib/api';

/**
 * What the device remembers of its session across closing the app (decision 114): when the user was last active,
 * so a session the server's idle rule has ended is treated as ended at start, online or offline; and a sign-out
 * made offline, so it is completed on the server the next time the device is online. Neither is a secret.
 */
const LAST_ACTIVE_KEY = 'sp_last_active';
const SIGN_OUT_PENDING_KEY = 'sp_sign_out_pending';
const SIGNED_IN_AT_KEY = 'sp_signed_in_at';
/** Set when the inactivity rule ended the session, so the sign-in screens say why; the next sign-in clears it. */
const IDLE_LOGOUT_KEY = 'sp_idle_logout';
/** Set when the server ended the session at the account's access end (decision 151); the next sign-in clears it. */
const ACCESS_ENDED_KEY = 'sp_access_ended';
/** Activity is written down at most this often: mouse moves come many times a second. */
const NOTE_EVERY_MS = 5000;

let lastNoted = 0;

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage unavailable (private mode): the server's own rules still end the session.
  }
}

/** The user was active now (a tap, a key, a scroll); `always` for the app opening or a sign-in. */
export function noteActivity(now = Date.now(), always = false): void {
  if (!always && now - lastNoted < NOTE_EVERY_MS) return;
  lastNoted = now;
  write(LAST_ACTIVE_KEY, String(now));
  // Someone is signed in again (by any way in): the last session's end is old news.
  if (always) {
    write(IDLE_LOGOUT_KEY, null);
    write(ACCESS_ENDED_KEY, null);
  }
}

/** A sign-in: the session's 12-hour cap counts from now, and so does its idle clock. */
export function noteSignIn(now = Date.now()): void {
  write(SIGNED_IN_AT_KEY, String(now));
  write(SIGN_OUT_PENDING_KEY, null);
  noteActivity(now, true);
}

/**
 * Whether the server's rules have ended the session by now, as far as this device can tell: no activity for 30
 * minutes, or signed in 12 hours ago.
 */
export function isSessionRunOut(now = Date.now()): boolean {
  const active = Number(read(LAST_ACTIVE_KEY));
  const signedIn = Number(read(SIGNED_IN_AT_KEY));
  return (
    (active > 0 && now - active >= LIMITS.inactivityLogoutMs) ||
    (signedIn > 0 && now - signedIn >= LIMITS.sessionMaxAgeMs)
  );
}

/** Whether the last activity on this device is 30 minutes old: the idle rule, not the 12-hour cap, ended it. */
export function isIdleRunOut(now = Date.now()): boolean {
  const active = Number(read(LAST_ACTIVE_KEY));
  return active > 0 && now - active >= LIMITS.inactivityLogoutMs;
}

/** The session ended for inactivity (the 30-minute logout, or the app opened after it): the sign-in screens say so. */
export function markIdleLogout(): void {
  write(IDLE_LOGOUT_KEY, '1');
}

/** Whether the last session on this device ended for inactivity and nobody has signed in since. */
export function wasIdleLogout(): boolean {
  return read(IDLE_LOGOUT_KEY) !== null;
}

/** The server ended the session because the account's access ended: the sign-in screens say so (decision 151). */
export function markAccessEnded(): void {
  write(ACCESS_ENDED_KEY, '1');
}

/** Whether the last session on this device ended at its access end and nobody has signed in since. */
export function wasAccessEnded(): boolean {
  return read(ACCESS_ENDED_KEY) !== null;
}

/** The session is over: nothing of its clocks stays. */
export function forgetSession(): void {
  lastNoted = 0;
  write(LAST_ACTIVE_KEY, null);
  write(SIGNED_IN_AT_KEY, null);
}

export function markSignOutPending(): void {
  write(SIGN_OUT_PENDING_KEY, '1');
}

export function isSignOutPending(): boolean {
  return read(SIGN_OUT_PENDING_KEY) !== null;
}

/**
 * Tells the server of a sign-out, so the session is revoked and audited there. Answers false when the server could
 * not be reached (offline, or a server fault): the sign-out is then remembered and completed by the next call.
 */
export async function tellServerSignedOut(): Promise<boolean> {
  try {
    await api.post('/api/auth/logout');
  } catch (error) {
    const unreachable = error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
    if (unreachable) {
      markSignOutPending();
      return false;
    }
    console.error('Sign-out failed', error);
  }
  write(SIGN_OUT_PENDING_KEY, null);
  return true;
}

/** Completes a sign-out made offline; true when none is left waiting. */
export function completePendingSignOut(): Promise<boolean> {
  return isSignOutPending() ? tellServerSignedOut() : Promise.resolve(true);
}
