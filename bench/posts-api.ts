/**
 * Figure (Measured): `GET /api/posts?limit=50` on 100,000 posts, 1,000 staff, 300,000 reactions and
 * 200,000 comments: p99 under 20 ms at 50 connections, and at least half the throughput of the same work (the
 * route's service call with its JSON) in a plain loop. The route answers from a page shared by every reader
 * until the next write (decision 43), so the bench also prints the load with a write every 20 ms and what
 * building a page from scratch costs. A bare Hono hello-world gives the scale of HTTP alone.
 *
 * Run: node --import tsx bench/posts-api.ts
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { serve } from '@hono/node-server';
import autocannon from 'autocannon';
import { Hono } from 'hono';
import { loadConfig } from '../server/config';
import { listPosts, listPostsJson } from '../server/features/posts/posts.service';
import { markReactionDeleted, upsertReaction } from '../server/features/reactions/reactions.queries';
import { reactionId } from '../schema/sync';
import { findUserById, listDirectorySince } from '../server/features/users/users.queries';
import { toCurrentUser } from '../server/features/users/users.service';
import { databaseFile, startServer } from '../server/server';
import { machine, percentile, printFigure, printMachine, round, tempDir, verdict } from './bench-report';
import { buildDatabase } from './seed';

const SIZES = { users: 1000, posts: 100_000, reactions: 300_000, comments: 200_000 };
const PAGE = 50;
const CONNECTIONS = 50;
const DURATION_S = 10;
const LOOP_MS = 5000;
const WRITE_EVERY_MS = 20;
const TARGET_P99_MS = 20;
const TARGET_RATIO = 0.5;
const PASSWORD = 'Bench!Passw0rd';

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** How busy the server's event loop was during the run (0 to 1). */
  busy: number;
}

/** autocannon in a worker thread, so the load generator does not share the server's event loop. */
async function load(url: string, headers: Record<string, string>, duration = DURATION_S): Promise<Load> {
  const before = performance.eventLoopUtilization();
  const result = await autocannon({ url, connections: CONNECTIONS, duration, headers, workers: 1 });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    busy: performance.eventLoopUtilization(before).utilization,
  };
}

interface Loop {
  ops: number;
  times: number[];
}

/** Runs `work` for LOOP_MS after a warm-up: operations per second and each run's time, sorted. */
async function plainLoop(work: () => Promise<unknown>): Promise<Loop> {
  for (let i = 0; i < 300; i += 1) await work();
  const times: number[] = [];
  const start = performance.now();
  while (performance.now() - start < LOOP_MS) {
    const t = performance.now();
    await work();
    times.push(performance.now() - t);
  }
  const ops = times.length / ((performance.now() - start) / 1000);
  return { ops, times: times.sort((a, b) => a - b) };
}

const loopLine = (label: string, l: Loop) =>
  `  ${label.padEnd(34)} ${l.ops.toFixed(0).padStart(6)} ops/s   ` +
  `p50 ${percentile(l.times, 50).toFixed(2)} ms   p99 ${percentile(l.times, 99).toFixed(2)} ms`;

const line = (label: string, l: Load) =>
  `  ${label.padEnd(34)} ${l.rps.toFixed(0).padStart(6)} req/s   p50 ${String(l.p50).padStart(4)} ms   ` +
  `p99 ${String(l.p99).padStart(4)} ms   server loop busy ${(l.busy * 100).toFixed(0)}%` +
  (l.errors || l.non2xx ? `   errors ${l.errors}, non-2xx ${l.non2xx}` : '');

