import { atom } from 'jotai';
import { startTransition } from 'react';
import type { CurrentUser } from '../../../schema/auth';
import { isCurrentUser } from '../../../schema/auth-rules';
import { LIMITS } from '../../../schema/constants';
import { KEPT_DB, LOCAL_DATABASE_PREFIX, UPLOADS_CACHE } from '../../../schema/offline';
import { ApiError, NetworkError, api } from '../../lib/api';
import { appStore } from '../../lib/store';
import { withTimeout } from '../../lib/with-timeout';
import { forgetPostDrafts } from '../../db/post-draft-store';
import {
  forgetSession,
  isIdleRunOut,
  isSessionRunOut,
  isSignOutPending,
  markAccessEnded,
  markIdleLogout,
  noteActivity,
  tellServerSignedOut,
} from './session-marks';

/**
 * Who is signed in (docs/behaviour.md, "Sessions and signing out"): loading until GET /api/auth/user answers, then
 * signed in or out.
 */
export type AuthState =
  | { status: 'loading' }
  | { status: 'signedIn'; user: CurrentUser; fetchedAt: number }
  | { status: 'signedOut'; fetchedAt: number };

export const authStateAtom = atom<AuthState>({ status: 'loading' });

export const currentUserAtom = atom((get) => {
  const state = get(authStateAtom);
  return state.status === 'signedIn' ? state.user : null;
});

let inFlight: Promise<AuthState> | null = null;

/**
 * The last signed-in user, so a reload without a connection still opens the app and its pending items
 * can go up. Only who it is, never a secret: the session cookie stays HttpOnly. Removed at sign-out.
 */
const LAST_USER_KEY = 'sp_last_user';

function rememberUser(user: CurrentUser | null): void {
  try {
    if (user) localStorage.setItem(LAST_USER_KEY, JSON.stringify(user));
    else localStorage.removeItem(LAST_USER_KEY);
  } catch {
    // Storage may be unavailable (private mode); the app then simply needs a connection to start.
  }
}

function rememberedUser(): CurrentUser | null {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(LAST_USER_KEY) ?? 'null');
    return isCurrentUser(saved) ? saved : null;
  } catch {
    return null;
  }
}

async function fetchAuthState(): Promise<AuthState> {
  const previous = appStore.get(authStateAtom);
  // A sign-out made offline is completed (revoked and audited on the server) before anything else, and nobody is
  // signed in after it: the page's preloaded answer was read before the session was revoked (decision 114).
  if (isSignOutPending()) {
    await tellServerSignedOut();
    setSignedOut();
    await wipeLocalData();
    return { status: 'signedOut', fetchedAt: Date.now() };
  }
  // Opened after the server's idle rule or 12-hour cap has ended the session: it is over, online or offline, and
  // ends as the inactivity logout would, so no care data of a dead session is shown (decision 114).
  if (previous.status === 'loading' && rememberedUser() && isSessionRunOut()) {
    if (isIdleRunOut()) markIdleLogout();
    await tellServerSignedOut();
    setSignedOut();
    await wipeLocalData();
    return { status: 'signedOut', fetchedAt: Date.now() };
  }
  try {
    const user = await api.get('/api/auth/user');
    if (!isCurrentUser(user)) throw new Error('GET /api/auth/user answered an unexpected shape');
    rememberUser(user);
    // Opening the app is activity: the idle clock starts again, as the server's did with this request.
    if (previous.status === 'loading') noteActivity(Date.now(), true);
    return { status: 'signedIn', user, fetchedAt: Date.now() };
  } catch (error) {
    const unauthorized = error instanceof ApiError && error.status === 401;
    if (!unauthorized && !(error instanceof NetworkError)) console.error('Could not read the current user', error);
    // Signed in and offline (or a passing server fault): keep the user, the app works offline. Only a 401 ends it.
    if (previous.status === 'signedIn' && !unauthorized) return previous;
    // Opened without a connection: carry on as the last user; the server decides once it is reachable.
    const remembered = error instanceof NetworkError ? rememberedUser() : null;
    if (remembered) return { status: 'signedIn', user: remembered, fetchedAt: 0 };
    rememberUser(null);
    if (unauthorized) forgetSession();
    // The sign-in screens say why when the server ended the session at the account's access end (decision 151).
    if (unauthorized && error.code === 'access_ended') markAccessEnded();
    // A dead session (idle, signed out elsewhere, deactivated), or one whose end was cut short by closing the app:
    // nothing of its user stays on this device but their unsent work, sealed for them. The sign-in screen counts
    // it, so it is kept before that screen shows.
    if (unauthorized || previous.status !== 'signedIn') await wipeLocalData();
    return { status: 'signedOut', fetchedAt: Date.now() };
  }
}

