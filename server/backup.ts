/**
 * `npm run backup [-- --to <dir>]`: a consistent copy of a running (or stopped) server's data folder, with a
 * manifest, in a new timestamped folder. Restored by `npm run restore` (server/restore.ts). Decision 80.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { pipeline } from 'node:stream/promises';
import { ConfigError, loadConfig, type FilesConfig } from './config';
import { isCommand } from './lib/command';
import { formFilesDir } from './lib/multipart';
import { MIGRATIONS_DIR, ROOT } from './lib/paths';
import { fileStorage, STORAGE_AREAS, type FileStorage } from './lib/storage';

/** The database file's name inside the data folder (server.ts's databaseFile). */
export const DATABASE_NAME = 'staff-portal.db';
export const MANIFEST_NAME = 'manifest.json';
const LOCK_NAME = 'server.pid';
/** SQLite's companions of the database file: the snapshot replaces them, they are never copied. */
const DATABASE_COMPANIONS = ['-wal', '-shm', '-journal'].map((suffix) => DATABASE_NAME + suffix);

const MIGRATIONS_JOURNAL = path.join(MIGRATIONS_DIR, 'meta', '_journal.json');

const ManifestFileSchema = z.object({
  path: z.string().min(1),
  size: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const ManifestSchema = z.object({
  format: z.literal('staff-portal-backup'),
  formatVersion: z.literal(1),
  createdAt: z.iso.datetime(),
  appVersion: z.string(),
  /** The migrations applied to the copied database: how many, and the newest one's tag. */
  schema: z.object({ migrations: z.number().int().min(0), latest: z.string().nullable() }),
  sourceDataDir: z.string(),
  /** Every file of the backup but the manifest, the database first; paths relative, with forward slashes. */
  files: z.array(ManifestFileSchema).min(1),
  /** Files the database refers to that were already gone from the data folder when they were copied. */
  missing: z.array(z.string()),
});
export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestFile = z.infer<typeof ManifestFileSchema>;

export class BackupError extends Error {}

/** The hash and size of a file, read as a stream (uploads reach 25 MB). */
export async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of fs.createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

/** The migrations this code knows, oldest first, as drizzle's journal lists them. */
export function knownMigrations(): { tag: string; when: number }[] {
  const journal = JSON.parse(fs.readFileSync(MIGRATIONS_JOURNAL, 'utf8')) as {
    entries: { tag: string; when: number }[];
  };
  return journal.entries.map(({ tag, when }) => ({ tag, when }));
}

/** Which migrations a database file has had: drizzle records each one's journal time in __drizzle_migrations. */
export function migrationLevel(sqlite: Database.Database): Manifest['schema'] {
  const table = sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = '__drizzle_migrations'");
  if (!table.get()) return { migrations: 0, latest: null };
  const rows = sqlite.prepare('select created_at as at from __drizzle_migrations order by created_at').all() as {
    at: number;
  }[];
  const newest = rows.at(-1)?.at;
  const tag = knownMigrations().find((m) => m.when === Number(newest))?.tag;
  return { migrations: rows.length, latest: tag ?? (newest === undefined ? null : `unknown (${newest})`) };
}

function appVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Writes a file's data to disk before the backup is called complete. */
function syncPath(target: string): void {
  const fd = fs.openSync(target, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** The regular files under a folder, relative paths with forward slashes; `skip` sees each relative path. */
function listFiles(dir: string, skip: (relative: string, full: string) => boolean, base = dir): string[] {
  if (!fs.existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const relative = path.relative(base, full).split(path.sep).join('/');
    if (skip(relative, full)) continue;
    if (entry.isDirectory()) found.push(...listFiles(full, skip, base));
    else if (entry.isFile()) found.push(relative);
  }
  return found.sort();
}

/** Files the copied database refers to: stored uploads and residents' current photos. */
function referencedFiles(sqlite: Database.Database): string[] {
  const has = (name: string) =>
    Boolean(sqlite.prepare("select 1 from sqlite_master where type = 'table' and name = ?").get(name));
  const files: string[] = [];
  if (has('uploads')) {
    const rows = sqlite.prepare('select stored_name as name from uploads').all() as { name: string }[];
    files.push(...rows.map((row) => `uploads/${row.name}`));
  }
  if (has('residents')) {
    const rows = sqlite.prepare('select photo_url as url from residents where photo_url is not null').all() as {
      url: string;
    }[];
    files.push(...rows.map((row) => `resident-photos/${row.url.split('/').pop()}`));
  }
  return files;
}

/** A folder name that sorts by time and holds no colons (Windows shares, scp). */
function stampName(at: Date): string {
  return `staff-portal-${at.toISOString().replace(/[:.]/g, '-')}`;
}

export interface BackupResult {
  folder: string;
  manifest: Manifest;
}

/**
 * Copies every stored upload and photo through the file storage (a folder or a bucket, decision 153) into the
 * backup under its key (`uploads/<name>`), the layout of a data folder; answers the keys copied.
 */
async function copyStoredFiles(storage: FileStorage, partial: string): Promise<string[]> {
  const copied: string[] = [];
  for (const area of STORAGE_AREAS) {
    for await (const entry of storage.list(area)) {
      const file = await storage.get(entry.key);
      // Removed since it was listed (a replaced picture): nothing the snapshot needs, unless `missing` says so.
      if (!file) continue;
      const target = path.join(partial, ...entry.key.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      await pipeline(file.stream, fs.createWriteStream(target, { flags: 'wx' }));
      syncPath(target);
      copied.push(entry.key);
    }
  }
  return copied;
}

/**
 * Copies the data folder into a new folder under `toDir`. The database is copied first with `VACUUM INTO`,
 * one read transaction, so it is a consistent snapshot however many writes go on meanwhile (WAL readers do
 * not block writers). Then the files: each is written once under a random name and never changed, and a
 * file is stored before the row naming it commits, so every file the snapshot names already exists. Uploads and
 * photos are read through `storedIn` (FILES_DIR or a bucket, decision 153), the rest from the data folder. The
 * folder is built as `<name>.partial` and renamed when the manifest is written: a folder without the suffix
 * is complete.
 */
export async function createBackup(
  dataDir: string,
  toDir: string,
  now = new Date(),
  storedIn: FilesConfig = { kind: 'folder', dir: path.resolve(dataDir) },
): Promise<BackupResult> {
  const databaseFile = path.join(dataDir, DATABASE_NAME);
  if (!fs.existsSync(databaseFile)) {
    throw new BackupError(`There is no Staff Portal database in ${dataDir} (expected ${DATABASE_NAME}).`);
  }
  const folder = path.join(toDir, stampName(now));
  const partial = `${folder}.partial`;
  if (fs.existsSync(folder) || fs.existsSync(partial)) throw new BackupError(`${folder} already exists.`);
  fs.mkdirSync(partial, { recursive: true });
  try {
    const snapshot = path.join(partial, DATABASE_NAME);
    const source = new Database(databaseFile, { fileMustExist: true });
    try {
      source.pragma('busy_timeout = 5000');
      source.prepare('vacuum into ?').run(snapshot);
    } finally {
      source.close();
    }
    syncPath(snapshot);

    const copy = new Database(snapshot, { readonly: true });
    let schema: Manifest['schema'];
    let referenced: string[];
    try {
      schema = migrationLevel(copy);
      referenced = referencedFiles(copy);
    } finally {
      copy.close();
    }

    const backupRoot = path.resolve(toDir);
    const skip = (relative: string, full: string) =>
      relative === LOCK_NAME ||
      relative === DATABASE_NAME ||
      DATABASE_COMPANIONS.includes(relative) ||
      // Uploads and photos come through the file storage below, wherever it keeps them.
      (STORAGE_AREAS as readonly string[]).includes(relative) ||
      (storedIn.kind === 'folder' && path.resolve(full) === storedIn.dir) ||
      // A backup folder inside the data folder is not copied into the next backup.
      path.resolve(full) === backupRoot ||
      // Files of forms being read are not yet anything's.
      path.resolve(full) === formFilesDir(dataDir);
    const copied = new Set<string>();
    for (const relative of listFiles(dataDir, skip)) {
      const target = path.join(partial, ...relative.split('/'));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      try {
        fs.copyFileSync(path.join(dataDir, ...relative.split('/')), target, fs.constants.COPYFILE_EXCL);
      } catch (error) {
        // Removed since it was listed (a replaced picture): nothing the snapshot needs, unless `missing` says so.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      syncPath(target);
      copied.add(relative);
    }
    for (const key of await copyStoredFiles(fileStorage({ files: storedIn }), partial)) copied.add(key);

    const files: ManifestFile[] = [];
    for (const relative of [DATABASE_NAME, ...copied]) {
      files.push({ path: relative, ...(await hashFile(path.join(partial, ...relative.split('/')))) });
    }
    const manifest: Manifest = {
      format: 'staff-portal-backup',
      formatVersion: 1,
      createdAt: now.toISOString(),
      appVersion: appVersion(),
      schema,
      sourceDataDir: path.resolve(dataDir),
      files,
      missing: referenced.filter((relative) => !copied.has(relative)).sort(),
    };
    const manifestFile = path.join(partial, MANIFEST_NAME);
    fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    syncPath(manifestFile);
    fs.renameSync(partial, folder);
    syncPath(toDir);
    return { folder, manifest };
  } catch (error) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw error;
  }
}

/** Reads and checks a backup's manifest; answers it with a list of the files whose size or hash differ. */
export async function verifyBackup(folder: string): Promise<{ manifest: Manifest; problems: string[] }> {
  const manifestFile = path.join(folder, MANIFEST_NAME);
  if (!fs.existsSync(manifestFile)) {
    const hint = folder.endsWith('.partial') ? ' This backup did not finish.' : '';
    throw new BackupError(`${folder} is not a Staff Portal backup: it has no ${MANIFEST_NAME}.${hint}`);
  }
  let parsed: ReturnType<typeof ManifestSchema.safeParse>;
  try {
    parsed = ManifestSchema.safeParse(JSON.parse(fs.readFileSync(manifestFile, 'utf8')));
  } catch {
    throw new BackupError(`${manifestFile} is not valid JSON.`);
  }
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new BackupError(
      `${manifestFile} is not a Staff Portal manifest (${first.path.join('.')}: ${first.message}).`,
    );
  }
  const manifest = parsed.data;
  const problems: string[] = [];
  for (const entry of manifest.files) {
    const file = path.join(folder, ...entry.path.split('/'));
    // Paths come from a file anyone could edit: none may leave the backup folder.
    if (path.isAbsolute(entry.path) || entry.path.split('/').includes('..')) {
      problems.push(`${entry.path}: not a path inside the backup`);
    } else if (!fs.existsSync(file)) problems.push(`${entry.path}: missing`);
    else {
      const actual = await hashFile(file);
      if (actual.size !== entry.size) problems.push(`${entry.path}: ${actual.size} bytes, manifest says ${entry.size}`);
      else if (actual.sha256 !== entry.sha256) problems.push(`${entry.path}: content differs from the manifest`);
    }
  }
  if (manifest.files[0].path !== DATABASE_NAME) problems.push(`the manifest does not list ${DATABASE_NAME} first`);
  return { manifest, problems };
}

function parseArgs(argv: string[]): { to?: string } {
  const args: { to?: string } = {};
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--to' && argv[i + 1]) args.to = argv[(i += 1)];
    else if (argv[i].startsWith('--to=')) args.to = argv[i].slice(5);
    else throw new BackupError(`Unknown argument ${argv[i]}. Usage: npm run backup [-- --to <folder>]`);
  }
  return args;
}

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

/** What `npm run backup` and `npm run restore` answer on a PostgreSQL deployment: they copy the SQLite file only. */
export const POSTGRES_BACKUP_REFUSAL =
  'This server keeps its data in PostgreSQL (DATABASE_URL is set), and npm run backup and npm run restore copy only ' +
  'the SQLite file. Back PostgreSQL up with its own tools (pg_dump, or pgBackRest for point-in-time recovery), ' +
  'and the uploads and photos with their folder or bucket.';

async function main(): Promise<void> {
  const config = loadConfig();
  // A data folder left with its SQLite file after the move would otherwise be backed up as if it were current.
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUP_REFUSAL);
  const args = parseArgs(process.argv.slice(2));
  const toDir = args.to ? path.resolve(args.to) : config.backupDir;
  const started = Date.now();
  const { folder, manifest } = await createBackup(config.dataDir, toDir, new Date(), config.files);
  const total = manifest.files.reduce((sum, file) => sum + file.size, 0);
  if (config.files.kind === 's3') console.log(`Uploads and photos copied from ${fileStorage(config).description}`);
  console.log(
    `Backup written to ${folder}\n  ${manifest.files.length} files, ${megabytes(total)}, schema ${manifest.schema.latest}, ` +
      `in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (manifest.missing.length) {
    console.log(
      `  ${manifest.missing.length} files the database names were already gone: see "missing" in the manifest`,
    );
  }
}

if (isCommand('backup')) {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof BackupError) console.error(error.message);
    else console.error('The backup failed:', error);
    process.exit(1);
  });
}
