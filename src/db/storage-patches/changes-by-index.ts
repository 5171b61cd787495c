import {
  getPrimaryFieldOfPrimaryKey,
  type RxDocumentData,
  type RxStorage,
  type RxStorageDefaultCheckpoint,
  type RxStorageInstance,
} from 'rxdb';
import { fromDexieToStorage, type RxStorageInstanceDexie } from 'rxdb/plugins/storage-dexie';

type AnyInstance = RxStorageInstance<unknown, unknown, unknown, RxStorageDefaultCheckpoint>;

/**
 * RxDB finds what changed since a checkpoint `(write time, id)` with a query whose index range starts at the
 * write time, so it steps over every document of that write with a smaller id before the first one it wants.
 * A write during a first sync holds thousands of documents, and RxDB's push side asks this after each of them
 * and at every RESYNC (decisions 75 and 82). Asked straight from the `[_meta.lwt+id]` index that storage-dexie
 * keeps for this query, the range starts just after the checkpoint: same documents, same order, same checkpoint.
 */
export function withChangesFromIndex<Internals, Options>(storage: RxStorage<Internals, Options>) {
  const wrapped: RxStorage<Internals, Options> = {
    name: storage.name,
    rxdbVersion: storage.rxdbVersion,
    async createStorageInstance(params) {
      const instance = await storage.createStorageInstance(params);
      const primary = getPrimaryFieldOfPrimaryKey(params.schema.primaryKey as never) as string;
      // The storage is storage-dexie's (database.ts); its instances expose their Dexie table.
      const { internals } = instance as unknown as RxStorageInstanceDexie<unknown>;
      const changes: AnyInstance['getChangedDocumentsSince'] = async (limit, checkpoint) => {
        const { dexieTable, booleanIndexes } = await internals;
        const index = `[_meta.lwt+${primary}]`;
        const rows = await (
          checkpoint ? dexieTable.where(index).above([checkpoint.lwt, checkpoint.id]) : dexieTable.orderBy(index)
        )
          .limit(limit)
          .toArray();
        const documents = rows.map((row: unknown) =>
          fromDexieToStorage(booleanIndexes, row),
        ) as RxDocumentData<never>[];
        const last = documents.at(-1) as (Record<string, unknown> & { _meta: { lwt: number } }) | undefined;
        return {
          documents,
          checkpoint: last ? { id: String(last[primary]), lwt: last._meta.lwt } : (checkpoint ?? { id: '', lwt: 0 }),
        };
      };
      (instance as unknown as AnyInstance).getChangedDocumentsSince = changes;
      return instance;
    },
  };
  return wrapped;
}
