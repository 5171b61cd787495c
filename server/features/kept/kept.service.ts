import { constants, createPrivateKey, generateKeyPairSync, privateDecrypt } from 'node:crypto';
import {
  KEPT_CLOCK_SKEW_MS,
  KEPT_MAX_AGE_MS,
  KEPT_MESSAGES,
  keptLabel,
  type KeptKey,
  type UnsealedKey,
  type UnsealKeptBody,
} from '../../../schema/kept';
import type { AppDeps, SessionUser } from '../../lib/context';
import { forbidden, gone } from '../../lib/errors';
import { findKeptKeyPair, insertKeptKeyPairIfAbsent, type KeptKeyPair } from './kept.queries';

const cache = new WeakMap<object, KeptKeyPair>();

/** The server's RSA key pair for kept work (decision 114), made on first use and kept in the settings table. */
export async function ensureKeptKeys(deps: AppDeps): Promise<KeptKeyPair> {
  const known = cache.get(deps.db);
  if (known) return known;
  let pair = await findKeptKeyPair(deps.db);
  if (!pair) {
    const made = generateKeyPairSync('rsa', { modulusLength: 3072 });
    await insertKeptKeyPairIfAbsent(deps.db, {
      publicKey: made.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
      privateKey: made.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
    });
    pair = (await findKeptKeyPair(deps.db))!;
  }
  cache.set(deps.db, pair);
  return pair;
}

/** GET /api/kept/key: public, so a device can seal work after its session has ended, offline. */
export async function keptPublicKey(deps: AppDeps): Promise<KeptKey> {
  return { publicKey: (await ensureKeptKeys(deps)).publicKey };
}

/**
 * POST /api/kept/unseal: unwraps a device's sealing key for the user who sealed it. The label binds the key to
 * that user and time, so another user's session, or a changed time, cannot unwrap it; past KEPT_DAYS it is gone.
 */
export async function unsealKeptKey(deps: AppDeps, actor: SessionUser, body: UnsealKeptBody): Promise<UnsealedKey> {
  const age = deps.now() - body.sealedAt;
  if (age > KEPT_MAX_AGE_MS) gone(KEPT_MESSAGES.expired);
  if (age < -KEPT_CLOCK_SKEW_MS) forbidden(KEPT_MESSAGES.notYours);
  const { privateKey } = await ensureKeptKeys(deps);
  try {
    const key = privateDecrypt(
      {
        key: createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' }),
        padding: constants.RSA_PKCS1_OAEP_PADDING,
        oaepHash: 'sha256',
        oaepLabel: Buffer.from(keptLabel(actor.id, body.sealedAt)),
      },
      Buffer.from(body.wrappedKey, 'base64'),
    );
    return { key: key.toString('base64') };
  } catch {
    return forbidden(KEPT_MESSAGES.notYours);
  }
}
