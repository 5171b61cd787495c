/**
 * `npm run restore -- <backup folder> [--data-dir <dir>] [--force]`: puts a backup made by `npm run backup`
 * back into a data folder. Decision 80.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import {
  BackupError,
  DATABASE_NAME,
  knownMigrations,
  migrationLevel,
  POSTGRES_BACKUP_REFUSAL,
  verifyBackup,
  type Manifest,
} from './backup';
import { ConfigError, loadConfig, type FilesConfig } from './config';
import { isCommand } from './lib/command';
import { fileStorage, isStorageKey } from './lib/storage';
import { DataDirLockedError, lockDataDir } from './db/client';

const LOCK_NAME = 'server.pid';

export interface RestoreOptions {
  /** Move what the data folder holds aside (into `<dir>.replaced-<time>`) instead of refusing. */
  force?: boolean;
  log?: (message: string) => void;
  /** Where uploads and photos go back to: FILES_DIR or a bucket (decision 153); the data folder by default. */
  files?: FilesConfig;
}

export interface RestoreResult {
  manifest: Manifest;
  /** Where the data folder's previous content went (with `force`), or null. */
  movedAside: string | null;
}

/**
 * Checks every file of the backup against its manifest, takes the data folder's lock (so no server can start
 * on it meanwhile, and it refuses while one runs), then copies the files in and checks the database.
 */
export async function restoreBackup(
  folder: string,
  dataDir: string,
  { force = false, log = () => undefined, files }: RestoreOptions = {},
): Promise<RestoreResult> {
  const source = path.resolve(folder);
  const target = path.resolve(dataDir);
  const storage = fileStorage({ files: files ?? { kind: 'folder', dir: target } });
  log(`Checking ${source} against its manifest...`);
  const { manifest, problems } = await verifyBackup(source);
  if (problems.length) {
    throw new BackupError(
      `The backup does not match its manifest, so nothing was restored:\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
  const known = knownMigrations();
  if (manifest.schema.migrations > known.length) {
    throw new BackupError(
      `The backup's database has ${manifest.schema.migrations} migrations (newest ${manifest.schema.latest}) but this ` +
        `version of Staff Portal knows ${known.length}: restore it with the version that made it (${manifest.appVersion}) or newer.`,
    );
  }
  log(`  ${manifest.files.length} files match (backup of ${manifest.createdAt}, version ${manifest.appVersion}).`);

  let unlock: () => void;
  try {
    unlock = lockDataDir(target);
  } catch (error) {
    if (!(error instanceof DataDirLockedError)) throw error;
    throw new BackupError(`Nothing was restored. ${error.message.split('. ')[0]}: stop it before restoring.`);
  }
  try {
    const present = fs.readdirSync(target).filter((name) => name !== LOCK_NAME);
    let movedAside: string | null = null;
    if (present.length) {
      if (!force) {
        throw new BackupError(
          `The data folder ${target} is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', ...' : ''}). ` +
            'Restore into an empty folder (--data-dir), or add --force to move its content aside first.',
        );
      }
      movedAside = `${target}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      fs.mkdirSync(movedAside);
      for (const name of present) fs.renameSync(path.join(target, name), path.join(movedAside, name));
      log(`  Moved the data folder's previous content to ${movedAside}`);
    }
    let stored = 0;
    for (const entry of manifest.files) {
      const from = path.join(source, ...entry.path.split('/'));
      // A backup's uploads and photos go back through the file storage, the rest into the data folder.
      if (isStorageKey(entry.path)) {
        await storage.put(entry.path, fs.createReadStream(from));
        stored += 1;
        continue;
      }
      const to = path.join(target, ...entry.path.split('/'));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
    }
    if (files) log(`  ${stored} uploads and photos put into ${storage.description}.`);
    const sqlite = new Database(path.join(target, DATABASE_NAME), { fileMustExist: true });
    try {
      const integrity = sqlite.pragma('integrity_check', { simple: true });
      if (integrity !== 'ok')
        throw new BackupError(`The restored database fails SQLite's integrity check: ${integrity}`);
      const level = migrationLevel(sqlite);
      if (level.migrations !== manifest.schema.migrations) {
        throw new BackupError(
          `The restored database has ${level.migrations} migrations, the manifest says ${manifest.schema.migrations}.`,
        );
      }
    } finally {
      sqlite.close();
    }
    log(`Restored ${manifest.files.length} files into ${target}; the database passes its integrity check.`);
    if (manifest.missing.length) {
      log(`  ${manifest.missing.length} files the database names were already missing when the backup was made.`);
    }
    return { manifest, movedAside };
  } finally {
    unlock();
  }
}

function parseArgs(argv: string[]): { folder: string; dataDir?: string; force: boolean } {
  const usage = 'Usage: npm run restore -- <backup folder> [--data-dir <folder>] [--force]';
  let folder: string | undefined;
  let dataDir: string | undefined;
  let force = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--force') force = true;
    else if (arg === '--data-dir' && argv[i + 1]) dataDir = argv[(i += 1)];
    else if (arg.startsWith('--data-dir=')) dataDir = arg.slice('--data-dir='.length);
    else if (!arg.startsWith('--') && !folder) folder = arg;
    else throw new BackupError(`Unknown argument ${arg}. ${usage}`);
  }
  if (!folder) throw new BackupError(`Which backup? ${usage}`);
  return { folder, dataDir, force };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const config = loadConfig();
  // Restoring the SQLite file would change nothing the server reads.
  if (config.databaseUrl) throw new BackupError(POSTGRES_BACKUP_REFUSAL);
  const dataDir = args.dataDir ? path.resolve(args.dataDir) : config.dataDir;
  // Files kept in the data folder (no FILES_DIR, no bucket) follow it to --data-dir.
  const files = config.files.kind === 'folder' && config.files.dir === config.dataDir ? undefined : config.files;
  await restoreBackup(args.folder, dataDir, { force: args.force, log: (message) => console.log(message), files });
  console.log('Start the server on it with npm start (migrations newer than the backup run on start).');
}

if (isCommand('restore')) {
  main().catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof BackupError) console.error(error.message);
    else console.error('The restore failed:', error);
    process.exit(1);
  });
}
