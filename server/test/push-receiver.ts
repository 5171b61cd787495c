import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Decrypts a Web Push message body (RFC 8291 with the aes128gcm content coding of RFC 8188), as a browser's
 * push service client does: the header carries the salt, the record size and the sender's public key; the
 * key and nonce come from ECDH with the browser's private key and HKDF over the auth secret.
 */
export function decryptPushBody(body: Buffer, browserKey: ECDH, authSecret: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const keyIdLength = body[20];
  const senderPublicKey = body.subarray(21, 21 + keyIdLength);
  const record = body.subarray(21 + keyIdLength);
  if (record.length > recordSize) throw new Error('expected a single record');

  const sharedSecret = browserKey.computeSecret(senderPublicKey);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), browserKey.getPublicKey(), senderPublicKey]);
  const ikm = Buffer.from(hkdfSync('sha256', sharedSecret, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));

  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // Padding: the last record ends with the delimiter 0x02 followed by zeros.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end -= 1;
  if (plain[end] !== 2) throw new Error('missing the last-record padding delimiter');
  return plain.subarray(0, end);
}

/** Checks the VAPID header (RFC 8292): an ES256 JWT signed by the key `k`; answers its claims and key. */
export function verifyVapid(authorization: string | undefined): { claims: Record<string, unknown>; key: string } {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!match) throw new Error(`not a VAPID authorization: ${authorization}`);
  const [, token, key] = match;
  const [header, claims, signature] = token.split('.');
  const point = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const valid = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key: publicKey, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!valid) throw new Error('bad VAPID signature');
  return { claims: JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as Record<string, unknown>, key };
}

export interface ReceivedPush {
  /** The device name the subscription was made for. */
  device: string;
  headers: http.IncomingHttpHeaders;
  /** The decrypted payload, parsed as JSON. */
  payload: {
    title: string;
    body: string;
    tag: string;
    data: { type: string; conversationId?: string; postId?: string; urgent?: boolean };
  };
  vapid: { claims: Record<string, unknown>; key: string };
}

/**
 * A local push service on 127.0.0.1 (allowed through PUSH_ALLOW_HOSTS): each device gets a P-256 key pair
 * and an auth secret like a browser's, and every message it receives is verified (VAPID) and decrypted.
 */
export async function startPushReceiver() {
  const devices = new Map<string, { key: ECDH; auth: Buffer }>();
  const answers = new Map<string, number>();
  const received: ReceivedPush[] = [];
  const failures: unknown[] = [];
  const waiters = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const device = decodeURIComponent((req.url ?? '').replace(/^\/push\//, ''));
      const keys = devices.get(device);
      try {
        if (!keys || req.method !== 'POST') throw new Error(`unknown device ${device}`);
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('not aes128gcm');
        const plain = decryptPushBody(Buffer.concat(chunks), keys.key, keys.auth);
        received.push({
          device,
          headers: req.headers,
          payload: JSON.parse(plain.toString('utf8')) as ReceivedPush['payload'],
          vapid: verifyVapid(req.headers.authorization),
        });
      } catch (error) {
        failures.push(error);
      }
      res.statusCode = answers.get(device) ?? 201;
      res.end();
      waiters.forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    received,
    failures,
    /** A browser's subscription for a new device: the endpoint and keys the browser would post. */
    subscription(device: string) {
      const key = createECDH('prime256v1');
      key.generateKeys();
      const auth = randomBytes(16);
      devices.set(device, { key, auth });
      return {
        endpoint: `${origin}/push/${encodeURIComponent(device)}`,
        keys: { p256dh: key.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      };
    },
    /** The push service answers this status for the device from now on (410: the subscription is gone). */
    answer(device: string, status: number) {
      answers.set(device, status);
    },
    /** Messages received for a device so far. */
    of(device: string) {
      return received.filter((r) => r.device === device);
    },
    /** Waits until `count` messages have reached the device. */
    async waitFor(device: string, count = 1, timeoutMs = 3000): Promise<ReceivedPush[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (failures.length > 0) throw failures[0];
        const got = received.filter((r) => r.device === device);
        if (got.length >= count) return got;
        if (Date.now() > deadline) throw new Error(`${device} got ${got.length} of ${count} pushes`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 50);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type PushReceiver = Awaited<ReturnType<typeof startPushReceiver>>;
