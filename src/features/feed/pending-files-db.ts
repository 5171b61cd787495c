import { Dexie, type EntityTable } from 'dexie';
import type { PendingPost } from './pending-files';

/**
 * The IndexedDB database of posts waiting for their files (pending-files.ts). Dexie is loaded only when it is
 * opened, so the feed renders without it (decision 97: the feed's first paint on a new device).
 */
export class PendingFilesDatabase extends Dexie {
  posts!: EntityTable<PendingPost, 'id'>;
  constructor(name: string, options?: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange }) {
    super(name, options);
    this.version(1).stores({ posts: 'id, userId, createdAt' });
  }
}
