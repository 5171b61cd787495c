import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResidentView } from '../schema/residents';
import type { UploadView } from '../schema/uploads';
import { hashFile, ManifestSchema, type Manifest } from './backup';
import { loadConfig } from './config';
import { insertPost } from './features/posts/posts.queries';
import { startServer, type RunningServer } from './server';
import { runCli } from './test/cli';
import { startTestServer, TestClient, type TestServer } from './test/test-server';
import { sqliteOf, statement, inTransaction } from './db/client';

/** Posts already there when the writes begin, so the snapshot takes long enough to overlap them. */
const SEEDED_POSTS = 20_000;

let t: TestServer;
let client: TestClient;
let scratch: string;
let backupFolder: string;
let manifest: Manifest;
/** Ids of the posts acknowledged (2xx) before the backup process was started. */
let ackedBefore: string[];
let ackedDuring: number;
let ackedInAll: number;
let uploaded: { view: UploadView; bytes: Buffer }[];
let resident: ResidentView;

async function seedPosts(authorId: string): Promise<void> {
  const now = Date.now();
  await inTransaction(t, async (t) => {
    for (let i = 0; i < SEEDED_POSTS; i += 1) {
      await insertPost(t.db, {
        id: randomUUID(),
        authorId,
        content: `Seeded post ${i} ${'about the rota and the garden '.repeat(4)}`,
        category: 'company_announcement',
        isUrgent: false,
        houseTags: '[]',
        images: '[]',
        attachments: '[]',
        createdAt: now - (SEEDED_POSTS - i) * 1000,
        writtenAt: now - (SEEDED_POSTS - i) * 1000,
        updatedAt: now - (SEEDED_POSTS - i) * 1000,
        deleted: false,
      });
    }
  });
}

async function upload(name: string, bytes: Buffer): Promise<{ view: UploadView; bytes: Buffer }> {
  const form = new FormData();
  form.append('file', new File([new Uint8Array(bytes)], name));
  const res = await client.postForm('/api/uploads', form);
  expect(res.status).toBe(201);
  const view = res.body as unknown as UploadView;
  return { view, bytes: (await client.download(view.url)).bytes };
}

