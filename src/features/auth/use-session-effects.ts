import { useAtomValue } from 'jotai';
import { useEffect, useEffectEvent } from 'react';
import { useLocation, useNavigate } from 'react-router-dom';
import { LIMITS } from '../../../schema/constants';
import { feedPreviewAtom, forgetFirstPulls, loadFeedPreview, previewSettled } from '../../db/first-pull';
import { wipeCount } from '../../db/local-store-state';
import { ApiError, api } from '../../lib/api';
import { ACTIVITY_EVENTS, startInactivityMonitor } from '../../lib/inactivity';
import { appStore } from '../../lib/store';
import { toast } from '../../lib/toast';
import { currentUserAtom, refreshCurrentUserIfStale } from './current-user';
import { keptDatabaseExists } from './kept-database';
import { endLostSession, logOutForInactivity } from './session';
import { noteActivity } from './session-marks';
import { countUnsent, itemsText } from './use-sign-out';

/**
 * On a device without the user's local store, asks for the feed's first pages at once, while the database code
 * loads (decision 97); whatever was fetched for a user is forgotten when they sign out.
 */
function useFeedPreview(userId: string | undefined): void {
  useEffect(() => {
    if (!userId) return;
    let current = true;
    void loadFeedPreview(
      userId,
      (preview) => appStore.set(feedPreviewAtom, preview),
      () => current,
    );
    return () => {
      current = false;
      appStore.set(feedPreviewAtom, null);
      forgetFirstPulls();
    };
  }, [userId]);
}

/**
 * Sends what the user kept at the end of an earlier session as soon as they are known (decision 121): it needs no
 * local store, so it goes while the store's code loads and opens, which waits for it before syncing. The code that
 * sends it is loaded only when this browser holds kept work.
 */
async function deliverKeptWorkNow(userId: string): Promise<void> {
  if (!(await keptDatabaseExists())) return;
  const { deliverKeptWork } = await import('../../db/kept-send');
  await deliverKeptWork(userId);
}

/** Opens the signed-in user's local database (wiping any other user's) and starts syncing it. */
function useUserDatabase(userId: string | undefined): void {
  const navigate = useNavigate();
  useEffect(() => {
    if (!userId) return;
    let active = true;
    const wipesBefore = wipeCount();
    void deliverKeptWorkNow(userId).catch((error: unknown) => console.warn('Kept work will be sent later', error));
    // Loaded on demand: the database code is not needed before someone signs in. A user who signed out meanwhile
    // gets no store: sign-out has wiped it. On a new device the feed's preview paints first (decision 103).
    previewSettled(userId)
      .then(() => (active ? import('../../db/local-store') : null))
      .then((module) =>
        module && active ? module.startLocalStore(userId, (code) => endLostSession(navigate, code), wipesBefore) : null,
      )
      .catch((error: unknown) => console.error('Could not open the local database', error));
    return () => {
      active = false;
    };
  }, [userId, navigate]);
}

/** The 25-minute inactivity warning; it names the unsent items that the logout will keep (decision 114). */
async function warnOfLogout(): Promise<void> {
  const unsent = await countUnsent();
  const kept =
    unsent > 0 ? ` Your ${itemsText(unsent)} will be kept on this device and sent when you sign in again.` : '';
  toast({
    title: 'Session Expiring',
    description: `You will be logged out in 5 minutes due to inactivity. Move the mouse or click to stay logged in.${kept}`,
    variant: 'destructive',
  });
}

/**
 * docs/behaviour.md, "Sessions and signing out": warning at 25 minutes, logout at 30; activity also feeds the server's
 * idle clock.
 */
function useInactivityLogout(signedIn: boolean): void {
  const navigate = useNavigate();
  // Effect events: navigating (which gives a new navigate function) must not restart the timers.
  const logOut = useEffectEvent(() => void logOutForInactivity(navigate));
  const sessionLost = useEffectEvent((code?: string) => endLostSession(navigate, code));
  useEffect(() => {
    if (!signedIn) return;
    const monitor = startInactivityMonitor({
      warningMs: LIMITS.inactivityWarningMs,
      logoutMs: LIMITS.inactivityLogoutMs,
      heartbeatMs: LIMITS.activityHeartbeatMs,
      onWarning: () => void warnOfLogout(),
      onLogout: () => logOut(),
      onHeartbeat: () => {
        api.post('/api/auth/heartbeat').catch((error: unknown) => {
          if (error instanceof ApiError && error.status === 401) sessionLost(error.code);
        });
      },
    });
    const options = { capture: true, passive: true };
    // Only the user's own input is activity: RxDB's leading tab dispatches a mousemove every 20 s against tab
    // hibernation (decision 115), and Chromium sends one when the layout changes under a resting pointer.
    let pointer = '';
    // Written down too, so an app closed and opened later knows whether the idle rule has ended the session.
    const activity = (event: Event) => {
      if (!event.isTrusted) return;
      if (event instanceof MouseEvent && event.type === 'mousemove') {
        const at = `${event.screenX},${event.screenY}`;
        if (at === pointer) return;
        pointer = at;
      }
      monitor.activity();
      noteActivity();
    };
    for (const name of ACTIVITY_EVENTS) document.addEventListener(name, activity, options);
    return () => {
      monitor.stop();
      for (const name of ACTIVITY_EVENTS) document.removeEventListener(name, activity, options);
    };
  }, [signedIn]);
}

/**
 * Re-reads the current user on navigation once the last answer is five minutes old
 * (docs/behaviour.md, "Sessions and signing out").
 */
function useStaleUserRefresh(): void {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const user = useAtomValue(currentUserAtom);
  const signedIn = user !== null;
  useEffect(() => {
    const refresh = refreshCurrentUserIfStale();
    if (!refresh || !signedIn) return;
    void refresh.then((state) => {
      if (state.status === 'signedOut') endLostSession(navigate);
    });
  }, [pathname, signedIn, navigate]);
}

/** Everything that runs while the app is open: local database, inactivity timers, session freshness. */
export function useSessionEffects(): void {
  const user = useAtomValue(currentUserAtom);
  // A session that must first set up a second factor may call nothing else: no store, no sync yet (decision 148).
  const userId = user?.twoFactorSetupRequired ? undefined : user?.id;
  useFeedPreview(userId);
  useUserDatabase(userId);
  useInactivityLogout(user !== null);
  useStaleUserRefresh();
}
