/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { ExpirationPlugin } from 'workbox-expiration';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst } from 'workbox-strategies';
import { CacheableResponsePlugin } from 'workbox-cacheable-response';
import { UPLOADS_CACHE, SW_MESSAGES } from '../schema/offline';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };

// The app shell: every built file, so the app opens and reloads without a connection.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Every navigation gets the precached shell; the client-side router shows the screen. The API never does.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/api\//] }));

// Uploaded pictures (they never change: each upload has its own id) are kept for offline reading. The cache
// belongs to the signed-in user and is deleted at sign-out (src/db/local-store.ts).
registerRoute(
  ({ url, request }) =>
    url.origin === self.location.origin && url.pathname.startsWith('/api/uploads/') && request.destination === 'image',
  new CacheFirst({
    cacheName: UPLOADS_CACHE,
    plugins: [new CacheableResponsePlugin({ statuses: [200] }), new ExpirationPlugin({ maxEntries: 500 })],
  }),
);
// Everything else under /api (sync pull, push and stream included) goes to the network untouched.

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === SW_MESSAGES.skipWaiting) void self.skipWaiting();
});

clientsClaim();
