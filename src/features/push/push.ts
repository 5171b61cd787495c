import { LIMITS } from '../../../schema/constants';
import { api } from '../../lib/api';
import { toast } from '../../lib/toast';
import { withTimeout } from '../../lib/with-timeout';

/** Whether this browser can receive web push at all. */
export function isPushSupported(): boolean {
  return (
    typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window
  );
}

/** The VAPID key as the bytes PushManager.subscribe wants. */
export function base64UrlToBytes(value: string): Uint8Array<ArrayBuffer> {
  const base64 = (value + '='.repeat((4 - (value.length % 4)) % 4)).replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i += 1) bytes[i] = raw.charCodeAt(i);
  return bytes;
}

/**
 * The service worker registration, registering it if there is none, within 10 s (docs/behaviour.md, "Notifications").
 */
async function readyRegistration(): Promise<ServiceWorkerRegistration> {
  const existing = await navigator.serviceWorker.getRegistration();
  if (!existing) await navigator.serviceWorker.register('/sw.js', { scope: '/' });
  return withTimeout(navigator.serviceWorker.ready, LIMITS.serviceWorkerReadyMs, () => {
    throw new Error('Service worker not ready');
  });
}

/** The browser's current push subscription, if any. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!isPushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration();
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/**
 * docs/behaviour.md, "Notifications", enabling: ask permission, make sure the service worker is ready (10 s), fetch the
 * public key, drop any existing browser subscription, subscribe, send it to the server, and 1 s later ask for a test
 * notification to oneself. Toasts say how it went; true when subscribed.
 */
export async function enablePush(userId: string): Promise<boolean> {
  try {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') throw new Error(`Notification permission ${permission}`);
    const registration = await readyRegistration();
    // The push schemas load when push is turned on: the feed's own code does not need them (decision 106).
    const { PushStatusSchema, VapidPublicKeySchema } = await import('../../../schema/push');
    const { publicKey } = VapidPublicKeySchema.parse(await api.get('/api/push/vapid-public-key'));
    const existing = await registration.pushManager.getSubscription();
    if (existing) await existing.unsubscribe();
    const subscription = await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: base64UrlToBytes(publicKey),
    });
    PushStatusSchema.parse(await api.post('/api/push/subscribe', subscription.toJSON()));
    setTimeout(() => {
      api.post(`/api/test-notification/${encodeURIComponent(userId)}`, {}).catch(() => undefined);
    }, LIMITS.testNotificationDelayMs);
    toast({
      title: 'Push notifications enabled',
      description: 'You will now receive push notifications when new posts are shared.',
    });
    return true;
  } catch (error) {
    console.error('Could not enable push notifications', error);
    toast({
      title: 'Error',
      description: 'Failed to enable notifications. Please check your browser settings.',
      variant: 'destructive',
    });
    return false;
  }
}

/**
 * docs/behaviour.md, "Notifications", disabling: unsubscribe the browser, then tell the server (a server failure is
 * tolerated).
 */
export async function disablePush(): Promise<boolean> {
  try {
    const subscription = await currentSubscription();
    if (subscription) {
      const { endpoint } = subscription;
      await subscription.unsubscribe();
      await api.post('/api/push/unsubscribe', { endpoint }).catch((error: unknown) => {
        console.warn('The server did not take the unsubscription', error);
      });
    }
    toast({
      title: 'Push notifications disabled',
      description: 'You will no longer receive push notifications for new posts.',
    });
    return true;
  } catch (error) {
    console.error('Could not disable push notifications', error);
    toast({
      title: 'Error',
      description: 'Failed to disable notifications. Please try again.',
      variant: 'destructive',
    });
    return false;
  }
}
