import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const SOURCES = ['src', 'schema', 'sw', 'public', 'index.html', 'vite.config.ts', 'package.json'];
const STAMP = path.join(ROOT, 'dist', '.build-stamp');

/**
 * The page a signed-in user's browser is sent for "/" (decision 111): index.html with its base styles inlined and
 * the feed's code and first pages asked for at once. Written by the build beside index.html.
 */
export const SIGNED_IN_PAGE = 'index.signed-in.html';

function newestMtime(entry: string): number {
  const full = path.join(ROOT, entry);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(full)
    .filter((name) => !name.endsWith('.test.ts'))
    .reduce((max, name) => Math.max(max, newestMtime(path.join(entry, name))), stat.mtimeMs);
}

/** Builds the client with Vite when dist/ is missing or older than its sources (npm start "when needed"). */
export async function ensureClientBuilt(log: (message: string) => void): Promise<void> {
  const built = fs.existsSync(STAMP) ? fs.statSync(STAMP).mtimeMs : 0;
  if (built >= Math.max(...SOURCES.map(newestMtime))) return;
  log('Building the client (first start or sources changed)...');
  const { build } = await import('vite');
  await build({ root: ROOT, logLevel: 'warn' });
  fs.writeFileSync(STAMP, new Date().toISOString());
}
