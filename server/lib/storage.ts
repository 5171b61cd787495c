import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Config } from '../config';

/**
 * Where uploads and residents' photos are kept (decision 153): a folder (FILES_DIR, which may be a mount several
 * servers share) or an S3-compatible bucket. Keys are `<area>/<name>`; nothing else in the server touches them.
 */
export interface FileStorage {
  /** Says where the files are, for logs and the backup's messages (never a secret). */
  readonly description: string;
  /** Stores a whole file at once: a reader, on this server or another, sees all of it or none (decision 153). */
  put(key: string, body: StorageBody): Promise<void>;
  /** The file's bytes as a stream, with its size; null when there is none. */
  get(key: string): Promise<StoredFile | null>;
  /** The file's size and time; null when there is none. */
  stat(key: string): Promise<StoredEntry | null>;
  /** Removes the file, if it is there (erasure: nothing of it stays readable through the store). */
  delete(key: string): Promise<void>;
  /** Every stored file of one area, in no particular order. */
  list(area: StorageArea): AsyncIterable<StoredEntry>;
  /** Throws unless the store can be reached and written to (the folder exists or is made; the bucket answers). */
  check(): Promise<void>;
}

/** A whole file, or a stream of one (read as it comes, never held whole). */
export type StorageBody = Buffer | Readable;

export interface StoredEntry {
  key: string;
  size: number;
  /** Milliseconds since 1970: when it was stored. */
  modifiedAt: number;
}

export interface StoredFile {
  size: number;
  stream: Readable;
}

/** The areas of the store: the feed's and chat's uploads, and residents' photos (apart, as health data). */
export const STORAGE_AREAS = ['uploads', 'resident-photos'] as const;
export type StorageArea = (typeof STORAGE_AREAS)[number];

/** Names the app makes: random hex, an optional `.card`, an extension; never a path. */
const KEY_PATTERN = /^(uploads|resident-photos)\/[a-z0-9]+(\.card)?\.[a-z0-9]+$/;

/** Whether a key is one the app makes. */
export const isStorageKey = (key: string): boolean => KEY_PATTERN.test(key);

/** Refuses any key the app would not make, so no caller can reach outside an area. */
export function checkKey(key: string): string {
  if (!isStorageKey(key)) throw new Error(`Not a storage key: ${JSON.stringify(key)}`);
  return key;
}

/** The key of a file in an area. */
export const storageKey = (area: StorageArea, name: string): string => checkKey(`${area}/${name}`);

/** Temporary files of writes under way start with this, and are never listed, served or backed up. */
const PARTIAL_PREFIX = '.partial-';
/** A temporary file older than this was left by a crash: the check at start removes it. */
const STALE_PARTIAL_MS = 24 * 60 * 60 * 1000;

/**
 * Files in a folder: `<dir>/<area>/<name>`, mode 0640. A write goes to a temporary file in the same folder, is
 * flushed to disk, then renamed over the name: a rename is atomic, on NFS too, so no reader sees half a file.
 */