/**
 * Ends the local side of a session: the user's unsent work is sealed for them, everything else of theirs removed
 * (src/db/local-store.ts). The database code is loaded only when this browser may hold something.
 */
export async function wipeLocalData(): Promise<void> {
  // The composer's draft is the user's words: it goes with the session, whatever else the device holds.
  forgetPostDrafts();
  try {
    if (!(await mayHoldLocalData())) return;
    const { wipeLocalStore } = await import('../../db/local-store');
    await wipeLocalStore();
  } catch (error) {
    console.error('Could not remove local data', error);
  }
}

/**
 * Whether this browser may hold anything of a user: one of the app's databases or its picture cache. A
 * first visit has none, so the sign-in screen does not load the database code (JavaScript before
 * the sign-in screen). Without the listing API, assume it may.
 */
async function mayHoldLocalData(): Promise<boolean> {
  if (typeof indexedDB === 'undefined') return false;
  if (typeof indexedDB.databases !== 'function') return true;
  const names = (await indexedDB.databases()).map((db) => db.name ?? '');
  // Kept work is sealed already: it is no reason to load the database code.
  if (names.some((name) => name.includes(LOCAL_DATABASE_PREFIX) && name !== KEPT_DB)) return true;
  return typeof caches !== 'undefined' && (await caches.has(UPLOADS_CACHE));
}

/** How long the first screen waits for `beforeFirstScreen` at most: past it, the screen shows its own wait. */
export const FIRST_SCREEN_HOLD_MS = 3000;

/**
 * Asks the server who is signed in (no retry); concurrent callers share one request. `beforeFirstScreen` runs
 * with the first answer, before it replaces "Loading...": the screen waits for what it returns (its code, say),
 * for FIRST_SCREEN_HOLD_MS at most.
 */
export function refreshCurrentUser(beforeFirstScreen?: (state: AuthState) => Promise<void> | void): Promise<AuthState> {
  inFlight ??= fetchAuthState()
    .then(async (state) => {
      if (appStore.get(authStateAtom).status !== 'loading') {
        appStore.set(authStateAtom, state);
        return state;
      }
      const ready = beforeFirstScreen?.(state);
      if (ready) await withTimeout(ready, FIRST_SCREEN_HOLD_MS);
      // The first answer replaces "Loading..." with a whole screen (the feed, its database starting): rendered as a
      // transition, in short slices. Later answers are applied at once.
      if (appStore.get(authStateAtom).status === 'loading') startTransition(() => appStore.set(authStateAtom, state));
      else appStore.set(authStateAtom, state);
      return state;
    })
    .finally(() => {
      inFlight = null;
    });
  return inFlight;
}

/** Refreshes only when the last answer is older than five minutes (docs/behaviour.md, "Sessions and signing out"). */
export function refreshCurrentUserIfStale(): Promise<AuthState> | null {
  const state = appStore.get(authStateAtom);
  if (state.status !== 'loading' && Date.now() - state.fetchedAt < LIMITS.currentUserFreshMs) return null;
  return refreshCurrentUser();
}

/** Forgets the user at once (sign-out, inactivity, a dead session). */
export function setSignedOut(): void {
  rememberUser(null);
  forgetSession();
  appStore.set(authStateAtom, { status: 'signedOut', fetchedAt: Date.now() });
}

/** Replaces the signed-in user with the server's newer answer (a new profile picture), and remembers it. */
export function setCurrentUser(user: CurrentUser): void {
  rememberUser(user);
  appStore.set(authStateAtom, { status: 'signedIn', user, fetchedAt: Date.now() });
}
