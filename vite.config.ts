import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import react from '@vitejs/plugin-react';
import type { Plugin, Rolldown } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { configDefaults, defineConfig } from 'vitest/config';
import { EMOJI_PICKER } from './schema/constants.js';
import { FIRST_PULL_PATHS } from './schema/sync-limits.js';
import { SIGNED_IN_PAGE } from './server/build-client.js';
import { rxSchemasAsData } from './src/db/rx-schemas-build.js';
import { rxdbKeyOrderWithoutCollator } from './src/db/storage-patches/rxdb-key-order.js';

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

/** The files of emojibase-data the emoji picker reads (frimousse asks for `<url>/<locale>/<file>`). */
const EMOJI_FILES = ['data.json', 'messages.json'];

/**
 * The emoji picker's data, copied from emojibase-data into the build under the app's own address (decision 129):
 * the picker asks no CDN, and the service worker precaches it, so it opens offline. Only English is served.
 */
function emojiData(): Plugin {
  return {
    name: 'staff-portal-emoji-data',
    apply: 'build',
    generateBundle() {
      for (const file of EMOJI_FILES) {
        this.emitFile({
          type: 'asset',
          fileName: `${EMOJI_PICKER.dataUrl.slice(1)}/en/${file}`,
          source: fs.readFileSync(path.resolve('node_modules/emojibase-data/en', file)),
        });
      }
    },
  };
}

/** Chrome's per-file compile hint (V8's explicit compile hints): it must be the file's first line. */
const COMPILE_HINT = '//# allFunctionsCalledOnLoad';

/**
 * Marks every chunk of the page's bundle with Chrome's compile hint (decision 111). Without it V8 compiles each
 * function on the main thread the first time it runs; on a first sign-in that was a large part of the feed's first
 * render, most of whose functions had never run. With it, V8 compiles the whole file while the file streams in, on a
 * background thread. The page loads a chunk only when it runs it (the entry, the screen opened, the local database),
 * so little of what is compiled goes unused. The source map moves down one line with the code.
 */
function compileHints(): Plugin {
  return {
    name: 'staff-portal-compile-hints',
    apply: 'build',
    // The hint is part of each file's content, so part of its name's hash too (the service worker caches by name).
    augmentChunkHash: () => COMPILE_HINT,
    // After Vite has written its own first line (the preload helper's list of dependencies) into the entry.
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const chunk of Object.values(bundle)) {
          if (chunk.type !== 'chunk') continue;
          chunk.code = `${COMPILE_HINT}\n${chunk.code}`;
          if (chunk.map) chunk.map.mappings = `;${chunk.map.mappings}`;
          const map = bundle[`${chunk.fileName}.map`];
          if (map?.type === 'asset') {
            const source = JSON.parse(String(map.source)) as { mappings: string };
            source.mappings = `;${source.mappings}`;
            map.source = JSON.stringify(source);
          }
        }
      },
    },
  };
}

/**
 * The page for a signed-in user (decision 111), written beside index.html for the server to send when the request
 * carries a live session. On a new device the feed otherwise waits for a chain: the app's script, then the feed's
 * code and its first pages, asked for only once that script has run. This page asks for all of them at once: the
 * feed's chunks as module preloads, its styles as a preload, and the feed's first two sync pages as fetch
 * preloads, which the preview (src/db/first-pull.ts) takes over. The base styles are inlined, so the first paint
 * waits for no request. A device that already holds the app is answered by its service worker, which keeps
 * index.html, and asks for none of this.
 */
