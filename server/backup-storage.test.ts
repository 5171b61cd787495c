import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResidentView } from '../schema/residents';
import type { UploadView } from '../schema/uploads';
import { ManifestSchema } from './backup';
import { loadConfig } from './config';
import { fileStorage, readStored } from './lib/storage';
import { startServer } from './server';
import { runCli } from './test/cli';
import { startTestS3 } from './test/s3';
import { startTestServer, TestClient } from './test/test-server';
import { statement } from './db/client';

const s3 = await startTestS3();
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-backup-storage-'));

afterAll(async () => {
  await s3?.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

const backends: [string, () => Record<string, string> | null][] = [
  ['an S3 bucket', () => s3?.env ?? null],
  ['a folder outside the data folder (FILES_DIR)', () => ({ FILES_DIR: path.join(scratch, 'shared-files') })],
];

describe.each(backends)('npm run backup and restore with uploads and photos in %s', (_label, settings) => {
  const env = settings();

  // npm run backup copies the SQLite file: the PostgreSQL pass has none (it refuses: backup-on-postgres.test.ts).
  it.skipIf(!env || process.env.TEST_DATABASE === 'postgres')(
    'copy them into the backup, and put them back where the settings say',
    async () => {
      const t = await startTestServer(env ?? {});
      const scratchOf = fs.mkdtempSync(path.join(scratch, 'run-'));
      try {
        const { client } = await t.signedIn();
        const picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
          .png()
          .toBuffer();
        const uploadForm = new FormData();
        uploadForm.append('file', new File([new Uint8Array(picture)], 'rota.png'));
        const upload = (await client.postForm('/api/uploads', uploadForm)).body as unknown as UploadView;
        const residentForm = new FormData();
        residentForm.append('name', 'Margaret Hale');
        residentForm.append('photo', new File([new Uint8Array(picture)], 'margaret.png'));
        const resident = (await client.postForm('/api/residents', residentForm)).body as unknown as ResidentView;
        const storage = fileStorage(t.server.deps.config);
        const storedName = (
          (await statement(t.db, 'select stored_name as name from uploads where id = ?').get([upload.id])) as {
            name: string;
          }
        ).name;
        const keys = [`uploads/${storedName}`, `resident-photos/${resident.photoUrl?.split('/').pop() ?? ''}`];
        const originals = await Promise.all(keys.map((key) => readStored(storage, key)));

        const backup = await runCli('server/backup.ts', ['--to', path.join(scratchOf, 'backups')], {
          DATA_DIR: t.dataDir,
          ...env,
        });
        expect(backup.code, backup.stderr).toBe(0);
        const folder = /Backup written to (.+)/.exec(backup.stdout)![1].trim();
        const manifest = ManifestSchema.parse(JSON.parse(fs.readFileSync(path.join(folder, 'manifest.json'), 'utf8')));
        expect(manifest.files.map((file) => file.path)).toEqual(expect.arrayContaining(keys));
        expect(manifest.missing).toEqual([]);
        keys.forEach((key, i) => expect(fs.readFileSync(path.join(folder, key)).equals(originals[i]!), key).toBe(true));

        // The store loses them; the restore puts them back there, and the database into a new data folder.
        for (const key of keys) await storage.delete(key);
        const restoredDir = path.join(scratchOf, 'restored');
        const restore = await runCli('server/restore.ts', [folder, '--data-dir', restoredDir], env ?? {});
        expect(restore.code, restore.stderr).toBe(0);
        expect(restore.stdout).toContain(`2 uploads and photos put into ${storage.description}`);
        for (const [i, key] of keys.entries())
          expect((await readStored(storage, key))?.equals(originals[i]!)).toBe(true);
        expect(fs.existsSync(path.join(restoredDir, 'uploads'))).toBe(false);

        const restored = await startServer(
          loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: restoredDir, LOG_LEVEL: 'silent', ...env }),
          { clientDir: path.join(restoredDir, 'no-client') },
        );
        try {
          const again = new TestClient(`http://127.0.0.1:${restored.port}`);
          again.cookie = client.cookie;
          expect((await again.download(upload.url)).bytes.equals(originals[0]!)).toBe(true);
          expect((await again.download(resident.photoUrl ?? '')).status).toBe(200);
        } finally {
          await restored.close();
        }
      } finally {
        await t.close();
      }
    },
    60_000,
  );
});
