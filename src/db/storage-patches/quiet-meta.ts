import type { RxStorage } from 'rxdb';
import { NEVER } from 'rxjs';

/** How RxDB's replication plugin names the collection of a replication's meta (its assumed master states). */
export const REPLICATION_META_PREFIX = 'rx-replication-meta-';

/**
 * A storage whose replication meta instances tell no one about their writes (decision 93). Every pulled document
 * writes one meta entry, and each write's events went out twice, a copy of every document each time: to other
 * tabs over a BroadcastChannel (storage-dexie's multi-instance support) and, from the storage worker, back to the
 * page (storage-remote sends every instance's change stream). Nothing reads them: RxDB's replication reads its
 * meta by id and subscribes to the changes of the documents' instance only, and a tab that takes over the
 * replication (decision 115) reads the meta from IndexedDB. The documents' own instances keep both, so other tabs
 * and the page's queries still follow.
 */
export function quietReplicationMeta<Internals, Options>(storage: RxStorage<Internals, Options>) {
  const wrapped: RxStorage<Internals, Options> = {
    name: storage.name,
    rxdbVersion: storage.rxdbVersion,
    async createStorageInstance(params) {
      if (!params.collectionName.startsWith(REPLICATION_META_PREFIX)) return storage.createStorageInstance(params);
      const instance = await storage.createStorageInstance({ ...params, multiInstance: false });
      instance.changeStream = () => NEVER;
      return instance;
    },
  };
  return wrapped;
}
