import type { RxCollection } from 'rxdb';
import { replicateRxCollection } from 'rxdb/plugins/replication';
import { KEPT_KEY_ITEM, PENDING_FILES_DB } from '../../schema/offline';
import { PUSHABLE_COLLECTIONS } from '../../schema/sync-protocol';
import type { UserDatabase } from './database';
import { blobToBase64, putKeptEntry, sealForUser } from './kept-store';
import type {
  KeptOptions,
  KeptPayload,
  Pushable,
  PushRow,
  SealedWaitingMessage,
  SealedWaitingPhoto,
  SealedWaitingPost,
} from './kept-send';
import type { PendingFilesDatabase } from './pending-files-db';
import { ownChanges, replicationIdentifierOf } from './replication';

export type { KeptOptions } from './kept-send';

type Doc = Record<string, unknown>;

/** Rows that are the user's own items: a profile opening is bookkeeping, a create undone offline is nothing. */
function countItems(name: Pushable, rows: readonly PushRow[]): number {
  if (name === 'residentViews') return 0;
  return rows.filter((row) => !(row.newDocumentState._deleted && !row.assumedMasterState)).length;
}

/**
 * The server's public key for sealing: asked for when sealing, else the one remembered from the last answer or from
 * the public configuration every start reads (src/lib/public-config.ts), so a device can seal offline.
 */
export async function keptPublicKey(options: KeptOptions = {}): Promise<string | null> {
  try {
    const response = await (options.fetch ?? fetch)(`${options.baseUrl ?? ''}/api/kept/key`, {
      headers: { Accept: 'application/json', 'X-Background': '1' },
    });
    if (response.ok) {
      const { publicKey } = (await response.json()) as { publicKey: string };
      globalThis.localStorage?.setItem(KEPT_KEY_ITEM, publicKey);
      return publicKey;
    }
  } catch {
    // Offline: the remembered key does as well; it only changes if the server's settings are lost.
  }
  return globalThis.localStorage?.getItem(KEPT_KEY_ITEM) ?? null;
}

/**
 * Seals every unsent write of a user's database, batch by batch, through RxDB's own push: a push-only replication
 * under the same name hands over exactly the rows the live one would have sent, with the state each assumed. Each
 * batch is stored sealed before RxDB counts it as sent, so a page closed half-way loses nothing; it may keep a
 * batch twice, which the server takes as a retry (docs/sync.md, "Push"). Answers how many items were kept.
 */
export async function sealUnsentRows(db: UserDatabase, userId: string, publicKey: string): Promise<number> {
  const deviceId = await db.storageToken;
  let kept = 0;
  for (const name of PUSHABLE_COLLECTIONS) {
    // Every collection's documents are records to the push; a store opened for sealing has only some collections.
    const collection = (db.collections as unknown as Record<string, RxCollection<Doc> | undefined>)[name];
    if (!collection) continue;
    const state = replicateRxCollection<Doc, unknown>({
      collection,
      replicationIdentifier: replicationIdentifierOf(name),
      live: false,
      retryTime: 1000,
      waitForLeadership: false,
      push: {
        batchSize: 1000,
        async handler(batch) {
          const rows = ownChanges(batch);
          if (rows.length === 0) return [];
          const count = countItems(name, rows);
          const payload: KeptPayload = { v: 1, deviceId, rows: { [name]: rows }, waitingPosts: [], residentPhotos: [] };
          await putKeptEntry(await sealForUser(userId, publicKey, payload, count));
          kept += count;
          return [];
        },
      },
    });
    try {
      await state.awaitInitialReplication();
    } finally {
      await state.cancel();
    }
  }
  return kept;
}

async function openWaitingFiles(options: KeptOptions): Promise<PendingFilesDatabase | null> {
  const factory = options.indexedDB ?? globalThis.indexedDB;
  if (!factory || typeof factory.databases !== 'function') return null;
  if (!(await factory.databases()).some((info) => info.name === PENDING_FILES_DB)) return null;
  const { PendingFilesDatabase } = await import('./pending-files-db');
  return new PendingFilesDatabase(PENDING_FILES_DB, options);
}

/**
 * Seals a user's posts and chat messages still waiting for their files (decision 150) and residents' photos waiting
 * to be sent (decision 123), then removes them; answers how many items were kept.
 */
export async function sealWaitingFiles(userId: string, publicKey: string, options: KeptOptions = {}): Promise<number> {
  const waiting = await openWaitingFiles(options);
  if (!waiting) return 0;
  try {
    const posts = await waiting.posts.where('userId').equals(userId).toArray();
    const photos = await waiting.residentPhotos.where('userId').equals(userId).toArray();
    const messages = await waiting.messages.where('userId').equals(userId).toArray();
    if (posts.length + photos.length + messages.length === 0) return 0;
    const sealedPosts: SealedWaitingPost[] = await Promise.all(
      posts.map(async (post) => ({
        ...post,
        files: await Promise.all(post.files.map(async (file) => ({ ...file, blob: await sealedBlob(file.blob) }))),
      })),
    );
    const sealedPhotos: SealedWaitingPhoto[] = await Promise.all(
      photos.map(async (photo) => ({ ...photo, blob: await sealedBlob(photo.blob) })),
    );
    const sealedMessages: SealedWaitingMessage[] = await Promise.all(
      messages.map(async (message) => ({
        ...message,
        files: await Promise.all(message.files.map(async (file) => ({ ...file, blob: await sealedBlob(file.blob) }))),
      })),
    );
    const payload: KeptPayload = {
      v: 1,
      deviceId: '',
      rows: {},
      waitingPosts: sealedPosts,
      residentPhotos: sealedPhotos,
      waitingMessages: sealedMessages,
    };
    const count = posts.length + photos.length + messages.length;
    await putKeptEntry(await sealForUser(userId, publicKey, payload, count));
    await waiting.posts.bulkDelete(posts.map((post) => post.id));
    await waiting.residentPhotos.bulkDelete(photos.map((photo) => photo.id));
    await waiting.messages.bulkDelete(messages.map((message) => message.id));
    return count;
  } finally {
    waiting.close();
  }
}

async function sealedBlob(blob: Blob): Promise<{ type: string; base64: string }> {
  return { type: blob.type, base64: await blobToBase64(blob) };
}

/** The users with posts waiting for their files, or photos waiting to be sent, on this browser. */
export async function waitingFilesUsers(options: KeptOptions = {}): Promise<string[]> {
  const waiting = await openWaitingFiles(options);
  if (!waiting) return [];
  try {
    const users = [
      ...(await waiting.posts.orderBy('userId').uniqueKeys()),
      ...(await waiting.residentPhotos.orderBy('userId').uniqueKeys()),
      ...(await waiting.messages.orderBy('userId').uniqueKeys()),
    ];
    return [...new Set(users.map(String))];
  } finally {
    waiting.close();
  }
}

/** How many of a user's posts wait for their files, and photos to be sent. */
export async function countWaitingFiles(userId: string, options: KeptOptions = {}): Promise<number> {
  const waiting = await openWaitingFiles(options);
  if (!waiting) return 0;
  try {
    return (
      (await waiting.posts.where('userId').equals(userId).count()) +
      (await waiting.residentPhotos.where('userId').equals(userId).count()) +
      (await waiting.messages.where('userId').equals(userId).count())
    );
  } finally {
    waiting.close();
  }
}
