// The production install for real (docs/deploy.md, decision 135): build here, copy the app without node_modules into a
// temporary folder, `npm ci --omit=dev` there (install scripts included: better-sqlite3 is compiled where no prebuilt
// binary can be fetched), then `npm start` and `npm run backup` must work with no build tools installed. Run by .ci/run;
// about a minute and a half, most of it npm, so it is not part of the vitest suite.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../server/lib/paths';

/** What a deploy copies from a checkout: everything but what npm and the tests make. */
const LEFT_OUT = new Set(['node_modules', 'data', '.tmp', 'test-results', 'playwright-report', '.git']);
const PORT = Number(process.env.PRODUCTION_CHECK_PORT ?? 4319);

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): void {
  console.log(`> ${command} ${args.join(' ')}   (in ${cwd})`);
  try {
    execFileSync(command, args, { cwd, stdio: 'inherit', env: { ...process.env, ...env } });
  } catch {
    fail(`${command} ${args.join(' ')} failed (its output is above)`);
  }
}

function fail(message: string): never {
  console.error(`\nProduction install check FAILED: ${message}`);
  process.exit(1);
}

/** Starts `npm start` in `dir` and answers what it printed once the app answers, or fails after `timeoutMs`. */
async function startAndFetch(dir: string, dataDir: string, timeoutMs = 60_000): Promise<string> {
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...process.env, PORT: String(PORT), HOST: '127.0.0.1', DATA_DIR: dataDir, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = Date.now();
  try {
    while (Date.now() - started < timeoutMs) {
      if (child.exitCode !== null) fail(`npm start exited with ${child.exitCode}:\n${output}`);
      const page = await fetch(`http://127.0.0.1:${PORT}/`).catch(() => null);
      if (page) {
        const html = await page.text();
        if (page.status !== 200 || !html.includes('<div id="root">')) fail(`"/" answered ${page.status}:\n${html}`);
        const config = await fetch(`http://127.0.0.1:${PORT}/api/config`);
        if (config.status !== 200) fail(`/api/config answered ${config.status}`);
        return output;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return fail(`the app did not answer within ${timeoutMs / 1000} s:\n${output}`);
  } finally {
    // npm and the server it started are one process group.
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
  }
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
  run('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund'], app);
  console.log(`npm ci --omit=dev took ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (const tool of ['vite', 'tsx', 'esbuild', 'vitest']) {
    if (fs.existsSync(path.join(app, 'node_modules', tool))) fail(`${tool} was installed by npm ci --omit=dev`);
  }
  started = Date.now();
  const dataDir = path.join(scratch, 'data');
  const output = await startAndFetch(app, dataDir);
  if (/Building the client/.test(output)) fail(`the server tried to build the client:\n${output}`);
  console.log(`npm start served the app in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  run('npm', ['run', 'backup', '--', '--to', path.join(scratch, 'backups')], app, { DATA_DIR: dataDir });
  if (fs.readdirSync(path.join(scratch, 'backups')).length !== 1) fail('npm run backup wrote no backup folder');
  console.log('\nProduction install check passed: npm ci --omit=dev after npm run build serves the app.');
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
