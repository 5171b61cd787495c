import 'fake-indexeddb/auto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { createRxDatabase } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { wrappedValidateAjvStorage } from 'rxdb/plugins/validate-ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeBasesOf, syncedCollections } from '../collections';
import { createSyncedDatabase, type DatabaseEnvironment } from '../database';
import { startSync } from '../replication';
import { storedPost } from '../test-fixtures';
import { leanDocsSchema } from './lean-indexes';

const env: DatabaseEnvironment = { indexedDB, IDBKeyRange, multiInstance: false };
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await Promise.all((await indexedDB.databases()).map((info) => indexedDB.deleteDatabase(info.name!)));
});

/** The index key paths of the `docs` table of each IndexedDB database whose name contains `part`. */
async function docsIndexes(part: string): Promise<string[][]> {
  const found: string[][] = [];
  for (const info of await indexedDB.databases()) {
    if (!info.name?.includes(part)) continue;
    const idb = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open(info.name!);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const store = idb.transaction('docs').objectStore('docs');
    found.push(Array.from(store.indexNames).map((name) => JSON.stringify(store.index(name).keyPath)));
    idb.close();
  }
  return found;
}

describe('the indexes of the local database (decision 91)', () => {
  it('drops the cleanup-only index everywhere and every index of a replication meta table', () => {
    const declared = 'id, [_deleted+id], [_deleted+createdAt+id], [_meta.lwt+id], _meta.lwt';
    expect(leanDocsSchema('rxdb-dexie-sp_1--2--posts', declared)).toBe(
      'id, [_deleted+id], [_deleted+createdAt+id], [_meta.lwt+id]',
    );
    expect(leanDocsSchema('rxdb-dexie-sp_1--1--rx-replication-meta-0b67', 'id, [_deleted+id], _meta.lwt')).toBe('id');
  });

  it('creates the lean tables for a synced database and keeps every index its queries use', async () => {
    const db = await createSyncedDatabase('lean1', env, ['posts']);
    cleanups.push(() => db.close());
    const offline = (async () => {
      throw new TypeError('Failed to fetch');
    }) as typeof fetch;
    const sync = startSync({ posts: db.posts as never }, { fetch: offline, retryMs: 60_000 });
    cleanups.push(() => sync.stop());
    await db.posts.insert(storedPost({ id: 'p1', createdAt: 1 }));
    await db.posts.insert(storedPost({ id: 'p2', createdAt: 2, localPending: true }));
    // The replication opens its meta table when it starts; wait for it.
    await expect.poll(async () => (await docsIndexes('rx-replication-meta-')).length).toBe(1);

    expect(await docsIndexes('rx-replication-meta-')).toEqual([[]]);
    const [posts] = await docsIndexes('--posts');
    expect(posts).not.toContain('"_meta.lwt"');
    expect(posts).toEqual(
      expect.arrayContaining([
        '["_deleted","id"]',
        '["_deleted","createdAt","id"]',
        '["_deleted","localPending","id"]',
        '["_meta.lwt","id"]',
      ]),
    );
    // The feed's query and the pending count still run on their indexes.
    const newest = await db.posts.find({ sort: [{ createdAt: 'desc' }], limit: 1 }).exec();
    expect(newest.map((post) => post.id)).toEqual(['p2']);
    expect(await db.posts.count({ selector: { localPending: true } }).exec()).toBe(1);
  });

  it('opens a database made with every index, as an earlier version left it, and goes on using it', async () => {
    const old = await createRxDatabase({
      name: 'lean2',
      storage: wrappedValidateAjvStorage({ storage: getRxStorageDexie({ indexedDB, IDBKeyRange }) }),
      multiInstance: false,
    });
    await old.addCollections({ posts: syncedCollections(mergeBasesOf(old)).posts });
    await old.posts.insert(storedPost({ id: 'p1', createdAt: 1 }));
    await old.close();
    expect((await docsIndexes('--posts'))[0]).toContain('"_meta.lwt"');

    const db = await createSyncedDatabase('lean2', env, ['posts']);
    cleanups.push(() => db.close());
    await db.posts.insert(storedPost({ id: 'p2', createdAt: 2 }));
    const all = await db.posts.find({ sort: [{ createdAt: 'desc' }] }).exec();
    expect(all.map((post) => post.id)).toEqual(['p2', 'p1']);
  });
});
