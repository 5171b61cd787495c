import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResidentView } from '../../../schema/residents';
import type { UploadView } from '../../../schema/uploads';
import { fileStorage, readStored, type StoredEntry } from '../../lib/storage';
import { startTestS3 } from '../../test/s3';
import { startTestServer, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

const s3 = await startTestS3();
const sharedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-shared-files-'));

afterAll(async () => {
  await s3?.close();
  fs.rmSync(sharedDir, { recursive: true, force: true });
});

/** A picture big enough to get its card variant. */
const bigPicture = () =>
  sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();

const formWith = (field: string, name: string, bytes: Buffer, fields: Record<string, string> = {}) => {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append(field, new File([new Uint8Array(bytes)], name));
  return form;
};

const storedKeys = async (t: TestServer, area: 'uploads' | 'resident-photos') => {
  const entries: StoredEntry[] = [];
  for await (const entry of fileStorage(t.server.deps.config).list(area)) entries.push(entry);
  return entries.map((entry) => entry.key).sort();
};

const backends: [string, () => Record<string, string> | null][] = [
  ['an S3 bucket', () => s3?.env ?? null],
  ['a shared folder (FILES_DIR)', () => ({ FILES_DIR: sharedDir })],
];

describe.each(backends)('uploads and residents’ photos in %s', (label, settings) => {
  const env = settings();

  it.skipIf(!env)('are stored there, served by the app with the same headers, and erased with their post', async () => {
    const t = await startTestServer(env ?? {});
    try {
      const { client } = await t.signedIn();
      const { client: admin } = await t.signedIn({ role: 'admin' });
      const upload = (await client.postForm('/api/uploads', formWith('file', 'garden.png', await bigPicture())))
        .body as unknown as UploadView;
      const name = (
        (await statement(t.db, 'SELECT stored_name AS name FROM uploads WHERE id = ?').get([upload.id])) as {
          name: string;
        }
      ).name;
      const card = name.replace(/\.png$/, '.card.png');
      expect(await storedKeys(t, 'uploads')).toEqual(expect.arrayContaining([`uploads/${name}`, `uploads/${card}`]));
      // Nothing under the data folder: every server reaches the same files.
      expect(fs.existsSync(path.join(t.dataDir, 'uploads'))).toBe(false);

      const full = await admin.download(upload.url);
      expect(full.status).toBe(200);
      expect(full.bytes).toEqual(await readStored(fileStorage(t.server.deps.config), `uploads/${name}`));
      expect(full.headers.get('content-type')).toBe('image/png');
      expect(full.headers.get('content-length')).toBe(String(full.bytes.length));
      expect(full.headers.get('cache-control')).toBe('private, no-store');
      expect(full.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(full.headers.get('content-disposition')).toContain('inline; filename="garden.png"');
      const small = await admin.download(`${upload.url}?variant=card`);
      expect(small.status).toBe(200);
      expect(small.bytes.length).toBeLessThan(full.bytes.length);
      expect((await t.client().download(upload.url)).status).toBe(401);

      const post = await client.post('/api/posts', { content: 'The garden', images: [upload.url] });
      expect(post.status).toBe(201);
      expect((await admin.delete(`/api/posts/${post.body.id as string}`)).status).toBe(204);
      expect((await admin.download(upload.url)).status).toBe(404);
      // The files go once the delete has committed.
      for (let i = 0; i < 200 && (await storedKeys(t, 'uploads')).includes(`uploads/${name}`); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(await storedKeys(t, 'uploads')).not.toEqual(expect.arrayContaining([`uploads/${name}`]));
      expect(await storedKeys(t, 'uploads')).not.toEqual(expect.arrayContaining([`uploads/${card}`]));
    } finally {
      await t.close();
    }
  });

  it.skipIf(!env)(
    'are swept there after a day when nothing uses them, with stored files that have no record',
    async () => {
      const t = await startTestServer(env ?? {});
      try {
        const { client } = await t.signedIn();
        const orphan = (await client.postForm('/api/uploads', formWith('file', 'notes.txt', Buffer.from('Notes\n'))))
          .body as unknown as UploadView;
        const storage = fileStorage(t.server.deps.config);
        const stray = `uploads/${'c'.repeat(32)}.png`;
        await storage.put(stray, Buffer.from('left by a crash'));
        await t.server.uploadSweeps.sweep();
        expect(await storage.stat(stray)).not.toBeNull();
        expect((await client.download(orphan.url)).status).toBe(200);

        t.advance(25 * 60 * 60 * 1000);
        const { client: reader } = await t.signedIn();
        expect(await t.server.uploadSweeps.sweep()).toBeGreaterThanOrEqual(2);
        expect(await storage.stat(stray)).toBeNull();
        expect((await reader.download(orphan.url)).status).toBe(404);
        expect(await storedKeys(t, 'uploads')).toEqual([]);
      } finally {
        await t.close();
      }
    },
  );

  it.skipIf(!env)('keep a resident’s photo there, served to staff while the resident is active', async () => {
    const t = await startTestServer(env ?? {});
    try {
      const { client } = await t.signedIn();
      const { client: admin } = await t.signedIn({ role: 'admin' });
      const photo = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#446688' } })
        .jpeg()
        .toBuffer();
      const created = await client.postForm(
        '/api/residents',
        formWith('photo', 'face.jpg', photo, { name: `Resident in ${label}` }),
      );
      expect(created.status).toBe(201);
      const resident = created.body as unknown as ResidentView;
      const key = `resident-photos/${resident.photoUrl?.split('/').pop() ?? ''}`;
      expect(await storedKeys(t, 'resident-photos')).toContain(key);
      expect(fs.existsSync(path.join(t.dataDir, 'resident-photos'))).toBe(false);
      const served = await client.download(resident.photoUrl ?? '');
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe('image/jpeg');
      expect(served.headers.get('cache-control')).toBe('private, no-store');
      expect(served.bytes).toEqual(await readStored(fileStorage(t.server.deps.config), key));
      expect((await admin.post(`/api/residents/${resident.id}/archive`)).status).toBe(200);
      expect((await client.download(resident.photoUrl ?? '')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
