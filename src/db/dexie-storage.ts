import type { RxStorage } from 'rxdb';
import { getRxStorageDexie } from 'rxdb/plugins/storage-dexie';
import { withChangesFromIndex } from './storage-patches/changes-by-index';
import { useLeanIndexes } from './storage-patches/lean-indexes';
import { usePresentKeysFirst } from './storage-patches/present-keys-first';
import { quietReplicationMeta } from './storage-patches/quiet-meta';

export type DexieSettings = NonNullable<Parameters<typeof getRxStorageDexie>[0]>;

/**
 * storage-dexie with this app's patches (src/db/storage-patches/README.md): two read paths (decisions 80 and 82),
 * without the indexes it never reads (decision 91), and with replication meta that tells no one of its writes
 * (decision 93). Used in the page by tests (fake-indexeddb)
 * and inside the storage worker in the browser (decision 88).
 */
export function dexieStorage(
  env: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange } = {},
): RxStorage<unknown, DexieSettings> {
  // Only defined keys: Dexie merges options over its defaults, so an explicit undefined would erase them.
  const settings: DexieSettings = {
    onCreate: (db, dexieDbName) => {
      usePresentKeysFirst(db);
      useLeanIndexes(db, dexieDbName);
    },
  };
  if (env.indexedDB) settings.indexedDB = env.indexedDB;
  if (env.IDBKeyRange) settings.IDBKeyRange = env.IDBKeyRange;
  return quietReplicationMeta(withChangesFromIndex(getRxStorageDexie(settings)));
}
