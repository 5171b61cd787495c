// `npm test`: type-check and lint, unit and integration tests (vitest), the server suite again on PostgreSQL when its
// binaries are here, then the browser journeys (Playwright).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { findPostgresBin, POSTGRES_SKIPPED } from '../server/test/postgres';
import { CHROMIUM, chromiumInstallCommand } from './chromium';

if (!CHROMIUM) {
  const named = process.env.CHROMIUM_PATH;
  const osRelease = fs.existsSync('/etc/os-release') ? fs.readFileSync('/etc/os-release', 'utf8') : '';
  console.error(
    (named ? `CHROMIUM_PATH names ${named}, which does not exist.\n` : 'The browser tests need a Chromium.\n') +
      `Install one with:  ${chromiumInstallCommand(process.platform, osRelease)}\n` +
      '(or set CHROMIUM_PATH to a Chromium or Chrome binary).',
  );
  process.exit(1);
}
console.log(`Browser tests use ${CHROMIUM.path} (${CHROMIUM.source}).`);

// The server suite a second time on PostgreSQL when its binaries are here (decision 157); said when it is not.
const postgres = findPostgresBin() !== null;
if (!postgres) console.log(`\n${POSTGRES_SKIPPED}: the server suite runs on SQLite only.`);
interface Step {
  command: string;
  args: string[];
  env?: Record<string, string>;
}
// The projects of vite.config.ts; `alone` (tests that compare answer times) runs after the others, on its own.
const together = ['--project', 'server', '--project', 'client'];
const alone = ['--project', 'alone'];
const steps: Step[] = [
  { command: 'npm', args: ['run', 'check'] },
  { command: 'npx', args: ['vitest', 'run', ...together] },
  { command: 'npx', args: ['vitest', 'run', ...alone] },
  ...(postgres
    ? [
        // The server's own tests: a filter matches anywhere in a path, and `server` alone also matched src/ files.
        {
          command: 'npx',
          args: ['vitest', 'run', 'server/', '--project', 'server'],
          env: { TEST_DATABASE: 'postgres' },
        },
        { command: 'npx', args: ['vitest', 'run', ...alone], env: { TEST_DATABASE: 'postgres' } },
      ]
    : []),
  { command: 'npx', args: ['playwright', 'test'] },
];
for (const { command, args, env = {} } of steps) {
  const shown = `${Object.entries(env)
    .map(([name, value]) => `${name}=${value} `)
    .join('')}${command} ${args.join(' ')}`;
  console.log(`\n> ${shown}`);
  const started = Date.now();
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  // Each step's time, so a run that grows towards CI's limit shows which step grew.
  console.log(`\n> ${shown}: ${Math.round((Date.now() - started) / 1000)} s`);
  if (result.status !== 0) {
    console.error(`\n${shown} failed`);
    process.exit(result.status ?? 1);
  }
}
console.log('\nAll checks and tests passed.');
