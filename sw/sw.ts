/// <reference lib="webworker" />
import { clientsClaim } from 'workbox-core';
import { ExpirationPlugin } from 'workbox-expiration';
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching';
import { NavigationRoute, registerRoute } from 'workbox-routing';
import { CacheFirst } from 'workbox-strategies';
import { CacheableResponsePlugin } from 'workbox-cacheable-response';
import { UPLOADS_CACHE, SW_MESSAGES } from '../schema/offline';
import type { PushPayload } from '../schema/push';
import { RESIDENT_PHOTO_PREFIX } from '../schema/offline';
import { notificationClickMessage, type NotificationData } from './notification-target';

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] };

// The app shell: every built file, so the app opens and reloads without a connection.
precacheAndRoute(self.__WB_MANIFEST);
cleanupOutdatedCaches();

// Every navigation gets the precached shell; the client-side router shows the screen. The API never does.
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/api\//] }));

// Uploaded pictures and residents' photos (they never change: each has its own name) are kept for offline
// reading. The cache belongs to the signed-in user and is deleted at sign-out (src/db/local-store.ts); resident
// photos are answered no-store, so this cache is the only place a browser keeps them.
registerRoute(
  ({ url, request }) =>
    url.origin === self.location.origin &&
    (url.pathname.startsWith('/api/uploads/') || url.pathname.startsWith(RESIDENT_PHOTO_PREFIX)) &&
    request.destination === 'image',
  new CacheFirst({
    cacheName: UPLOADS_CACHE,
    plugins: [new CacheableResponsePlugin({ statuses: [200] }), new ExpirationPlugin({ maxEntries: 500 })],
  }),
);
// Everything else under /api (sync pull, push and stream included) goes to the network untouched.

self.addEventListener('message', (event) => {
  if ((event.data as { type?: string } | null)?.type === SW_MESSAGES.skipWaiting) void self.skipWaiting();
});

// A push shows its notification: only the title, body and ids the server sent (decision 36).
self.addEventListener('push', (event) => {
  let payload: unknown = null;
  try {
    payload = event.data?.json();
  } catch {
    payload = null;
  }
  // Checked by hand rather than with the zod schema, which would add zod to the service worker.
  const valid =
    typeof payload === 'object' &&
    payload !== null &&
    typeof Reflect.get(payload, 'title') === 'string' &&
    typeof Reflect.get(payload, 'body') === 'string';
  const { title, body, tag, data }: Pick<PushPayload, 'title' | 'body' | 'tag'> & { data: NotificationData } = valid
    ? // Shape checked just above; tag and data are optional for the notification.
      (payload as PushPayload)
    : { title: 'Staff Portal', body: 'Open Staff Portal to see what is new.', tag: 'staff-portal', data: {} };
  event.waitUntil(
    self.registration.showNotification(title, {
      body,
      tag,
      data,
      icon: '/icons/icon-192.png',
      badge: '/icons/icon-192.png',
      requireInteraction: Boolean(data?.urgent),
    }),
  );
});

// A click focuses an open window and tells it what was clicked, or opens the app at the target.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const message = notificationClickMessage(event.action, event.notification.data as NotificationData | undefined);
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      if (open) {
        await open.focus();
        open.postMessage(message);
        return;
      }
      await self.clients.openWindow(message.targetUrl);
    })(),
  );
});

clientsClaim();
