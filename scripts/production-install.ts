// The production install for real (docs/deploy.md, decision 135): build here, copy the app without node_modules into a
// temporary folder, `npm ci --omit=dev` there (install scripts included: better-sqlite3 takes the binary the
// development install built, as prebuild-install would download one), then `npm start` and `npm run backup` must work
// with no build tools installed, and `npm run migrate-to-postgres` must move what the app stored to a throwaway
// PostgreSQL that `npm start` then serves. Run by .ci/run, so it is not part of the vitest suite.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ROOT } from '../server/lib/paths';
import { findPostgresBin, startTestPostgres } from '../server/test/postgres';

/** What a deploy copies from a checkout: everything but what npm and the tests make. */
const LEFT_OUT = new Set(['node_modules', 'data', '.tmp', 'test-results', 'playwright-report', '.git']);
const PORT = Number(process.env.PRODUCTION_CHECK_PORT ?? 4319);
const BASE = `http://127.0.0.1:${PORT}`;
const ADMIN = { email: 'admin@production-check.example', password: 'Str0ng!Passw0rd' };
/** The first start makes the System Administrator; the check signs in with a password alone (decision 148). */
const FIRST_ADMIN = { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, ADMIN_TWO_FACTOR: 'optional' };
const POST = 'Written on SQLite, read on PostgreSQL';

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): void {
  console.log(`> ${command} ${args.join(' ')}   (in ${cwd})`);
  try {
    execFileSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
  } catch {
    fail(`${command} ${args.join(' ')} failed (its output is above)`);
  }
}

/** Thrown to end the check; the servers and the cluster it started are stopped on the way out. */
class CheckFailed extends Error {}

function fail(message: string): never {
  throw new CheckFailed(message);
}

/**
 * Runs `npm start` in `dir` with `env` (DATA_DIR among it); once the app answers "/" and /api/config, runs `check`
 * against it, then stops it and waits until it lets go of its data folder. Answers what it printed; fails after
 * `timeoutMs` without an answer.
 */
