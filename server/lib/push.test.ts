import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { startPushReceiver, type PushReceiver } from '../test/push-receiver';
import { checkedAddress, createPushSender, generateVapidKeys, PushRefusedError, type HostResolver } from './push';

let receiver: PushReceiver;
beforeAll(async () => {
  receiver = await startPushReceiver();
});
afterAll(async () => {
  await receiver.close();
});

/** A resolver answering fixed addresses, counting how often it is asked. */
function fixedResolver(...addresses: string[]) {
  const asked: string[] = [];
  const resolve: HostResolver = (hostname) => {
    asked.push(hostname);
    return Promise.resolve(
      addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
  return { resolve, asked };
}

const options = { ttlSeconds: 60, urgency: 'normal' } as const;

describe('checkedAddress', () => {
  it('answers the first address when every address is public', async () => {
    const { resolve } = fixedResolver('142.250.180.10', '2a00:1450:4009:81f::200a');
    await expect(checkedAddress('fcm.googleapis.com', resolve, false)).resolves.toEqual({
      address: '142.250.180.10',
      family: 4,
    });
  });

  it.each([
    [['127.0.0.1'], 'loopback'],
    [['142.250.180.10', '10.0.0.1'], 'private'],
    [['::ffff:192.168.1.1'], 'private'],
    [['169.254.169.254'], 'link-local'],
    [['fe80::1'], 'link-local'],
    [['0.0.0.0'], 'unspecified'],
  ])('refuses a host resolving to %j (%s)', async (addresses, kind) => {
    const { resolve } = fixedResolver(...addresses);
    await expect(checkedAddress('push.test', resolve, false)).rejects.toThrow(
      new PushRefusedError(`the push service host resolves to a ${kind} address`),
    );
  });

  it('lets loopback through only with the test allowance, and never a private address with it', async () => {
    await expect(checkedAddress('localhost', fixedResolver('127.0.0.1', '::1').resolve, true)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(checkedAddress('x', fixedResolver('127.0.0.1', '10.1.1.1').resolve, true)).rejects.toThrow(
      PushRefusedError,
    );
  });

  it('refuses a host with no address', async () => {
    await expect(checkedAddress('x', fixedResolver().resolve, false)).rejects.toThrow(PushRefusedError);
  });
});

describe('createPushSender', () => {
  const vapid = generateVapidKeys();

  it('connects to the address it checked, whatever the name resolves to later', async () => {
    // `push.test` exists in no DNS: only the checked (pinned) address can have reached the receiver.
    const origin = receiver.origin.replace('127.0.0.1', 'push.test');
    const config = loadConfig({ PUSH_ALLOW_HOSTS: origin, PUSH_ALLOW_LOOPBACK: 'true' });
    const { resolve, asked } = fixedResolver('127.0.0.1');
    const subscription = receiver.subscription('pinned');
    const target = { ...subscription, endpoint: subscription.endpoint.replace(receiver.origin, origin) };
    expect(await createPushSender(config, resolve).send(target, '{"hi":1}', vapid, options)).toBe(201);
    expect(asked).toEqual(['push.test']);
    const [push] = await receiver.waitFor('pinned');
    expect(push.payload).toEqual({ hi: 1 });
    expect(push.headers.host).toBe(new URL(origin).host);
  });

  it('refuses, before any lookup, an endpoint that is not on a known push service', async () => {
    const { resolve, asked } = fixedResolver('142.250.180.10');
    const sender = createPushSender(loadConfig({}), resolve);
    const target = { ...receiver.subscription('unknown'), endpoint: 'https://vm:9443/push/x' };
    await expect(sender.send(target, '{}', vapid, options)).rejects.toThrow(PushRefusedError);
    expect(asked).toEqual([]);
  });

  it('refuses a known push service whose name resolves to an inside address, without connecting', async () => {
    const { resolve } = fixedResolver('10.0.0.1');
    const sender = createPushSender(loadConfig({}), resolve);
    const target = { ...receiver.subscription('rebound'), endpoint: 'https://fcm.googleapis.com/fcm/send/x' };
    await expect(sender.send(target, '{}', vapid, options)).rejects.toThrow(
      'the push service host resolves to a private address',
    );
  });
});
