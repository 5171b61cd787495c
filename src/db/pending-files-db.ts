import { Dexie, type EntityTable } from 'dexie';

/** What every waiting post holds, whatever else the feed keeps with it (src/features/feed/pending-files.ts). */
export interface WaitingPostRecord {
  id: string;
  userId: string;
  createdAt: number;
  files: { blob: Blob }[];
}

/**
 * The IndexedDB database of posts waiting for their files (src/features/feed/pending-files.ts); kept work reads and
 * restores it too (decision 114). Dexie is loaded only when it is opened, so the feed renders without it (decision 97).
 */
export class PendingFilesDatabase<T extends WaitingPostRecord = WaitingPostRecord> extends Dexie {
  posts!: EntityTable<T, 'id'>;
  constructor(name: string, options?: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange }) {
    super(name, options);
    this.version(1).stores({ posts: 'id, userId, createdAt' });
  }
}
