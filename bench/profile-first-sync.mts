/**
 * Where a first sync's time goes in the browser: the bench's data (bench/initial-sync.ts), a fresh headless
 * Chromium signing in, the CPU profiles of the main thread and of the storage worker from the Sign In click until
 * the first sync is done, and each pull request's timing from the browser's network log. Writes the page's
 * profile to $OUT (a .cpuprofile) and the worker's beside it (-worker0.cpuprofile).
 *
 * Not a figure of its own (bench/initial-sync.ts is): a tool for finding where that figure's time goes.
 *
 * Run: npx vite build --minify false --outDir /tmp/dist-sync1 && CLIENT_DIR=/tmp/dist-sync1 \
 *   node --import tsx bench/profile-first-sync.mts
 * Options: SEED_CACHE=<dir> reuses a seeded database between runs; PROFILE=0 runs without the profiler (for
 * timing builds against each other); COUNT_IDB=1 counts IndexedDB requests and cursor steps per 2 s, by database
 * and index; PULLS=1 prints every pull request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';
import { loadConfig } from '../server/config';
import { databaseFile, startServer } from '../server/server';
import { CHROMIUM_FLAGS, CHROMIUM_PATH, tempDir } from './bench-report';
import { buildDatabase } from './seed';

const SIZES = { users: 50, posts: 10_000, reactions: 50_000, comments: 20_000 };
const PASSWORD = 'Bench!Passw0rd';
const out = process.env.OUT ?? '/tmp/first-sync.cpuprofile';
const profiling = process.env.PROFILE !== '0';

const dataDir = tempDir('sp-prof-sync-');
const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'error' });
const file = databaseFile(config);
const cache = process.env.SEED_CACHE;
let email: string;
if (cache && fs.existsSync(path.join(cache, 'email'))) {
  fs.copyFileSync(path.join(cache, 'db.sqlite'), file);
  email = fs.readFileSync(path.join(cache, 'email'), 'utf8');
} else {
  email = (await buildDatabase(file, SIZES, PASSWORD)).email;
  if (cache) {
    fs.mkdirSync(cache, { recursive: true });
    fs.copyFileSync(file, path.join(cache, 'db.sqlite'));
    fs.writeFileSync(path.join(cache, 'email'), email);
  }
}
const server = await startServer(config, { clientDir: process.env.CLIENT_DIR ?? '/tmp/dist-sync1' });
const base = `http://127.0.0.1:${server.port}`;
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
try {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const pulls: { name: string; start: number; ms: number; waitMs: number; bytes: number }[] = [];
  let t0 = 0;
  page.on('requestfinished', (request) => {
    if (!request.url().includes('/pull?')) return;
    const timing = request.timing();
    void request.sizes().then((sizes) =>
      pulls.push({
        name: new URL(request.url()).pathname.split('/')[3],
        start: Math.round(timing.startTime - t0),
        ms: Math.round(timing.responseEnd),
        waitMs: Math.round(timing.responseStart - timing.requestStart),
        bytes: sizes.responseBodySize,
      }),
    );
  });
  if (process.env.COUNT_IDB) {
    // Counts IndexedDB requests per kind, database and index, per second after the page loaded.
    // A string, not a function: tsx adds helpers (__name) to functions that the page does not have.
    await page.addInitScript(`
      const counts = (globalThis.__idb = {});
      const wrap = (proto, method, where) => {
        const original = proto[method];
        proto[method] = function (...args) {
          const key = Math.floor(performance.now() / 2000) * 2 + 's ' + method + ' ' + where(this);
          counts[key] = (counts[key] ?? 0) + 1;
          return original.apply(this, args);
        };
      };
      const storeName = (s) => s.transaction.db.name.replace(/.*--/, '');
      for (const m of ['put', 'get', 'getAll', 'getAllKeys', 'openCursor', 'count'])
        wrap(IDBObjectStore.prototype, m, storeName);
      for (const m of ['get', 'getAll', 'getAllKeys', 'openCursor', 'count'])
        wrap(IDBIndex.prototype, m, (i) => storeName(i.objectStore) + '[' + i.name + ']');
      wrap(IDBCursor.prototype, 'continue', (c) =>
        c.source instanceof IDBIndex ? storeName(c.source.objectStore) + '[' + c.source.name + ']' : storeName(c.source),
      );
    `);
  }
  await page.goto(`${base}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  const cdp = await context.newCDPSession(page);
  // The storage worker (decision 88) is profiled too: CDP reaches it through the page's session, one message
  // at a time (Playwright's sessions do not expose a worker's own).
  const workerSessions: string[] = [];
  let messageId = 0;
  const answers = new Map<number, (result: unknown) => void>();
  const toWorker = (sessionId: string, method: string, params: object = {}) =>
    new Promise((resolve) => {
      messageId += 1;
      answers.set(messageId, resolve);
      const message = JSON.stringify({ id: messageId, method, params });
      void cdp.send('Target.sendMessageToTarget', { sessionId, message });
    });
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const message = JSON.parse(event.message) as { id?: number; result?: unknown };
    if (message.id !== undefined) answers.get(message.id)?.(message.result);
  });
  cdp.on('Target.attachedToTarget', (event) => {
    if (event.targetInfo.type !== 'worker') return;
    workerSessions.push(event.sessionId);
    void (async () => {
      if (profiling) {
        await toWorker(event.sessionId, 'Profiler.enable');
        await toWorker(event.sessionId, 'Profiler.setSamplingInterval', { interval: 500 });
        await toWorker(event.sessionId, 'Profiler.start');
      }
      await toWorker(event.sessionId, 'Runtime.runIfWaitingForDebugger');
    })();
  });
  await cdp.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: false });
  if (profiling) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  t0 = Date.now();
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.locator('article').first().waitFor({ timeout: 60_000 });
  const firstPostMs = Date.now() - t0;
  await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready', undefined, {
    timeout: 180_000,
    polling: 100,
  });
  const syncMs = Date.now() - t0;
  if (profiling) {
    const { profile } = await cdp.send('Profiler.stop');
    fs.writeFileSync(out, JSON.stringify(profile));
    for (const [i, sessionId] of workerSessions.entries()) {
      const { profile: workerProfile } = (await toWorker(sessionId, 'Profiler.stop')) as { profile: unknown };
      fs.writeFileSync(out.replace(/(\.cpuprofile)?$/, `-worker${i}.cpuprofile`), JSON.stringify(workerProfile));
    }
  }
  console.log(`first post ${firstPostMs} ms; first sync ${syncMs} ms${profiling ? ` (profiled, ${out})` : ''}`);
  const byName = new Map<string, { n: number; ms: number; wait: number; bytes: number; first: number; last: number }>();
  for (const p of pulls) {
    const s = byName.get(p.name) ?? { n: 0, ms: 0, wait: 0, bytes: 0, first: Infinity, last: 0 };
    s.n += 1;
    s.ms += p.ms;
    s.wait += p.waitMs;
    s.bytes += p.bytes;
    s.first = Math.min(s.first, p.start);
    s.last = Math.max(s.last, p.start + p.ms);
    byName.set(p.name, s);
  }
  for (const [name, s] of byName)
    console.log(
      `pull ${name}: ${s.n} requests, ${s.ms} ms in requests (server wait ${s.wait} ms), ${Math.round(s.bytes / 1024)} KB, from ${s.first} to ${s.last} ms`,
    );
  if (process.env.COUNT_IDB) {
    const counts = await page.evaluate(() => (globalThis as unknown as { __idb: Record<string, number> }).__idb);
    for (const [key, n] of Object.entries(counts).sort()) if (n >= 5) console.log(`idb ${key}: ${n}`);
  }
  if (process.env.PULLS) for (const p of pulls.sort((a, b) => a.start - b.start)) console.log(JSON.stringify(p));
} finally {
  await browser.close();
  await server.close();
}
process.exit(0);
