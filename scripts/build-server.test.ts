import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/lib/paths';
import { buildServer, importedPackages, SERVER_COMMANDS } from './build-server';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('the server built for a production install', () => {
  it('imports exactly the runtime dependencies, and the build tools only when they are installed', async () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-server-build-'));
    try {
      const metafile = await buildServer(outdir);
      for (const name of SERVER_COMMANDS) expect(fs.existsSync(path.join(outdir, `${name}.js`))).toBe(true);
      const imported = importedPackages(metafile);
      // Vite is imported only to build a missing client, and answered "not installed" otherwise (server/build-client.ts).
      expect(imported.delete('vite')).toBe(true);
      expect([...imported].sort()).toEqual(Object.keys(pkg.dependencies).sort());
      for (const tool of ['vite', 'tsx', 'esbuild', 'vite-plugin-pwa', '@vitejs/plugin-react', 'workbox-build']) {
        expect(pkg.devDependencies[tool], tool).toBeDefined();
      }
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });

  it('loads the S3 client only when a bucket is configured: never a static import (decision 153)', async () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-server-build-'));
    try {
      const metafile = await buildServer(outdir);
      const kinds = Object.values(metafile.outputs).flatMap((output) =>
        output.imports.filter((entry) => entry.path.startsWith('@aws-sdk/')).map((entry) => entry.kind),
      );
      expect(kinds.length).toBeGreaterThan(0);
      expect(new Set(kinds)).toEqual(new Set(['dynamic-import']));
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });
});
