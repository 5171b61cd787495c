import { IDBKeyRange, IDBObjectStore, indexedDB } from 'fake-indexeddb';
import Dexie from 'dexie';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PROBE_FROM_KEYS, usePresentKeysFirst } from './present-keys-first';

interface Doc {
  id: string;
  n: number;
}

const opened: Dexie[] = [];

async function openTable(withMiddleware: boolean, docs: Doc[]) {
  const db = new Dexie(`present-keys-${Math.random()}`, { indexedDB, IDBKeyRange });
  if (withMiddleware) usePresentKeysFirst(db);
  db.version(1).stores({ docs: 'id, n' });
  await db.open();
  await db.table<Doc, string>('docs').bulkPut(docs);
  opened.push(db);
  return db.table<Doc, string>('docs');
}

afterEach(async () => {
  for (const db of opened.splice(0)) await db.delete();
  vi.restoreAllMocks();
});

const stored = Array.from({ length: 60 }, (_, i) => ({ id: `doc-${String(i * 2).padStart(3, '0')}`, n: i }));
/** Present and missing keys mixed, out of order, one asked twice, and keys beyond both ends of what is stored. */
const asked = [
  'doc-007',
  'doc-010',
  'aaa',
  ...Array.from({ length: 30 }, (_, i) => `doc-${String(i * 3).padStart(3, '0')}`),
  'doc-010',
  'zzz',
];

describe('reading many documents by key', () => {
  it('answers exactly what one read per key answers, in the order asked', async () => {
    const plain = await openTable(false, stored);
    const probed = await openTable(true, stored);
    const expected = await plain.bulkGet(asked);
    expect(expected.filter(Boolean).length).toBeGreaterThan(5);
    expect(expected.filter((doc) => doc === undefined).length).toBeGreaterThan(5);
    expect(await probed.bulkGet(asked)).toEqual(expected);
    // Few keys take the plain path and still answer the same.
    expect(await probed.bulkGet(asked.slice(0, PROBE_FROM_KEYS - 1))).toEqual(
      await plain.bulkGet(asked.slice(0, PROBE_FROM_KEYS - 1)),
    );
  });

  it('sees the writes of its own transaction', async () => {
    const probed = await openTable(true, stored);
    const ids = Array.from({ length: 40 }, (_, i) => `new-${i}`);
    await probed.db.transaction('rw', probed, async () => {
      await probed.put({ id: 'new-7', n: 7 });
      const found = await probed.bulkGet(ids);
      expect(found.map((doc) => doc?.id ?? null)).toEqual(ids.map((id) => (id === 'new-7' ? 'new-7' : null)));
    });
  });

  it('lists the keys once instead of reading each missing one', async () => {
    const probed = await openTable(true, stored);
    const get = vi.spyOn(IDBObjectStore.prototype, 'get');
    const getAllKeys = vi.spyOn(IDBObjectStore.prototype, 'getAllKeys');
    const missing = Array.from({ length: 100 }, (_, i) => `doc-${String(i * 2 + 1).padStart(3, '0')}`);
    expect((await probed.bulkGet(missing)).every((doc) => doc === undefined)).toBe(true);
    expect(getAllKeys).toHaveBeenCalledTimes(1);
    expect(get).not.toHaveBeenCalled();
  });
});
