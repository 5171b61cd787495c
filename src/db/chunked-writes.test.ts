import 'fake-indexeddb/auto';
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { createRxDatabase, type RxCollection, type RxJsonSchema } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { describe, expect, it, vi } from 'vitest';
import { chunkedWrites } from './chunked-writes';

interface Note {
  id: string;
  text: string;
}

const schema: RxJsonSchema<Note> = {
  title: 'notes',
  version: 0,
  primaryKey: 'id',
  type: 'object',
  properties: { id: { type: 'string', maxLength: 40 }, text: { type: 'string' } },
  required: ['id', 'text'],
};

/** The sizes of the bulk writes that reach the notes' IndexedDB storage. */
let writes: number[] = [];

async function notesDatabase(chunk: number) {
  const dexie = getRxStorageDexie({ indexedDB, IDBKeyRange });
  const counted: typeof dexie = Object.assign(Object.create(dexie) as typeof dexie, {
    async createStorageInstance(params: Parameters<typeof dexie.createStorageInstance>[0]) {
      const instance = await dexie.createStorageInstance(params);
      const bulkWrite = instance.bulkWrite.bind(instance);
      instance.bulkWrite = (rows, context) => {
        if (params.collectionName === 'notes') writes.push(rows.length);
        return bulkWrite(rows, context);
      };
      return instance;
    },
  });
  writes = [];
  const db = await createRxDatabase<{ notes: RxCollection<Note> }>({
    name: `chunked${Math.random().toString(36).slice(2)}`,
    storage: chunkedWrites(counted, chunk),
    multiInstance: false,
  });
  await db.addCollections({ notes: { schema } });
  return db;
}

describe('chunked writes', () => {
  it('writes a large bulk write as several transactions, giving the thread back between them', async () => {
    const db = await notesDatabase(25);
    try {
      const between = vi.fn();
      // A task queued before the write runs between its chunks, not after the whole write.
      const docs = Array.from({ length: 60 }, (_, i) => ({ id: `n${String(i).padStart(3, '0')}`, text: `note ${i}` }));
      const tick = setTimeout(between, 0);
      const result = await db.notes.bulkInsert(docs);
      clearTimeout(tick);
      expect(result.error).toEqual([]);
      expect(writes).toEqual([25, 25, 10]);
      expect(between).toHaveBeenCalled();
      expect(await db.notes.count().exec()).toBe(60);
      const stored = await db.notes.find({ sort: [{ id: 'asc' }] }).exec();
      expect(stored.map((d) => d.text)).toEqual(docs.map((d) => d.text));
    } finally {
      await db.remove();
    }
  });

  it('reports each refused document of any chunk, and writes the rest', async () => {
    const db = await notesDatabase(10);
    try {
      await db.notes.insert({ id: 'n015', text: 'already here' });
      await db.notes.insert({ id: 'n042', text: 'already here' });
      const docs = Array.from({ length: 50 }, (_, i) => ({ id: `n${String(i).padStart(3, '0')}`, text: `note ${i}` }));
      const result = await db.notes.bulkInsert(docs);
      expect(writes).toEqual([1, 1, 10, 10, 10, 10, 10]);
      expect(result.error.map((e) => e.documentId).sort()).toEqual(['n015', 'n042']);
      expect(result.error.every((e) => e.status === 409)).toBe(true);
      expect(await db.notes.count().exec()).toBe(50);
      expect((await db.notes.findOne('n015').exec())!.text).toBe('already here');
    } finally {
      await db.remove();
    }
  });
});
