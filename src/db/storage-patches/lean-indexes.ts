import type { Dexie } from 'dexie';
import { REPLICATION_META_PREFIX } from './quiet-meta';

/** How storage-dexie names the database of a replication's meta instance: `…--<schema version>--<collection>`. */
const REPLICATION_META = `--${REPLICATION_META_PREFIX}`;
/** storage-dexie's index on the write time alone: only its `cleanup()` reads it, and this app never calls that. */
const CLEANUP_INDEX = '_meta.lwt';

/**
 * The IndexedDB indexes of one of storage-dexie's `docs` tables that this app reads (decision 91), from the
 * schema string storage-dexie declares: the primary key first, then its indexes.
 *
 * - Every table loses the index on `_meta.lwt` alone, which storage-dexie adds for `cleanup()` only.
 * - A replication's meta table keeps its primary key only: RxDB reads replication meta by id and never queries
 *   it, and every pulled document writes one meta entry, so each index there costs one more IndexedDB entry per
 *   document in a first sync.
 *
 * Each index entry is a write in the browser's IndexedDB backend, which a first sync keeps busy: the first sync
 * of the bench's 31,000 documents wrote ten entries per post or comment before, six now.
 */
export function leanDocsSchema(dexieDbName: string, docs: string): string {
  const [primaryKey, ...indexes] = docs.split(',').map((part) => part.trim());
  if (dexieDbName.includes(REPLICATION_META)) return primaryKey;
  return [primaryKey, ...indexes.filter((index) => index !== CLEANUP_INDEX)].join(', ');
}

/**
 * Makes storage-dexie declare the lean indexes for one of its databases (its `onCreate` setting, which runs
 * before it declares its tables). A database made before keeps its indexes: Dexie opens it as it is, and
 * IndexedDB keeps maintaining an index nobody reads, so nothing changes for a device that already synced.
 */
export function useLeanIndexes(db: Dexie, dexieDbName: string): void {
  const version = db.version.bind(db);
  db.version = (versionNumber: number) => {
    const declared = version(versionNumber);
    const stores = declared.stores.bind(declared);
    declared.stores = (schema) =>
      stores(
        Object.fromEntries(
          Object.entries(schema).map(([table, tableSchema]) => [
            table,
            table === 'docs' && typeof tableSchema === 'string'
              ? leanDocsSchema(dexieDbName, tableSchema)
              : tableSchema,
          ]),
        ),
      );
    return declared;
  };
}
