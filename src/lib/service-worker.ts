import { atom } from 'jotai';
import { SW_MESSAGES } from '../../schema/offline';
import { appStore } from './store';

/** A new version of the app installed and waiting while an older one controls the page (spec section 4). */
export const waitingWorkerAtom = atom<ServiceWorker | null>(null);

function watch(registration: ServiceWorkerRegistration): void {
  const offer = (worker: ServiceWorker | null) => {
    // Only an update: the very first install has no controller and nothing to replace.
    if (worker && navigator.serviceWorker.controller) appStore.set(waitingWorkerAtom, worker);
  };
  offer(registration.waiting);
  registration.addEventListener('updatefound', () => {
    const installing = registration.installing;
    installing?.addEventListener('statechange', () => {
      if (installing.state === 'installed') offer(installing);
    });
  });
}

/** Registers the service worker (production builds only) so the app installs and opens offline. */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  window.addEventListener('load', () => {
    navigator.serviceWorker
      .register('/sw.js', { scope: '/' })
      .then(watch)
      .catch((error: unknown) => {
        console.error('Service worker registration failed', error);
      });
  });
}

/** "Update Now": the waiting version takes over and the page reloads once it controls the page. */
export function activateWaitingWorker(worker: ServiceWorker): void {
  let reloaded = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (reloaded) return;
    reloaded = true;
    window.location.reload();
  });
  worker.postMessage({ type: SW_MESSAGES.skipWaiting });
}
