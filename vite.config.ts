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
  ],
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://localhost:3000' } },
  test: {
    include: ['schema/**/*.test.ts', 'server/**/*.test.ts', 'src/**/*.test.ts', 'sw/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
