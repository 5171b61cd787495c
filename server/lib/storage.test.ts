import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config';
import { startTestS3 } from '../test/s3';
import { PART_BYTES } from './storage-s3';
import {
  checkFileStorage,
  fileStorage,
  folderStorage,
  StorageError,
  readStored,
  type FileStorage,
  type StoredEntry,
} from './storage';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-storage-'));
const s3 = await startTestS3();

afterAll(async () => {
  await s3?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const name = (ext = 'png') => `${randomBytes(16).toString('hex')}.${ext}`;

const listed = async (storage: FileStorage, area: 'uploads' | 'resident-photos') => {
  const entries: StoredEntry[] = [];
  for await (const entry of storage.list(area)) entries.push(entry);
  return entries;
};

/** A stream that sends its first chunk, then waits until `release` is called, then sends the rest or fails. */
function heldStream(first: Buffer, rest: Buffer) {
  let release: (outcome: 'finish' | 'fail') => void = () => undefined;
  const outcome = new Promise<'finish' | 'fail'>((resolve) => (release = resolve));
  async function* chunks() {
    yield first;
    if ((await outcome) === 'fail') throw new Error('The client went away');
    yield rest;
  }
  return { stream: Readable.from(chunks()), release: (how: 'finish' | 'fail') => release(how) };
}

/** Waits until `check` holds (a write reaching its store), at most a generous while on a loaded machine. */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400 && !(await check()); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
}

const backends: [string, () => FileStorage][] = [
  ['a folder', () => folderStorage(path.join(root, 'files'))],
  ['an S3 bucket', () => fileStorage(loadConfig({ DATA_DIR: root, ...s3?.env }))],
];

describe.each(backends)('file storage in %s', (label, open) => {
  const skip = label === 'an S3 bucket' && !s3;
  let storage: FileStorage;
  beforeAll(() => {
    if (!skip) storage = open();
  });

  it.skipIf(skip)('stores a file, answers it with its size, lists it and erases it', async () => {
    const key = `uploads/${name()}`;
    const bytes = randomBytes(3000);
    await storage.put(key, bytes);
    const file = await storage.get(key);
    expect(file?.size).toBe(3000);
    expect(await readStored(storage, key)).toEqual(bytes);
    expect((await storage.stat(key))?.size).toBe(3000);
    expect((await listed(storage, 'uploads')).map((entry) => entry.key)).toContain(key);
    expect((await listed(storage, 'resident-photos')).map((entry) => entry.key)).not.toContain(key);
    // Consumed the first answer's stream, so no file handle stays open.
    for await (const _chunk of file?.stream ?? []) void _chunk;

    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    expect(await storage.stat(key)).toBeNull();
    expect((await listed(storage, 'uploads')).map((entry) => entry.key)).not.toContain(key);
  });

  it.skipIf(skip)('answers null for a missing file, and erasing it again is no error', async () => {
    const key = `resident-photos/${name('jpg')}`;
    expect(await storage.get(key)).toBeNull();
    expect(await storage.stat(key)).toBeNull();
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it.skipIf(skip)('refuses a key the app would not make, so nothing outside its areas is reached', async () => {
    for (const key of ['uploads/../../etc/passwd', '../x.png', 'other/abc.png', 'uploads/a/b.png', 'uploads/A.png']) {
      await expect(storage.get(key)).rejects.toThrow('Not a storage key');
      await expect(storage.put(key, Buffer.from('x'))).rejects.toThrow('Not a storage key');
      await expect(storage.delete(key)).rejects.toThrow('Not a storage key');
    }
  });

  it.skipIf(skip)('never shows a file half-written: nothing until all of it is stored', async () => {
    const key = `uploads/${name()}`;
    // More than two parts of an object store's multipart upload come before the pause (PART_BYTES).
    const first = randomBytes(2 * PART_BYTES + 1024);
    const rest = randomBytes(64 * 1024);
    const held = heldStream(first, rest);
    const writing = storage.put(key, held.stream);
    // The first chunk is being written: neither a reader nor the list sees any of it.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await storage.get(key)).toBeNull();
    expect(await storage.stat(key)).toBeNull();
    expect((await listed(storage, 'uploads')).map((entry) => entry.key)).not.toContain(key);
    held.release('finish');
    await writing;
    const stored = await readStored(storage, key);
    expect(stored?.length).toBe(first.length + rest.length);
    // Compared by hash: a failing comparison of megabytes would print them all.
    expect(sha256(stored ?? Buffer.alloc(0))).toBe(sha256(Buffer.concat([first, rest])));
  });

  it.skipIf(skip)('leaves nothing of a write that fails half-way', async () => {
    const key = `uploads/${name()}`;
    const held = heldStream(randomBytes(2 * PART_BYTES + 1024), randomBytes(64 * 1024));
    const before = await listed(storage, 'uploads');
    const writing = storage.put(key, held.stream);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    held.release('fail');
    await expect(writing).rejects.toThrow();
    await until(async () => (await storage.stat(key)) === null);
    expect(await storage.get(key)).toBeNull();
    expect((await listed(storage, 'uploads')).map((entry) => entry.key).sort()).toEqual(
      before.map((entry) => entry.key).sort(),
    );
  });

  it.skipIf(skip)('streams a large file in and out in chunks, whole', async () => {
    const key = `uploads/${name('pdf')}`;
    const chunk = randomBytes(1024 * 1024);
    const count = 40;
    async function* source() {
      for (let i = 0; i < count; i += 1) yield chunk;
    }
    await storage.put(key, Readable.from(source()));
    const file = await storage.get(key);
    expect(file?.size).toBe(chunk.length * count);
    const expected = createHash('sha256');
    for (let i = 0; i < count; i += 1) expected.update(chunk);
    const actual = createHash('sha256');
    let chunks = 0;
    let largest = 0;
    // A file's stream yields Buffers.
    for await (const part of (file?.stream ?? []) as AsyncIterable<Buffer>) {
      actual.update(part);
      chunks += 1;
      largest = Math.max(largest, part.length);
    }
    expect(actual.digest('hex')).toBe(expected.digest('hex'));
    // Read as it comes, never held whole.
    expect(chunks).toBeGreaterThan(10);
    expect(largest).toBeLessThan(8 * 1024 * 1024);
    await storage.delete(key);
  });
});

describe('the check at start', () => {
  it('passes for a folder it can make and a bucket that answers', async () => {
    await expect(
      checkFileStorage(loadConfig({ FILES_DIR: path.join(root, 'made-at-start') })),
    ).resolves.toBeUndefined();
    expect(fs.existsSync(path.join(root, 'made-at-start', 'uploads'))).toBe(true);
    if (s3) await expect(checkFileStorage(loadConfig(s3.env))).resolves.toBeUndefined();
  });

  it('removes temporary files a crash left a day ago in a folder, and keeps a write under way', async () => {
    const dir = path.join(root, 'after-a-crash');
    fs.mkdirSync(path.join(dir, 'uploads'), { recursive: true });
    const left = path.join(dir, 'uploads', '.partial-0123456789abcdef');
    const writing = path.join(dir, 'uploads', '.partial-fedcba9876543210');
    fs.writeFileSync(left, 'half a file');
    fs.writeFileSync(writing, 'half a file');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    fs.utimesSync(left, twoDaysAgo, twoDaysAgo);
    await checkFileStorage(loadConfig({ FILES_DIR: dir }));
    expect(fs.existsSync(left)).toBe(false);
    expect(fs.existsSync(writing)).toBe(true);
  });

  it('names the folder that cannot be made', async () => {
    const file = path.join(root, 'a-file');
    fs.writeFileSync(file, 'not a folder');
    await expect(checkFileStorage(loadConfig({ FILES_DIR: file }))).rejects.toThrow(
      new StorageError(
        `Uploads and photos cannot be kept in the folder ${file} (Error: ENOTDIR: not a directory, mkdir '${file}/uploads').`,
      ),
    );
  });

  it.skipIf(!s3)('names a bucket that is not there', async () => {
    const check = checkFileStorage(loadConfig({ ...s3?.env, S3_BUCKET: 'no-such-bucket' }));
    await expect(check).rejects.toThrow(StorageError);
    await expect(check).rejects.toThrow(
      /^Uploads and photos cannot be kept in the bucket no-such-bucket at http:\/\/127\.0\.0\.1:\d+ \(NotFound/,
    );
  });
});

describe('the storage settings', () => {
  it('keep files under DATA_DIR unless FILES_DIR names another folder', () => {
    expect(loadConfig({ DATA_DIR: '/srv/data' }).files).toEqual({ kind: 'folder', dir: '/srv/data' });
    expect(loadConfig({ DATA_DIR: '/srv/data', FILES_DIR: '/mnt/shared' }).files).toEqual({
      kind: 'folder',
      dir: '/mnt/shared',
    });
  });

  it('name a bucket with its endpoint, region, keys and path style', () => {
    const files = loadConfig({
      S3_BUCKET: 'care-files',
      S3_ENDPOINT: 'https://minio.example.org:9000',
      S3_REGION: 'eu-west-2',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
      S3_FORCE_PATH_STYLE: 'true',
    }).files;
    expect(files).toEqual({
      kind: 's3',
      bucket: 'care-files',
      endpoint: 'https://minio.example.org:9000',
      region: 'eu-west-2',
      forcePathStyle: true,
      credentials: { accessKeyId: 'id', secretAccessKey: 'secret' },
    });
    expect(loadConfig({ S3_BUCKET: 'care-files' }).files).toMatchObject({
      region: 'us-east-1',
      credentials: undefined,
    });
  });

  it.each([
    [{ S3_BUCKET: 'a' }, 'S3_BUCKET: must be a bucket name'],
    [{ S3_BUCKET: 'care-files', FILES_DIR: '/mnt/x' }, 'FILES_DIR: FILES_DIR and S3_BUCKET cannot both be set'],
    [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'S3_ENDPOINT: S3_ENDPOINT needs S3_BUCKET'],
    [{ S3_BUCKET: 'care-files', S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT: must start with http:// or https://'],
    [{ S3_BUCKET: 'care-files', S3_ACCESS_KEY_ID: 'id' }, 'S3_SECRET_ACCESS_KEY: S3_ACCESS_KEY_ID and'],
    [{ S3_BUCKET: 'care-files', S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE: must be true or false'],
  ])('refuse to start with %j, naming the key', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