async function serve(
  dir: string,
  env: Record<string, string>,
  check: () => Promise<void> = async () => undefined,
  timeoutMs = 60_000,
): Promise<string> {
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  try {
    while (Date.now() - started < timeoutMs) {
      if (child.exitCode !== null) fail(`npm start exited with ${child.exitCode}:\n${output}`);
      const page = await fetch(`${BASE}/`).catch(() => null);
      if (page) {
        const html = await page.text();
        if (page.status !== 200 || !html.includes('<div id="root">')) fail(`"/" answered ${page.status}:\n${html}`);
        const config = await fetch(`${BASE}/api/config`);
        if (config.status !== 200) fail(`/api/config answered ${config.status}`);
        await check();
        return output;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return fail(`the app did not answer within ${timeoutMs / 1000} s:\n${output}`);
  } finally {
    // npm and the server it started are one process group.
    if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGTERM');
    await exited;
    await dataDirFreed(env.DATA_DIR);
  }
}

/** Waits until the stopped server has removed its lock (server/db/client.ts), so the next command may take it. */
async function dataDirFreed(dataDir: string, timeoutMs = 15_000): Promise<void> {
  const lock = path.join(dataDir, 'server.pid');
  for (const started = Date.now(); fs.existsSync(lock);) {
    if (Date.now() - started > timeoutMs) fail(`the stopped server still held ${lock} after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A JSON request to the app, with a session `cookie` when given; fails the check unless it answers `status`. */
async function api(method: string, url: string, status: number, body?: unknown, cookie = ''): Promise<Response> {
  const res = await fetch(`${BASE}${url}`, {
    method,
    headers: { 'content-type': 'application/json', cookie },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== status) fail(`${method} ${url} answered ${res.status}, not ${status}: ${await res.text()}`);
  return res;
}

/** Signs the first System Administrator in with a password; answers the session cookie. */
async function signIn(): Promise<string> {
  const res = await api('POST', '/api/auth/login', 200, ADMIN);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('sp_session='));
  return cookie?.split(';')[0] ?? fail('signing in set no session cookie');
}

/** The contents of the posts the admin sees. */
async function postContents(cookie: string): Promise<string[]> {
  const posts = (await (await api('GET', '/api/posts', 200, undefined, cookie)).json()) as { content: string }[];
  return posts.map((post) => post.content);
}

/**
 * `npm run migrate-to-postgres` on the production install (no tsx, no development dependency) into a fresh database
 * of a throwaway PostgreSQL, then `npm start` on it must find the admin and the post SQLite held (docs/deploy.md,
 * "Moving to PostgreSQL"). Skipped, saying so, where PostgreSQL's binaries are absent.
 */
async function checkMoveToPostgres(app: string, dataDir: string): Promise<void> {
  const bin = findPostgresBin();
  if (bin === null) {
    console.log('\nPostgreSQL not found (set PG_BIN or install postgresql): migrate-to-postgres is NOT checked.');
    return;
  }
  const started = Date.now();
  const took: string[] = [];
  const lap = (what: string, from: number) => took.push(`${what} ${((Date.now() - from) / 1000).toFixed(1)} s`);
  const cluster = await startTestPostgres(bin);
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE portal TEMPLATE template0 LOCALE 'C'`);
    await admin.end();
    lap('a throwaway cluster', started);
    const url = cluster.url.replace(/\/postgres$/, '/portal');
    let step = Date.now();
    run('npm', ['run', 'migrate-to-postgres', '--', url], app, { DATA_DIR: dataDir });
    lap('migrate-to-postgres', step);
    step = Date.now();
    await serve(app, { DATA_DIR: dataDir, DATABASE_URL: url, ADMIN_TWO_FACTOR: 'optional' }, async () => {
      const contents = await postContents(await signIn());
      if (contents.join() !== POST) fail(`npm start on PostgreSQL showed the posts ${JSON.stringify(contents)}`);
    });
    lap('npm start on it, a sign-in and the posts', step);
  } finally {
    await cluster.stop();
  }
  console.log(`Moved to PostgreSQL in ${((Date.now() - started) / 1000).toFixed(1)} s: ${took.join(', ')}.`);
}

/**
 * The better-sqlite3 binary the development install built, packed as the prebuilt one prebuild-install downloads from
 * GitHub, which this machine cannot reach: `npm ci --omit=dev` in `scratch`'s app then installs it as an install with
 * internet access would, instead of compiling SQLite a second time (decision 169). Its name says this platform; a
 * system whose prebuilt binaries are named otherwise (musl) finds none and compiles it, as it would with none packed.
 */
function packLocalPrebuild(scratch: string): void {
  const packageDir = path.join(ROOT, 'node_modules', 'better-sqlite3');
  const binary = 'build/Release/better_sqlite3.node';
  if (!fs.existsSync(path.join(packageDir, binary))) return;
  const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const dir = path.join(scratch, 'prebuilds');
  fs.mkdirSync(dir);
  execFileSync('tar', ['-czf', path.join(dir, name), '-C', packageDir, binary]);
  // prebuild-install reads its settings from the first .prebuild-installrc up from the package: the app stays as
  // deployed, and an npm setting in the environment would make npm warn.
  fs.writeFileSync(path.join(scratch, '.prebuild-installrc'), JSON.stringify({ 'local-prebuilds': dir }));
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-production-'));
const app = path.join(scratch, 'app');
try {
  run('npm', ['run', 'build'], ROOT);
  fs.cpSync(ROOT, app, {
    recursive: true,
    preserveTimestamps: true,
    filter: (from) => !LEFT_OUT.has(path.basename(from)),
  });
  let started = Date.now();
  packLocalPrebuild(scratch);
  run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], app);
  console.log(`npm ci --omit=dev took ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const tool of ['vite', 'tsx', 'esbuild', 'vitest']) {
    if (fs.existsSync(path.join(app, 'node_modules', tool))) fail(`${tool} was installed by npm ci --omit=dev`);
  }
  started = Date.now();
  const dataDir = path.join(scratch, 'data');
  const output = await serve(app, { DATA_DIR: dataDir, ...FIRST_ADMIN }, async () => {
    await api('POST', '/api/posts', 201, { content: POST }, await signIn());
  });
  if (/Building the client/.test(output)) fail(`the server tried to build the client:\n${output}`);
  console.log(`npm start served the app and took a post in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  run('npm', ['run', 'backup', '--', '--to', path.join(scratch, 'backups')], app, { DATA_DIR: dataDir });
  if (fs.readdirSync(path.join(scratch, 'backups')).length !== 1) fail('npm run backup wrote no backup folder');
  await checkMoveToPostgres(app, dataDir);
  console.log('\nProduction install check passed: npm ci --omit=dev after npm run build serves the app.');
} catch (error) {
  if (!(error instanceof CheckFailed)) throw error;
  console.error(`\nProduction install check FAILED: ${error.message}`);
  process.exitCode = 1;
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
