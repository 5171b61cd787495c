import fs from 'node:fs';
import path from 'node:path';

/** The nearest folder at or above `start` that holds a package.json: the app's root. */
export function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json at or above ${start}`);
  }
}

/** The app's root, whether this code runs from server/ or bundled into dist-server/ (decision 135). */
export const ROOT = findRoot(import.meta.dirname);
/** The built client (`npm run build`, or the server's own build on start). */
export const CLIENT_DIR = path.join(ROOT, 'dist');
/** drizzle-kit's migrations, read on every start. */
export const MIGRATIONS_DIR = path.join(ROOT, 'server', 'db', 'migrations');
/** drizzle-kit's PostgreSQL migrations, derived from the same tables (decision 152). */
export const PG_MIGRATIONS_DIR = path.join(ROOT, 'server', 'db', 'pg', 'migrations');