export function folderStorage(dir: string): FileStorage {
  const root = path.resolve(dir);
  const fileOf = (key: string) => path.join(root, ...checkKey(key).split('/'));
  const statOf = async (key: string): Promise<StoredEntry | null> => {
    const stat = await fs.promises.stat(fileOf(key)).catch(() => null);
    return stat?.isFile() ? { key, size: stat.size, modifiedAt: stat.mtimeMs } : null;
  };
  return {
    description: `the folder ${root}`,
    async put(key, body) {
      const file = fileOf(key);
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      const partial = path.join(path.dirname(file), `${PARTIAL_PREFIX}${randomBytes(8).toString('hex')}`);
      try {
        const handle = await fs.promises.open(partial, 'wx', 0o640);
        try {
          if (Buffer.isBuffer(body)) await handle.writeFile(body);
          // A byte stream (no object mode) yields Buffers.
          else for await (const chunk of body as AsyncIterable<Buffer>) await handle.write(chunk);
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.promises.rename(partial, file);
      } catch (error) {
        await fs.promises.rm(partial, { force: true });
        throw error;
      }
    },
    async get(key) {
      const handle = await fs.promises.open(fileOf(key), 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'EISDIR') return null;
        throw error;
      });
      if (!handle) return null;
      // Opened first, sized from the open file: a delete meanwhile cannot cut the answer short.
      const stat = await handle.stat();
      if (!stat.isFile()) {
        await handle.close();
        return null;
      }
      return { size: stat.size, stream: handle.createReadStream() };
    },
    stat: statOf,
    async delete(key) {
      await fs.promises.rm(fileOf(key), { force: true });
    },
    async check() {
      for (const area of STORAGE_AREAS) {
        const dir = path.join(root, area);
        await fs.promises.mkdir(dir, { recursive: true });
        // Temporary files a crash left; a day old, so none is another server's write under way.
        for (const name of await fs.promises.readdir(dir)) {
          if (!name.startsWith(PARTIAL_PREFIX)) continue;
          const stat = await fs.promises.stat(path.join(dir, name)).catch(() => null);
          if (stat && stat.mtimeMs < Date.now() - STALE_PARTIAL_MS)
            await fs.promises.rm(path.join(dir, name), { force: true });
        }
      }
      await fs.promises.access(root, fs.constants.W_OK);
    },
    async *list(area) {
      const names = await fs.promises.readdir(path.join(root, area)).catch(() => [] as string[]);
      for (const name of names) {
        if (name.startsWith(PARTIAL_PREFIX) || !KEY_PATTERN.test(`${area}/${name}`)) continue;
        const entry = await statOf(`${area}/${name}`);
        if (entry) yield entry;
      }
    },
  };
}

/** Reads a whole stored file (tests, small files); null when there is none. */
export async function readStored(storage: FileStorage, key: string): Promise<Buffer | null> {
  const file = await storage.get(key);
  if (!file) return null;
  const chunks: Buffer[] = [];
  // A file's stream yields Buffers.
  for await (const chunk of file.stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** A stored file as a web stream for a response (Node's web stream type differs from the DOM's only in name). */
export function webStreamOf(file: StoredFile): ReadableStream {
  return Readable.toWeb(file.stream) as ReadableStream; // the same type under Node's and the DOM's names
}

const opened = new WeakMap<Config['files'], FileStorage>();

/**
 * The storage the settings name (decision 153), one per configuration. The S3 client is loaded on first use only:
 * it is large, and a server on a folder never loads it.
 */
export function fileStorage(config: Pick<Config, 'files'>): FileStorage {
  const settings = config.files;
  let storage = opened.get(settings);
  if (!storage) {
    storage = settings.kind === 'folder' ? folderStorage(settings.dir) : lazyS3Storage(settings);
    opened.set(settings, storage);
  }
  return storage;
}

type S3Settings = Extract<Config['files'], { kind: 's3' }>;

/** An S3 storage whose module (and the SDK with it) is imported at its first call. */
function lazyS3Storage(settings: S3Settings): FileStorage {
  let loaded: Promise<FileStorage> | undefined;
  const load = () => (loaded ??= import('./storage-s3').then(({ s3Storage }) => s3Storage(settings)));
  return {
    description: `the bucket ${settings.bucket}${settings.endpoint ? ` at ${settings.endpoint}` : ''}`,
    put: async (key, body) => (await load()).put(key, body),
    get: async (key) => (await load()).get(key),
    stat: async (key) => (await load()).stat(key),
    delete: async (key) => (await load()).delete(key),
    async *list(area) {
      yield* (await load()).list(area);
    },
    check: async () => (await load()).check(),
  };
}

export class StorageError extends Error {}

/** At start: a wrong folder, bucket or key is told at once, not at the first upload (decision 153). */
export async function checkFileStorage(config: Pick<Config, 'files'>): Promise<void> {
  const storage = fileStorage(config);
  try {
    await storage.check();
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new StorageError(`Uploads and photos cannot be kept in ${storage.description} (${reason}).`);
  }
}