/** Posts continuously, one at a time, until stopped; each acknowledged id is recorded with its time. */
function startWriter() {
  const acks: { id: string; at: number }[] = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i += 1) {
      const id = randomUUID();
      const res = await client.post('/api/posts', { id, content: `Written under load ${i}`, category: 'wages_hr' });
      if (res.status !== 201) throw new Error(`post ${i} answered ${res.status} ${res.text}`);
      acks.push({ id, at: Date.now() });
      if (i % 25 === 0) await upload(`note-${i}.txt`, Buffer.from(`A note written under load, ${i}\n`));
    }
  })();
  return {
    acks,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

/** npm run backup copies the SQLite file: the PostgreSQL pass has none (it refuses: backup-on-postgres.test.ts). */
const onPostgres = process.env.TEST_DATABASE === 'postgres';

beforeAll(async () => {
  if (onPostgres) return;
  t = await startTestServer();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-backup-'));
  const signedIn = await t.signedIn({ role: 'admin' });
  client = signedIn.client;
  await seedPosts(signedIn.user.id);
  const picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  uploaded = [await upload('rota.png', picture), await upload('minutes.txt', Buffer.from('Minutes of the meeting\n'))];
  const form = new FormData();
  form.append('name', 'Margaret Hale');
  form.append('photo', new File([new Uint8Array(picture)], 'margaret.png'));
  const created = await client.postForm('/api/residents', form);
  expect(created.status).toBe(201);
  resident = created.body as unknown as ResidentView;
  // Something else the app keeps in its folder (the mail outbox without SMTP).
  fs.mkdirSync(path.join(t.dataDir, 'outbox'));
  fs.writeFileSync(path.join(t.dataDir, 'outbox', '1-someone@care.example.eml'), 'Subject: Hello\n\nA mail\n');

  const writer = startWriter();
  while (writer.acks.length < 20) await new Promise((resolve) => setTimeout(resolve, 10));
  ackedBefore = writer.acks.map((ack) => ack.id);
  const started = Date.now();
  const backup = await runCli('server/backup.ts', ['--to', path.join(scratch, 'backups')], { DATA_DIR: t.dataDir });
  const finished = Date.now();
  await new Promise((resolve) => setTimeout(resolve, 200));
  await writer.stop();
  expect(backup.code, backup.stderr).toBe(0);
  backupFolder = /Backup written to (.+)/.exec(backup.stdout)![1].trim();
  manifest = ManifestSchema.parse(JSON.parse(fs.readFileSync(path.join(backupFolder, 'manifest.json'), 'utf8')));
  ackedDuring = writer.acks.filter((ack) => ack.at > started && ack.at < finished).length;
  ackedInAll = writer.acks.length;
}, 120_000);

afterAll(async () => {
  await t?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(onPostgres)('npm run backup while the app is being written to', () => {
  it('writes a timestamped folder with the database, every file and a manifest of sizes and hashes', async () => {
    expect(path.basename(backupFolder)).toMatch(/^staff-portal-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(ackedDuring).toBeGreaterThan(0);
    expect(manifest.appVersion).toBe('0.1.0');
    expect(manifest.schema.latest).toMatch(/^\d{4}_/);
    expect(manifest.files[0].path).toBe('staff-portal.db');
    const paths = manifest.files.map((file) => file.path);
    const storedName = statement(t.db, 'select stored_name as name from uploads where id = ?');
    for (const { view } of uploaded) {
      expect(paths).toContain(`uploads/${((await storedName.get([view.id])) as { name: string }).name}`);
    }
    expect(paths).toContain(`resident-photos/${resident.photoUrl!.split('/').pop()}`);
    expect(paths).toContain('outbox/1-someone@care.example.eml');
    expect(paths.some((p) => p.startsWith('server.pid') || p.endsWith('-wal') || p.endsWith('-shm'))).toBe(false);
    expect(manifest.missing).toEqual([]);
    for (const file of manifest.files) {
      expect(await hashFile(path.join(backupFolder, file.path)), file.path).toEqual({
        size: file.size,
        sha256: file.sha256,
      });
    }
    expect(fs.readdirSync(path.dirname(backupFolder)).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });

  it('copies each file byte for byte as the running server stores it', () => {
    for (const file of manifest.files.slice(1)) {
      const copied = fs.readFileSync(path.join(backupFolder, file.path));
      expect(copied.equals(fs.readFileSync(path.join(t.dataDir, file.path))), file.path).toBe(true);
    }
  });
});

describe.skipIf(onPostgres)('npm run restore', () => {
  let restoredDir: string;
  let restored: RunningServer;

  beforeAll(async () => {
    restoredDir = path.join(scratch, 'restored');
    const res = await runCli('server/restore.ts', [backupFolder, '--data-dir', restoredDir]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('the database passes its integrity check');
    restored = await startServer(
      // As the test harness: the session restored is an admin's, signed in with a password (decision 148).
      loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: restoredDir,
        LOG_LEVEL: 'silent',
        ADMIN_TWO_FACTOR: 'optional',
      }),
      { clientDir: path.join(restoredDir, 'no-client') },
    );
  }, 60_000);

  afterAll(async () => {
    await restored?.close();
  });

  it('brings back every post acknowledged before the backup began, and a cut of the writes made during it', () => {
    const sqlite = sqliteOf(restored.deps.db);
    const has = sqlite.prepare('select 1 from posts where id = ?');
    const missing = ackedBefore.filter((id) => !has.get(id));
    expect(missing).toEqual([]);
    const { n } = sqlite.prepare("select count(*) as n from posts where category = 'wages_hr'").get() as { n: number };
    expect(n).toBeGreaterThanOrEqual(ackedBefore.length);
    expect(n).toBeLessThan(ackedInAll);
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(sqlite.pragma('foreign_key_check')).toEqual([]);
  });

  it('serves the restored posts, uploads and photos to a session made before the backup', async () => {
    const again = new TestClient(`http://127.0.0.1:${restored.port}`);
    again.cookie = client.cookie;
    const page = await again.get('/api/posts?limit=5');
    expect(page.status).toBe(200);
    for (const { view, bytes } of uploaded) {
      const served = await again.download(view.url);
      expect(served.status).toBe(200);
      expect(served.bytes.equals(bytes)).toBe(true);
    }
    expect((await again.download(resident.photoUrl!)).status).toBe(200);
  });

  it('restores files identical to the manifest and to the originals', async () => {
    for (const file of manifest.files.slice(1)) {
      const bytes = fs.readFileSync(path.join(restoredDir, file.path));
      expect(bytes.equals(fs.readFileSync(path.join(t.dataDir, file.path))), file.path).toBe(true);
      expect(await hashFile(path.join(restoredDir, file.path))).toEqual({ size: file.size, sha256: file.sha256 });
    }
  });

  it('refuses while a server holds the data folder, and into a folder that is not empty', async () => {
    const live = await runCli('server/restore.ts', [backupFolder, '--data-dir', t.dataDir, '--force']);
    expect(live.code).toBe(1);
    expect(live.stderr).toMatch(/Nothing was restored\. Another Staff Portal server \(process \d+\)/);
    const full = path.join(scratch, 'full');
    fs.mkdirSync(full);
    fs.writeFileSync(path.join(full, 'staff-portal.db'), 'keep me');
    const refused = await runCli('server/restore.ts', [backupFolder, '--data-dir', full]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('is not empty (staff-portal.db)');
    expect(fs.readFileSync(path.join(full, 'staff-portal.db'), 'utf8')).toBe('keep me');
  });

  it('with --force moves the old content aside before restoring', async () => {
    const old = path.join(scratch, 'old');
    fs.mkdirSync(old);
    fs.writeFileSync(path.join(old, 'staff-portal.db'), 'the old database');
    const res = await runCli('server/restore.ts', [backupFolder, '--data-dir', old, '--force']);
    expect(res.code).toBe(0);
    const aside = /previous content to (.+)/.exec(res.stdout)![1].trim();
    expect(fs.readFileSync(path.join(aside, 'staff-portal.db'), 'utf8')).toBe('the old database');
    expect(
      fs
        .readFileSync(path.join(old, 'staff-portal.db'))
        .equals(fs.readFileSync(path.join(backupFolder, 'staff-portal.db'))),
    ).toBe(true);
  });

  it('checks the hashes first and restores nothing from a damaged backup', async () => {
    const damaged = path.join(scratch, 'damaged');
    fs.cpSync(backupFolder, damaged, { recursive: true });
    const victim = manifest.files.find((file) => file.path.startsWith('uploads/'))!;
    const bytes = fs.readFileSync(path.join(damaged, victim.path));
    bytes[bytes.length - 1] ^= 0xff;
    fs.writeFileSync(path.join(damaged, victim.path), bytes);
    const target = path.join(scratch, 'from-damaged');
    const res = await runCli('server/restore.ts', [damaged, '--data-dir', target]);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('does not match its manifest, so nothing was restored');
    expect(res.stderr).toContain(`${victim.path}: content differs from the manifest`);
    expect(fs.existsSync(target)).toBe(false);
  });

  it('says what is wrong with a folder that is not a backup', async () => {
    const res = await runCli('server/restore.ts', [
      path.join(scratch, 'nowhere'),
      '--data-dir',
      path.join(scratch, 'x'),
    ]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/is not a Staff Portal backup: it has no manifest\.json/);
    const usage = await runCli('server/restore.ts', []);
    expect(usage.stderr).toContain('Usage: npm run restore -- <backup folder>');
  });
});
