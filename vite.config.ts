import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { defineConfig } from 'vitest/config';

const COMPRESSIBLE = /\.(js|css|html|svg|json|webmanifest)$/;

/**
 * Brotli and gzip copies of the built text files, which the server's static handler sends to browsers that
 * accept them (decision 56). Node's zlib does the work; files that end up without a copy go uncompressed.
 */
function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'staff-portal-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    closeBundle: {
      order: 'post',
      sequential: true,
      handler() {
        const walk = (dir: string): string[] =>
          fs
            .readdirSync(dir, { withFileTypes: true })
            .flatMap((entry) =>
              entry.isDirectory() ? walk(path.join(dir, entry.name)) : [path.join(dir, entry.name)],
            );
        for (const file of walk(outDir).filter((name) => COMPRESSIBLE.test(name))) {
          const bytes = fs.readFileSync(file);
          if (bytes.length < 1024) continue;
          fs.writeFileSync(`${file}.br`, zlib.brotliCompressSync(bytes));
          fs.writeFileSync(`${file}.gz`, zlib.gzipSync(bytes, { level: 9 }));
        }
      },
    },
  };
}

/**
 * RxDB orders the keys of every schema and query with `localeCompare` (rxdb's `sortObject`). The first call builds
 * the browser's collator: 12-36 ms in one task on this machine, in the middle of a first sign-in's feed, for an
 * order that only has to be the same each time. The build orders them by UTF-16 code unit instead (decision 109).
 * A schema's hash may then differ from one stored by an earlier build; RxDB accepts a stored schema whose hash
 * differs when its content is the same (it does so for devices in different locales). The build fails if RxDB's
 * code no longer has the two comparisons, so an upgrade cannot drop this silently.
 */
function rxdbKeyOrderWithoutCollator(): Plugin {
  const file = /rxdb\/dist\/esm\/plugins\/utils\/utils-object\.js$/;
  const comparison = 'a.localeCompare(b)';
  return {
    name: 'staff-portal-rxdb-key-order',
    apply: 'build',
    transform(code, id) {
      if (!file.test(id)) return null;
      const found = code.split(comparison).length - 1;
      if (found !== 2) throw new Error(`rxdb's sortObject changed: expected 2 localeCompare calls, found ${found}`);
      return { code: code.replaceAll(comparison, '(a < b ? -1 : a > b ? 1 : 0)'), map: null };
    },
  };
}

export default defineConfig({
  plugins: [
    react(),
    // The custom Workbox service worker in sw/ (design card): vite-plugin-pwa compiles it and injects the
    // precache manifest; registration is ours (src/lib/service-worker.ts).
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'sw',
      filename: 'sw.ts',
      injectRegister: false,
      manifest: {
        name: 'Staff Portal',
        short_name: 'Staff Portal',
        description: 'Secure staff-only communication for our care homes',
        theme_color: '#4C307D',
        background_color: '#ffffff',
        display: 'standalone',
        start_url: '/',
        scope: '/',
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
          { src: '/icons/maskable-192.png', sizes: '192x192', type: 'image/png', purpose: 'maskable' },
          { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}'],
        rollupFormat: 'iife',
      },
      devOptions: { enabled: false },
    }),
    precompress(),
    rxdbKeyOrderWithoutCollator(),
  ],
  // The local database's storage runs in a worker, which the build bundles with its own plugins.
  worker: { plugins: () => [rxdbKeyOrderWithoutCollator()] },
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://localhost:3000' } },
  test: {
    include: ['schema/**/*.test.ts', 'server/**/*.test.ts', 'src/**/*.test.ts', 'sw/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
