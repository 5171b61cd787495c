import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { fillWithDefaultSettings, getChangedDocumentsSince, type RxStorageDefaultCheckpoint } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { afterEach, describe, expect, it } from 'vitest';
import { withChangesFromIndex } from './changes-by-index';

interface Doc {
  id: string;
  flag: boolean;
}

const schema = fillWithDefaultSettings<Doc>({
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: { id: { type: 'string', maxLength: 100 }, flag: { type: 'boolean' } },
  required: ['id', 'flag'],
  indexes: ['flag'],
});

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function instanceWith(wrapped: boolean) {
  const dexie = getRxStorageDexie({ indexedDB, IDBKeyRange });
  const storage = wrapped ? withChangesFromIndex(dexie) : dexie;
  const instance = await storage.createStorageInstance<Doc>({
    databaseInstanceToken: 'token',
    databaseName: `changes${Math.random().toString(36).slice(2)}`,
    collectionName: 'docs',
    schema,
    options: {},
    multiInstance: false,
    devMode: false,
  });
  closers.push(() => instance.remove());
  // Three writes whose documents share a write time each, ids out of order, one deleted, booleans both ways.
  const writes = [
    { lwt: 1000, ids: ['m', 'c', 'x', 'a', 'q'] },
    { lwt: 2000, ids: ['b', 'z', 'd', 'n', 'e', 'k', 'y', 'f'] },
    { lwt: 2500, ids: ['g', 'p'] },
  ];
  for (const { lwt, ids } of writes) {
    await instance.bulkWrite(
      ids.map((id) => ({
        document: { id, flag: id < 'k', _deleted: id === 'd', _rev: '1-a', _attachments: {}, _meta: { lwt } },
      })),
      'test',
    );
  }
  return instance;
}

describe('changes since a checkpoint, read from the write-time index', () => {
  it('pages through the same documents with the same checkpoints as RxDB’s own query', async () => {
    const plain = await instanceWith(false);
    const indexed = await instanceWith(true);
    expect(Reflect.get(indexed, 'getChangedDocumentsSince')).toBeTypeOf('function');
    for (const limit of [1, 3, 4, 100]) {
      let a: RxStorageDefaultCheckpoint | undefined;
      let b: RxStorageDefaultCheckpoint | undefined;
      const seen: string[] = [];
      for (let page = 0; page < 20; page += 1) {
        const expected = await getChangedDocumentsSince(plain, limit, a);
        const actual = await getChangedDocumentsSince(indexed, limit, b);
        expect(actual).toEqual(expected);
        seen.push(...actual.documents.map((doc) => doc.id));
        if (expected.documents.length === 0) break;
        a = expected.checkpoint;
        b = actual.checkpoint;
      }
      expect(seen).toEqual(['a', 'c', 'm', 'q', 'x', 'b', 'd', 'e', 'f', 'k', 'n', 'y', 'z', 'g', 'p']);
    }
    // A checkpoint inside a write: the rest of that write, then the later ones.
    const from = { lwt: 2000, id: 'k' };
    expect(await getChangedDocumentsSince(indexed, 100, from)).toEqual(
      await getChangedDocumentsSince(plain, 100, from),
    );
  });
});
