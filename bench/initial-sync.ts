/**
 * Figures (Measured): a fresh headless Chromium signing in to a server holding 10,000 posts with 20,000
 * comments and 50,000 reactions shows the newest posts in under 1.5 s and finishes its whole first sync in
 * under 10 s (documents per second printed); filtering or searching those 10,000 posts locally takes under
 * 50 ms. Baselines, measured in the same run: the REST round trip of the first page (GET /api/posts) for the
 * first figure, the same pulls read over HTTP without storing them for the second, and a request to the
 * server per filter change (a fetch keyed by category) for the third.
 *
 * Run: node --import tsx bench/initial-sync.ts (needs /usr/bin/chromium)
 */
import { performance } from 'node:perf_hooks';
import { chromium } from '@playwright/test';
import { SYNC_COLLECTIONS } from '../schema/sync';
import { ensureClientBuilt } from '../server/build-client';
import { loadConfig } from '../server/config';
import { databaseFile, startServer } from '../server/server';
import { filterPosts, NO_FILTERS, type FeedFilters } from '../src/features/feed/filter-posts';
import { CHROMIUM_FLAGS, CHROMIUM_PATH, percentile, printFigures, printMachine, round, tempDir } from './bench-report';
import { buildDatabase } from './seed';

const SIZES = { users: 50, posts: 10_000, reactions: 50_000, comments: 20_000 };
const PASSWORD = 'Bench!Passw0rd';
const TARGETS = { firstPostMs: 1500, syncMs: 10_000, filterMs: 50 };

async function main(): Promise<void> {
  printMachine();
  const dataDir = tempDir('sp-bench-sync-');
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'error',
    ADMIN_TWO_FACTOR: 'optional',
  });
  const built = await buildDatabase(databaseFile(config), SIZES, PASSWORD);
  console.log(`Database built in ${round(built.seconds)} s`);
  await ensureClientBuilt(() => console.log('Building the client...'));
  // BENCH_CLIENT_DIR serves another build of the client, to compare two versions on the same machine.
  const clientDir = process.env.BENCH_CLIENT_DIR;
  const server = await startServer(config, clientDir ? { clientDir } : {});
  const base = `http://127.0.0.1:${server.port}`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS });
  try {
    // Baseline 1 and 2: a plain HTTP client (no browser store) signed in as the same user.
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: built.email, password: PASSWORD }),
    });
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    const headers = { cookie };
    let started = performance.now();
    await (await fetch(`${base}/api/posts?limit=20`, { headers })).json();
    const restFirstPageMs = performance.now() - started;

    started = performance.now();
    let pulled = 0;
    for (const name of SYNC_COLLECTIONS) {
      let query = 'limit=500';
      for (;;) {
        const page = (await (await fetch(`${base}/api/sync/${name}/pull?${query}`, { headers })).json()) as {
          documents: unknown[];
          checkpoint: { seq: number; id: string };
        };
        pulled += page.documents.length;
        if (page.documents.length < 500) break;
        query = `limit=500&seq=${page.checkpoint.seq}&id=${encodeURIComponent(page.checkpoint.id)}`;
      }
    }
    const rawPullMs = performance.now() - started;

    // The browser: a phone-sized fresh profile signing in.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel('Email').fill(built.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    started = performance.now();
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.locator('article').first().waitFor({ timeout: 60_000 });
    const firstPostMs = performance.now() - started;
    const firstShown = await page.locator('article').first().innerText();
    await page.waitForFunction(() => document.documentElement.dataset.sync === 'ready', undefined, {
      timeout: 120_000,
      polling: 100,
    });
    const syncMs = performance.now() - started;
    const docs = await page.evaluate(async () => {
      const dbs = await indexedDB.databases();
      return dbs.length;
    });
    const total = SIZES.posts + SIZES.comments + pulledReactions(pulled) + SIZES.users;
    console.log(`First post shown: ${firstShown.split('\n').slice(0, 3).join(' | ')}`);
    console.log(`IndexedDB databases in the browser: ${docs}; documents pulled over raw HTTP: ${pulled}`);

    // Local filtering over 10,000 posts (the feed's pure filter), against a request per filter change.
    const now = Date.now();
    const posts = Array.from({ length: SIZES.posts }, (_, i) => ({
      authorId: `user-${i % SIZES.users}`,
      content: `Post number ${i} about the garden, the rota and the summer fair`,
      category: ['company_announcement', 'residents_activities', 'business', 'wages_hr', 'shifts_lifts'][i % 5],
      houseTags: i % 5 === 1 ? ['Giles House'] : [],
      createdAt: now - i * 600_000,
    }));
    const cases: FeedFilters[] = [
      { ...NO_FILTERS, search: 'summer' },
      { ...NO_FILTERS, search: 'first7' },
      { ...NO_FILTERS, category: 'residents_activities', house: 'Giles House' },
      { ...NO_FILTERS, date: 'this_week' },
      { ...NO_FILTERS, category: 'buildings_maintenance', date: 'last_30_days', search: 'rota' },
    ];
    const times: number[] = [];
    for (let round_ = 0; round_ < 20; round_ += 1) {
      for (const filters of cases) {
        const t = performance.now();
        filterPosts(posts, filters, { now, authorName: (id) => `First${id} Last${id}` });
        times.push(performance.now() - t);
      }
    }
    times.sort((a, b) => a - b);
    const filterP99 = percentile(times, 99);
    const serverTimes: number[] = [];
    for (const category of ['residents_activities', 'wages_hr', 'shifts_lifts', 'company_announcement', 'all']) {
      const t = performance.now();
      await (await fetch(`${base}/api/posts?limit=50&category=${category}`, { headers })).json();
      serverTimes.push(performance.now() - t);
    }
    serverTimes.sort((a, b) => a - b);
    const serverMedian = percentile(serverTimes, 50);

    const figures = [
      {
        figure: 'Newest posts on screen after sign-in (10k posts, phone)',
        target: `< ${TARGETS.firstPostMs} ms`,
        measured: `${Math.round(firstPostMs)} ms`,
        baseline: `REST first page ${Math.round(restFirstPageMs)} ms`,
        ratio: String(round(firstPostMs / restFirstPageMs)),
        pass: firstPostMs < TARGETS.firstPostMs,
      },
      {
        figure: `Whole first sync (${total.toLocaleString('en-GB')} documents)`,
        target: `< ${TARGETS.syncMs / 1000} s`,
        measured: `${round(syncMs / 1000)} s, ${Math.round(total / (syncMs / 1000))} docs/s`,
        baseline: `raw pulls over HTTP ${round(rawPullMs / 1000)} s, ${Math.round(pulled / (rawPullMs / 1000))} docs/s`,
        ratio: String(round(syncMs / rawPullMs)),
        pass: syncMs < TARGETS.syncMs,
      },
      {
        figure: 'Filter or search 10,000 posts locally (p99)',
        target: `< ${TARGETS.filterMs} ms`,
        measured: `${round(filterP99, 2)} ms`,
        baseline: `server request per filter ${round(serverMedian, 1)} ms (median)`,
        ratio: String(round(filterP99 / serverMedian, 2)),
        pass: filterP99 < TARGETS.filterMs,
      },
    ];
    printFigures(figures);
    await context.close();
  } finally {
    await browser.close();
    await server.close();
  }
}

/**
 * The reaction documents the user pulls: only their own since decision 74 (everyone's travel on the posts).
 * The seed makes a number of reactions near the asked-for count, so count what the server actually sends.
 */
function pulledReactions(pulled: number): number {
  return pulled - SIZES.posts - SIZES.comments - SIZES.users;
}

void main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
