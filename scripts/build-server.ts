import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import { ROOT } from '../server/lib/paths';

/** The server's commands a production install runs with plain node: `node dist-server/<name>.js` (decision 135). */
export const SERVER_COMMANDS = ['main', 'backup', 'restore', 'migrate-to-postgres'] as const;

export const SERVER_OUT_DIR = path.join(ROOT, 'dist-server');

/**
 * Compiles the server's commands into ES modules for Node 20, one file each, packages left to node_modules. Answers
 * esbuild's account of the inputs and imports.
 */
export async function buildServer(outdir = SERVER_OUT_DIR): Promise<Metafile> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: SERVER_COMMANDS.map((name) => path.join('server', `${name}.ts`)),
    outdir,
    bundle: true,
    // A command's own file is what `isCommand` recognises, so no code is split into shared chunks.
    splitting: false,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    packages: 'external',
    sourcemap: true,
    metafile: true,
    logLevel: 'warning',
  });
  return result.metafile;
}

/** The npm packages the built server imports (`hono/body-limit` counts as `hono`, `@scope/name/x` as `@scope/name`). */
export function importedPackages(metafile: Metafile): Set<string> {
  const packages = new Set<string>();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path: specifier, external } of output.imports) {
      if (!external || specifier.startsWith('node:')) continue;
      const parts = specifier.split('/');
      packages.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
    }
  }
  return packages;
}
