/** Web push (docs/behaviour.md, "Notifications"; docs/api-chat-alerts.md). */
import { z } from 'zod';
import { MINUTE_MS } from './constants';

/** POST /api/test-notification/{userId}: at most this many per user in the window. */
export const TEST_NOTIFICATION_LIMIT = 3;
export const TEST_NOTIFICATION_WINDOW_MS = 10 * MINUTE_MS;
/** A user's browsers and devices; subscribing one more drops the oldest (decision 37). */
export const PUSH_SUBSCRIPTIONS_PER_USER = 10;
export const PUSH_ENDPOINT_MAX = 2048;
/**
 * Pushes of one kind that one person's actions cause to one colleague: this many in a window go out at once,
 * later ones are held and sent as one summary when the window ends (decision 125). Alerts are never held.
 */
export const PUSH_BURST_LIMIT = 3;
export const PUSH_BURST_WINDOW_MS = MINUTE_MS;

export const PUSH_MESSAGES = {
  endpointInvalid: 'endpoint must be a push service URL',
  endpointHttps:
    'endpoint must be an https URL of a known push service (the ones Chrome, Firefox, Safari and Edge use)',
  p256dhInvalid: 'keys.p256dh must be a base64url P-256 public key',
  authInvalid: 'keys.auth must be a base64url 16-byte secret',
  testOwnOnly: 'You can only send a test notification to yourself',
  testRateLimited: (minutes: number) =>
    `Too many test notifications. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
} as const;

const base64url = /^[A-Za-z0-9_-]+$/;
/** base64url of `bytes` bytes, with or without `=` padding. */
const encodedBytes = (bytes: number, message: string) =>
  z
    .string({ message })
    .max(200, message)
    .transform((value) => value.replace(/=+$/, ''))
    .refine((value) => base64url.test(value) && value.length === Math.ceil((bytes * 4) / 3), message);

/**
 * The hosts of the push services browsers use (decision 125): Chrome and other Chromium browsers, Firefox,
 * Safari, Edge on Windows. `*.` matches any subdomain (not the domain itself). The server's PUSH_SERVICE_HOSTS
 * replaces this list.
 */
export const DEFAULT_PUSH_SERVICE_HOSTS = [
  'fcm.googleapis.com',
  'updates.push.services.mozilla.com',
  '*.push.apple.com',
  '*.notify.windows.com',
] as const;

/** An entry of PUSH_SERVICE_HOSTS: a lower-case domain name, optionally starting with `*.`. */
export const PUSH_SERVICE_HOST_PATTERN = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/;

/** Whether a host name is one of the push service hosts (`*.example.com` matches its subdomains). */
export function isPushServiceHost(hostname: string, serviceHosts: readonly string[]): boolean {
  const host = hostname.toLowerCase();
  return serviceHosts.some((pattern) =>
    pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1 : host === pattern,
  );
}

/** Where pushes may go: the push service hosts, and origins exempt from them (PUSH_ALLOW_HOSTS, for tests). */
export interface PushEndpointRules {
  serviceHosts: readonly string[];
  allowOrigins: readonly string[];
}

const DEFAULT_RULES: PushEndpointRules = { serviceHosts: DEFAULT_PUSH_SERVICE_HOSTS, allowOrigins: [] };

/**
 * Where the server may send a push: an https URL on the default port, without credentials, on a known push
 * service's host; or any URL on an origin of `allowOrigins` (local receivers in tests). Decision 125.
 */
export function isAllowedPushEndpoint(endpoint: string, rules: PushEndpointRules = DEFAULT_RULES): boolean {
  if (!URL.canParse(endpoint)) return false;
  const url = new URL(endpoint);
  if (rules.allowOrigins.includes(url.origin)) return true;
  return (
    url.protocol === 'https:' &&
    url.port === '' &&
    !url.username &&
    !url.password &&
    isPushServiceHost(url.hostname, rules.serviceHosts)
  );
}

/** The body of POST /api/push/subscribe; the endpoint as isAllowedPushEndpoint says. */
export function pushSubscribeBodySchema(rules: PushEndpointRules = DEFAULT_RULES) {
  return z.object({
    endpoint: z
      .string({ message: PUSH_MESSAGES.endpointInvalid })
      .max(PUSH_ENDPOINT_MAX, PUSH_MESSAGES.endpointInvalid)
      .refine((value) => URL.canParse(value), PUSH_MESSAGES.endpointInvalid)
      .refine((value) => !URL.canParse(value) || isAllowedPushEndpoint(value, rules), PUSH_MESSAGES.endpointHttps),
    keys: z.object(
      {
        p256dh: encodedBytes(65, PUSH_MESSAGES.p256dhInvalid),
        auth: encodedBytes(16, PUSH_MESSAGES.authInvalid),
      },
      { message: PUSH_MESSAGES.p256dhInvalid },
    ),
    expirationTime: z.number().nullable().optional(),
  });
}
export const PushSubscribeBodySchema = pushSubscribeBodySchema();
export type PushSubscribeBody = z.infer<typeof PushSubscribeBodySchema>;

/** POST /api/push/unsubscribe */
export const PushUnsubscribeBodySchema = z.object({
  endpoint: z.string({ message: PUSH_MESSAGES.endpointInvalid }).min(1).max(PUSH_ENDPOINT_MAX),
});
export type PushUnsubscribeBody = z.infer<typeof PushUnsubscribeBodySchema>;

/** GET /api/push/vapid-public-key */
export const VapidPublicKeySchema = z.object({ publicKey: z.string() });

/** GET /api/push/subscription-status: `debug` never carries an endpoint or keys. */
export const PushStatusSchema = z.object({
  hasSubscription: z.boolean(),
  debug: z.object({ subscriptionCount: z.number().int().nonnegative() }),
});
export type PushStatus = z.infer<typeof PushStatusSchema>;

/** Answer of POST /api/test-notification/{userId}: how many of the user's subscriptions it was sent to. */
export const TestNotificationResultSchema = z.object({ sent: z.number().int().nonnegative() });

/** `confirm_reminder`: a post still to confirm is due (decision 136); `mention`: someone mentioned the user (decision 144). */
export const PUSH_TYPES = [
  'chat',
  'urgent',
  'announcement',
  'test',
  'reminder',
  'confirm_reminder',
  'mention',
] as const;
export type PushType = (typeof PUSH_TYPES)[number];

/**
 * What the service worker receives. Only what the notification shows and ids: never a message's or post's
 * content, so a locked screen shows no resident or health details (decision 36).
 */
export const PushPayloadSchema = z.object({
  title: z.string(),
  body: z.string(),
  /** Notifications with the same tag replace each other. */
  tag: z.string(),
  data: z.object({
    type: z.enum(PUSH_TYPES),
    conversationId: z.string().optional(),
    postId: z.string().optional(),
    urgent: z.boolean().optional(),
  }),
});
export type PushPayload = z.infer<typeof PushPayloadSchema>;
