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
});