async function main(): Promise<void> {
  printMachine();
  const loadBefore = os.loadavg()[0];
  const dataDir = tempDir('sp-bench-posts-');
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ADMIN_TWO_FACTOR: 'optional',
  });
  const built = await buildDatabase(databaseFile(config), SIZES, PASSWORD);
  console.log(`Built in ${built.seconds.toFixed(1)} s`);

  const coldStart = performance.now();
  const server = await startServer(config, { clientDir: `${dataDir}/no-client` });
  const coldMs = performance.now() - coldStart;
  const base = `http://127.0.0.1:${server.port}`;
  let hello: ReturnType<typeof serve> | undefined;
  try {
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: built.email, password: PASSWORD }),
    });
    const session = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .find((c) => c.startsWith('sp_session='));
    if (login.status !== 200 || !session) throw new Error(`sign-in failed: ${login.status}`);
    const viewer = toCurrentUser((await findUserById(server.deps.db, ((await login.json()) as { id: string }).id))!);
    const headers = { cookie: session };
    const pageUrl = `${base}/api/posts?limit=${PAGE}`;
    const check = await fetch(pageUrl, { headers });
    const page = (await check.json()) as unknown[];
    if (check.status !== 200 || page.length !== PAGE) throw new Error(`GET /api/posts answered ${check.status}`);
    console.log(`One page: ${PAGE} posts with authors and counts, ${JSON.stringify(page).length} bytes of JSON`);

    // The same work without HTTP, in a plain loop: what the route does per request (the shared page, kept until
    // the next write, plus the viewer's own reactions), and what building a page from scratch costs.
    const query = { limit: PAGE, category: undefined };
    const routeWork = await plainLoop(async () => (await listPostsJson(server.deps, viewer, query)).body);
    const fromScratch = await plainLoop(async () =>
      JSON.stringify((await listPosts(server.deps, viewer, query)).posts),
    );

    await load(pageUrl, headers, 2); // warm-up
    const api = await load(pageUrl, headers);
    // For scale: the cheapest signed-in call (session check and a small JSON answer) through the same app.
    const sessionOnly = await load(`${base}/api/auth/user`, headers);
    // The shared page only lasts until the next write: the same load while another user toggles a reaction
    // on the newest post every 20 ms (50 writes a second, each one rebuilding the page).
    const newest = (page[0] as { id: string }).id;
    const writerId = (await listDirectorySince(server.deps.db, 0, '', 2)).find((u) => u.id !== viewer.id)!.id;
    const id = reactionId(newest, writerId);
    let liked = false;
    const toggle = async () => {
      const at = Date.now();
      liked = !liked;
      if (liked)
        await upsertReaction(server.deps.db, {
          id,
          postId: newest,
          userId: writerId,
          type: 'like',
          createdAt: at,
          updatedAt: at,
        });
      else await markReactionDeleted(server.deps.db, id, newest, at);
    };
    const writes = setInterval(() => {
      toggle().catch((error: unknown) => console.error('A reaction write failed:', error));
    }, WRITE_EVERY_MS);
    const withWrites = await load(pageUrl, headers).finally(() => clearInterval(writes));

    const helloApp = new Hono().get('/', (c) => c.text('Hello, world!'));
    hello = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: helloApp.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const helloAddress = hello.address();
    const helloUrl = `http://127.0.0.1:${typeof helloAddress === 'object' && helloAddress ? helloAddress.port : 0}/`;
    await load(helloUrl, {}, 2);
    const bare = await load(helloUrl, {});

    const clean = api.errors === 0 && api.non2xx === 0;
    // The "same work": the page's queries plus its JSON encoding, as a request without the cache does it.
    const ratio = api.rps / fromScratch.ops;
    const p99Pass = api.p99 < TARGET_P99_MS && clean;
    const ratioPass = ratio >= TARGET_RATIO && clean;
    const m = machine();
    const loadAverage = `load average ${loadBefore.toFixed(1)} before, ${os.loadavg()[0].toFixed(1)} after`;
    console.log(
      `\nGET /api/posts?limit=${PAGE}: ${CONNECTIONS} connections for ${DURATION_S} s (autocannon in a worker)`,
    );
    console.log(`${m.cores} cores, ${m.date}, ${loadAverage}`);
    console.log(line(`HTTP, real server`, api));
    console.log(line(`HTTP, a write every ${WRITE_EVERY_MS} ms`, withWrites));
    console.log(loopLine('plain loop, same work as the route', routeWork));
    console.log(loopLine('plain loop, page built from scratch', fromScratch));
    console.log(line('Hono hello-world', bare));
    console.log(line('GET /api/auth/user (session only)', sessionOnly));
    console.log(
      `  HTTP / plain loop of the queries + JSON: ${ratio.toFixed(2)} (target >= ${TARGET_RATIO})   ${verdict(ratioPass)}`,
    );
    console.log(`  p99: ${api.p99} ms (target < ${TARGET_P99_MS} ms)   ${verdict(p99Pass)}`);
    console.log(`  cold start: ${coldMs.toFixed(0)} ms (startServer until listening, on the 100k-post database)`);

    printFigure({
      figure: `GET /api/posts?limit=${PAGE} p99 at ${CONNECTIONS} connections (100k posts)`,
      target: `< ${TARGET_P99_MS} ms`,
      measured: `${api.p99} ms (p50 ${api.p50} ms, ${round(api.rps, 0)} req/s)`,
      baseline:
        `hello-world p99 ${bare.p99} ms; session-only call p99 ${sessionOnly.p99} ms; ` +
        `with a write every ${WRITE_EVERY_MS} ms p99 ${withWrites.p99} ms`,
      ratio: '-',
      pass: p99Pass,
    });
    printFigure({
      figure: `GET /api/posts?limit=${PAGE} throughput, HTTP vs plain loop`,
      target: `>= ${TARGET_RATIO}`,
      measured: `${round(api.rps, 0)} req/s`,
      baseline:
        `${round(fromScratch.ops, 0)} ops/s plain loop of the queries + JSON (with the shared page ` +
        `${round(routeWork.ops, 0)} ops/s; hello-world ${round(bare.rps, 0)} req/s)`,
      ratio: ratio.toFixed(2),
      pass: ratioPass,
    });
    printFigure({
      figure: 'Server cold start on the 100k-post database',
      target: '-',
      measured: `${round(coldMs, 0)} ms`,
      baseline: '-',
      ratio: '-',
      pass: null,
    });
  } finally {
    await new Promise<void>((resolve) => (hello ? hello.close(() => resolve()) : resolve()));
    await server.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
