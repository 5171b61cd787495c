import { atom } from 'jotai';
import { Workbox } from 'workbox-window/Workbox.js';
import { SW_MESSAGES } from '../../schema/offline';
import { appStore } from './store';

/**
 * A new version of the app installed and waiting while an older one controls the page
 * (docs/behaviour.md, "App updates").
 */
export const waitingWorkerAtom = atom<ServiceWorker | null>(null);

/**
 * Registers the service worker (production builds only) so the app installs and opens offline, through
 * workbox-window (decision 135).
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  const workbox = new Workbox('/sw.js', { scope: '/' });
  workbox.addEventListener('waiting', ({ sw }) => {
    // Only an update: the very first install has no controller and nothing to replace.
    if (sw && navigator.serviceWorker.controller) appStore.set(waitingWorkerAtom, sw);
  });
  workbox.register().catch((error: unknown) => {
    console.error('Service worker registration failed', error);
  });
}

/**
 * "Update Now": the waiting version takes over and the page reloads once it has (it may have already: another tab's
 * Update Now, or the page's own reload, can activate it before this click).
 */
export function activateWaitingWorker(): void {
  const waiting = appStore.get(waitingWorkerAtom);
  if (!waiting || !('serviceWorker' in navigator)) return;
  let reloaded = false;
  const reload = () => {
    if (reloaded) return;
    reloaded = true;
    window.location.reload();
  };
  navigator.serviceWorker.addEventListener('controllerchange', reload);
  waiting.addEventListener('statechange', () => {
    if (waiting.state === 'activated') reload();
  });
  if (
    waiting.state === 'activating' ||
    waiting.state === 'activated' ||
    navigator.serviceWorker.controller === waiting
  ) {
    reload();
  } else waiting.postMessage({ type: SW_MESSAGES.skipWaiting });
}
