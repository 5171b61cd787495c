import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import webpush from 'web-push';
import { isAllowedPushEndpoint, type PushEndpointRules } from '../../schema/push';
import type { Config } from '../config';
import { classifyAddress } from './addresses';

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

/** A host name's addresses, as `dns.promises.lookup(host, { all: true })` answers them. */
export type HostResolver = (hostname: string) => Promise<dns.LookupAddress[]>;

/** An endpoint the server will not send to: not a known push service, or it resolves to an inside address. */
export class PushRefusedError extends Error {}

/** How long one push service request may take before it is given up (the request that caused it never waits). */
const SEND_TIMEOUT_MS = 10_000;

const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export function generateVapidKeys(): VapidKeys {
  return webpush.generateVAPIDKeys();
}

/** The endpoint rules of this server's configuration (decision 125). */
export function pushEndpointRules(config: Config): PushEndpointRules {
  return { serviceHosts: config.pushServiceHosts, allowOrigins: config.pushAllowOrigins };
}

/**
 * The address to connect to for an endpoint's host: every address the host resolves to must be public (or
 * loopback, when PUSH_ALLOW_LOOPBACK allows the test receiver); decision 125.
 */
export async function checkedAddress(
  hostname: string,
  resolve: HostResolver,
  allowLoopback: boolean,
): Promise<dns.LookupAddress> {
  const addresses = await resolve(hostname.replace(/^\[|\]$/g, ''));
  if (addresses.length === 0) throw new PushRefusedError('the push service host has no address');
  for (const { address } of addresses) {
    const kind = classifyAddress(address);
    if (kind !== 'public' && !(kind === 'loopback' && allowLoopback)) {
      throw new PushRefusedError(`the push service host resolves to a ${kind} address`);
    }
  }
  return addresses[0];
}

/** A lookup that always answers the address already checked, so DNS cannot change between check and connect. */
function pinnedLookup(pinned: dns.LookupAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
}

/** One POST to the push service, connected to `address` whatever DNS says now; answers the status. */
function post(endpoint: URL, address: dns.LookupAddress, headers: Record<string, string>, body: Buffer | null) {
  const request = endpoint.protocol === 'https:' ? https.request : http.request;
  return new Promise<number>((resolve, reject) => {
    const req = request(
      endpoint,
      {
        method: 'POST',
        headers,
        lookup: pinnedLookup(address),
        // A fresh connection each time: a pooled one could belong to an address checked for another request.
        agent: false,
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      },
      (res) => {
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.resume();
      },
    );
    req.on('error', reject);
    req.end(body ?? undefined);
  });
}

/**
 * web-push encrypts (aes128gcm) and signs (VAPID); the request goes out with node's own http(s) client, to an
 * address checked just before and pinned for the connection (decision 125). An allow-listed local receiver on
 * plain http works in tests (STACK-NOTES).
 */
export function createPushSender(config: Config, resolve: HostResolver = systemResolver): PushSender {
  return {
    async send(target, payload, vapid, options) {
      if (!isAllowedPushEndpoint(target.endpoint, pushEndpointRules(config))) {
        throw new PushRefusedError('the endpoint is not on a known push service');
      }
      const endpoint = new URL(target.endpoint);
      const address = await checkedAddress(endpoint.hostname, resolve, config.pushAllowLoopback);
      const details = webpush.generateRequestDetails(target, payload, {
        vapidDetails: { subject: `mailto:${config.supportEmail}`, ...vapid },
        TTL: options.ttlSeconds,
        urgency: options.urgency,
        contentEncoding: 'aes128gcm',
      });
      const headers = Object.fromEntries(Object.entries(details.headers).map(([name, value]) => [name, String(value)]));
      return post(endpoint, address, headers, details.body);
    },
  };
}
