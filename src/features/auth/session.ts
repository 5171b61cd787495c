import type { NavigateFunction } from 'react-router-dom';
import { MESSAGES } from '../../../schema/auth-rules';
import { LIMITS } from '../../../schema/constants';
import { toast } from '../../lib/toast';
import { setSignedOut, wipeLocalData } from './current-user';
import { markAccessEnded, markIdleLogout, tellServerSignedOut } from './session-marks';

/**
 * True while the app signs out on purpose. A background request (a sync pull, the bell's count) that the server
 * answers 401 after the logout is then no lost session: it must not toast "Unauthorized" and go to /login instead
 * of the sign-out's own landing (decision 108).
 */
let signingOut = false;

/** Runs a deliberate sign-out with `signingOut` set. */
async function whileSigningOut(work: () => Promise<void>): Promise<void> {
  signingOut = true;
  try {
    await work();
  } finally {
    signingOut = false;
  }
}

/**
 * Sign Out: tell the server (a failure is ignored), wipe local data, forget the user
 * (docs/behaviour.md, "Sessions and signing out").
 */
export function signOut(navigate: NavigateFunction): Promise<void> {
  return whileSigningOut(async () => {
    // The browser leaves the session either way; offline, the server is told once it is reachable.
    await tellServerSignedOut();
    await wipeLocalData();
    // Address first, so the Landing screen mounts already seeing logged_out=true.
    navigate('/?logged_out=true');
    setSignedOut();
  });
}

/**
 * Automatic logout after 30 minutes without activity: the error is only logged, the app goes to '/'
 * (docs/behaviour.md, "Sessions and signing out").
 */
export function logOutForInactivity(navigate: NavigateFunction): Promise<void> {
  return whileSigningOut(async () => {
    // The sign-in screens say why the user is there (decision 129).
    markIdleLogout();
    await tellServerSignedOut();
    await wipeLocalData();
    setSignedOut();
    navigate('/');
  });
}

let ending = false;

/**
 * The server says the session is over: "Unauthorized" toast, then /login after 500 ms, once the local data is gone
 * (docs/behaviour.md, "Sessions and signing out"). A 401 whose `code` is "access_ended" says the account's access has
 * ended instead, on the toast and on the sign-in screens (decision 151).
 */
export function endLostSession(navigate: NavigateFunction, code?: string): void {
  if (signingOut) return;
  // Any of the 401s in flight may be the one that says why; the first may be a plain one.
  const accessEnded = code === 'access_ended';
  if (accessEnded) markAccessEnded();
  if (ending) return;
  ending = true;
  if (accessEnded) toast({ title: 'Access ended', description: MESSAGES.accessEnded, variant: 'destructive' });
  else toast({ title: 'Unauthorized', description: 'You are logged out. Logging in again...', variant: 'destructive' });
  // The sign-in screen comes once nothing of the user is readable on the device, as after any other sign-out.
  const wiped = wipeLocalData();
  setTimeout(() => {
    void wiped.then(() => {
      ending = false;
      setSignedOut();
      navigate('/login');
    });
  }, LIMITS.redirectDelayMs);
}
