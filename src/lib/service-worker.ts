import { atom } from 'jotai';
import { Workbox } from 'workbox-window/Workbox.js';
import { appStore } from './store';

/**
 * A new version of the app installed and waiting while an older one controls the page
 * (docs/behaviour.md, "App updates").
 */
export const waitingWorkerAtom = atom<ServiceWorker | null>(null);

/** The page's registration, through workbox-window (decision 135); null in development and without support. */
let workbox: Workbox | null = null;

/** Registers the service worker (production builds only) so the app installs and opens offline. */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  workbox = new Workbox('/sw.js', { scope: '/' });
  workbox.addEventListener('waiting', ({ sw }) => {
    // Only an update: the very first install has no controller and nothing to replace.
    if (sw && navigator.serviceWorker.controller) appStore.set(waitingWorkerAtom, sw);
  });
  workbox.register().catch((error: unknown) => {
    console.error('Service worker registration failed', error);
  });
}

/** "Update Now": the waiting version takes over and the page reloads once it controls the page. */
export function activateWaitingWorker(): void {
  if (!workbox) return;
  let reloaded = false;
  workbox.addEventListener('controlling', () => {
    if (reloaded) return;
    reloaded = true;
    window.location.reload();
  });
  workbox.messageSkipWaiting();
}
