import webpush from 'web-push';
import { isAllowedPushEndpoint } from '../../schema/push';
import type { Config } from '../config';

/** A browser's push subscription: where to send, and the keys its payloads are encrypted for (RFC 8291). */
export interface PushTarget {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** The server's VAPID key pair (base64url), made on first start and kept in the settings table. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface PushOptions {
  /** How long the push service keeps the message for an offline device. */
  ttlSeconds: number;
  urgency: 'normal' | 'high';
}

/** Sends one encrypted push message; answers the push service's HTTP status. */
export interface PushSender {
  send(target: PushTarget, payload: string, vapid: VapidKeys, options: PushOptions): Promise<number>;
}

/** How long one push service request may take before it is given up (the request that caused it never waits). */
const SEND_TIMEOUT_MS = 10_000;

export function generateVapidKeys(): VapidKeys {
  return webpush.generateVAPIDKeys();
}

/**
 * web-push encrypts (aes128gcm) and signs (VAPID); the request goes out with fetch, so an allow-listed local
 * receiver on plain http works in tests (STACK-NOTES) and every endpoint is checked again before sending.
 */
export function createPushSender(config: Config): PushSender {
  return {
    async send(target, payload, vapid, options) {
      if (!isAllowedPushEndpoint(target.endpoint, config.pushAllowOrigins)) {
        throw new Error('This push endpoint is not allowed');
      }
      const details = webpush.generateRequestDetails(target, payload, {
        vapidDetails: { subject: `mailto:${config.supportEmail}`, ...vapid },
        TTL: options.ttlSeconds,
        urgency: options.urgency,
        contentEncoding: 'aes128gcm',
      });
      const headers = Object.fromEntries(
        Object.entries(details.headers).filter(([name]) => name.toLowerCase() !== 'content-length'),
      );
      const response = await fetch(details.endpoint, {
        method: details.method,
        headers,
        body: details.body ? new Uint8Array(details.body) : null,
        redirect: 'error',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.status;
    },
  };
}
