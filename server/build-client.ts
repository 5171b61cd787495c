import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib/paths.js';

const SOURCES = ['src', 'schema', 'sw', 'public', 'index.html', 'vite.config.ts', 'package.json'];
const STAMP = path.join('dist', '.build-stamp');

/**
 * The page a signed-in user's browser is sent for "/" (decision 111): index.html with its base styles inlined and
 * the feed's code and first pages asked for at once. Written by the build beside index.html.
 */
export const SIGNED_IN_PAGE = 'index.signed-in.html';

/** Neither a built client nor the tools to build one: the server cannot serve the app (decision 135). */
export class ClientBuildError extends Error {}

function newestMtime(root: string, entry: string): number {
  const full = path.join(root, entry);
  if (!fs.existsSync(full)) return 0;
  const stat = fs.statSync(full);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return fs
    .readdirSync(full)
    .filter((name) => !name.endsWith('.test.ts'))
    .reduce((max, name) => Math.max(max, newestMtime(root, path.join(entry, name))), stat.mtimeMs);
}

/** Vite's build, or null where it is not installed (`npm ci --omit=dev`). */
export async function loadViteBuild(): Promise<((root: string) => Promise<void>) | null> {
  try {
    const { build } = await import('vite');
    return async (root) => {
      await build({ root, logLevel: 'warn' });
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') return null; // a Node error carries a code
    throw error;
  }
}

export interface ClientBuildOptions {
  root?: string;
  loadBuild?: typeof loadViteBuild;
}

/**
 * Builds the client with Vite when dist/ is missing or older than its sources (npm start "when needed"). Where the
 * build tools are not installed, a built client is served as it is (decision 135).
 */
export async function ensureClientBuilt(
  log: (message: string) => void,
  { root = ROOT, loadBuild = loadViteBuild }: ClientBuildOptions = {},
): Promise<void> {
  const stamp = path.join(root, STAMP);
  const built = fs.existsSync(stamp) ? fs.statSync(stamp).mtimeMs : 0;
  if (built >= Math.max(...SOURCES.map((entry) => newestMtime(root, entry)))) return;
  const build = await loadBuild();
  if (!build && built) {
    log(
      'The client in dist/ looks older than its sources; the build tools are not installed, so it is served as it is.',
    );
    return;
  }
  if (!build) {
    throw new ClientBuildError(
      'The client is not built (no dist/) and the build tools are not installed (npm ci --omit=dev). ' +
        'Build it where the development dependencies are installed: npm ci && npm run build, ' +
        'then npm ci --omit=dev (docs/deploy.md).',
    );
  }
  log('Building the client (first start or sources changed)...');
  await buildClient(build, root);
}

/** Builds the client into dist/ and stamps it, so a start after `npm run build` does not build it again. */
export async function buildClient(build: (root: string) => Promise<void>, root = ROOT): Promise<void> {
  await build(root);
  fs.writeFileSync(path.join(root, STAMP), new Date().toISOString());
}
