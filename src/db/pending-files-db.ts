import { Dexie, type EntityTable } from 'dexie';

/** What every waiting post holds, whatever else the feed keeps with it (src/features/feed/pending-files.ts). */
export interface WaitingPostRecord {
  id: string;
  userId: string;
  createdAt: number;
  files: { blob: Blob }[];
}

/**
 * A new photo of a resident chosen on the device, waiting to be sent (src/features/residents/pending-photos.ts,
 * decision 123). Its id is the key the server stores it under, so a photo sent twice is stored once.
 */
export interface WaitingPhotoRecord {
  id: string;
  residentId: string;
  userId: string;
  createdAt: number;
  /** The profile's `updatedAt` as the form showed it: the server merges the photo from that version. */
  baseUpdatedAt: number;
  name: string;
  blob: Blob;
  /** The server refused the photo (not a picture, too large, the resident archived): the user decides. */
  error: string | null;
}

/**
 * A chat message written with photos or files, waiting for them to upload before it goes into the local store
 * (src/features/chat/waiting-messages.ts, decision 150).
 */
export interface WaitingMessageRecord {
  id: string;
  userId: string;
  conversationId: string;
  createdAt: number;
  files: { blob: Blob }[];
}

/**
 * The IndexedDB database of posts waiting for their files and of residents' photos waiting to be sent; kept work
 * reads and restores it too (decision 114). Dexie is loaded only when it is opened, so the feed renders without it
 * (decision 97).
 */
export class PendingFilesDatabase<T extends WaitingPostRecord = WaitingPostRecord> extends Dexie {
  posts!: EntityTable<T, 'id'>;
  residentPhotos!: EntityTable<WaitingPhotoRecord, 'id'>;
  messages!: EntityTable<WaitingMessageRecord, 'id'>;
  constructor(name: string, options?: { indexedDB?: IDBFactory; IDBKeyRange?: typeof IDBKeyRange }) {
    super(name, options);
    this.version(1).stores({ posts: 'id, userId, createdAt' });
    this.version(2).stores({ residentPhotos: 'id, userId, residentId, createdAt' });
    // Chat messages waiting for their files (decision 150).
    this.version(3).stores({ messages: 'id, userId, conversationId, createdAt' });
  }
}