function signedInPage(): Plugin {
  return {
    name: 'staff-portal-signed-in-page',
    apply: 'build',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        const html = bundle['index.html'];
        if (html?.type !== 'asset') return; // the storage worker's own bundle
        const chunks = new Map(
          Object.values(bundle)
            .filter((file): file is Rolldown.OutputChunk => file.type === 'chunk')
            .map((chunk) => [chunk.fileName, chunk]),
        );
        /** A chunk and every chunk it imports statically. */
        const withImports = (start: Rolldown.OutputChunk, into = new Set<string>()): Set<string> => {
          if (into.has(start.fileName)) return into;
          into.add(start.fileName);
          for (const file of start.imports) withImports(chunks.get(file)!, into);
          return into;
        };
        const cssOf = (files: Iterable<string>) =>
          new Set([...files].flatMap((file) => [...(chunks.get(file)!.viteMetadata?.importedCss ?? [])]));
        const entry = [...chunks.values()].find((chunk) => chunk.isEntry);
        const home = [...chunks.values()].find((chunk) => chunk.facadeModuleId?.endsWith('/src/app/home-screen.tsx'));
        if (!entry || !home) this.error('signed-in page: no entry or home screen chunk');
        const entryFiles = withImports(entry);
        const feedFiles = [...withImports(home)].filter((file) => !entryFiles.has(file));
        const entryCss = cssOf(entryFiles);
        const feedCss = [...cssOf(feedFiles)].filter((file) => !entryCss.has(file));

        let page = String(html.source);
        for (const file of entryCss) {
          const link = `<link rel="stylesheet" crossorigin href="/${file}">`;
          const css = bundle[file];
          if (!page.includes(link) || css?.type !== 'asset') this.error(`signed-in page: no stylesheet link ${file}`);
          page = page.replace(link, () => `<style>${String(css.source)}</style>`);
        }
        const links = [
          ...Object.values(FIRST_PULL_PATHS).map(
            (href) =>
              `<link rel="preload" href="${href.replaceAll('&', '&amp;')}" as="fetch" crossorigin="use-credentials">`,
          ),
          ...feedFiles.map((file) => `<link rel="modulepreload" crossorigin href="/${file}">`),
          ...feedCss.map((file) => `<link rel="preload" as="style" crossorigin href="/${file}">`),
        ];
        if (!page.includes('</head>')) this.error('signed-in page: index.html has no </head>');
        page = page.replace('</head>', () => `${links.join('\n')}\n</head>`);
        this.emitFile({ type: 'asset', fileName: SIGNED_IN_PAGE, source: page });
      },
    },
  };
}

/**
 * Tests that start PostgreSQL servers of their own whatever the pass (a cluster, a failover pair, a restore): the
 * PostgreSQL pass of `npm test` would only run them a second time.
 */
const OWN_POSTGRES_TESTS = [
  'server/db/client.test.ts',
  'server/db/engine.test.ts',
  'server/db/failover.test.ts',
  'server/db/pg/migrations.test.ts',
  'server/db/pgbackrest.test.ts',
  'server/features/sync/sync.fanout.test.ts',
  'server/features/sync/two-servers.test.ts',
  'server/lib/jobs.test.ts',
  'server/migrate-to-postgres.test.ts',
  'server/nginx-recipe.test.ts',
  'server/test/postgres.test.ts',
];
/** Skipped on the PostgreSQL pass: they start PostgreSQL clusters of their own, so they ran in the SQLite pass. */
const ownPostgresTests = process.env.TEST_DATABASE === 'postgres' ? OWN_POSTGRES_TESTS : [];

/**
 * Tests that compare answer times (the same time for a known and an unknown address): run on their own, since vitest
 * runs two files at a time and another file's work would fall on one of the two compared requests more than the other.
 */
const ALONE_TESTS = ['server/features/mail/mail-timing.test.ts'];
/** A no-op unless TEST_DATABASE=postgres: then one PostgreSQL cluster serves the run (decision 157). */
const POSTGRES_SUITE = ['server/test/postgres-suite.ts'];

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
        // The emoji picker's data too (decision 129): it is read only when the picker opens, offline as well.
        globPatterns: ['**/*.{js,css,html,svg,png,webmanifest}', `${EMOJI_PICKER.dataUrl.slice(1)}/en/*.json`],
        // Sent by the server to signed-in browsers only; the service worker keeps index.html for every visit.
        globIgnores: [SIGNED_IN_PAGE],
        rollupFormat: 'iife',
      },
      devOptions: { enabled: false },
    }),
    compileHints(),
    emojiData(),
    signedInPage(),
    precompress(),
    rxdbKeyOrderWithoutCollator(),
    rxSchemasAsData(),
  ],
  // The local database's storage runs in a worker, which the build bundles with its own plugins.
  worker: { plugins: () => [rxdbKeyOrderWithoutCollator()] },
  build: { outDir: 'dist', sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://localhost:3000' } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest leaves a core free by default, which on a two-core machine runs one file at a time.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // `npm test` runs the projects `server` and `client` together, then `alone` (scripts/test.ts).
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['schema/**/*.test.ts', 'server/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...ALONE_TESTS, ...ownPostgresTests],
          // These files share no module state they change (no mocks, stubs or environment changes), and loading the
          // server's modules again for each file took half of the PostgreSQL pass's time.
          isolate: false,
          globalSetup: POSTGRES_SUITE,
        },
      },
      {
        extends: true,
        // The client's tests stub globals and mock modules: each file gets its own.
        test: { name: 'client', include: ['src/**/*.test.ts', 'sw/**/*.test.ts'] },
      },
      {
        extends: true,
        test: { name: 'alone', include: ALONE_TESTS, globalSetup: POSTGRES_SUITE },
      },
    ],
  },
});
