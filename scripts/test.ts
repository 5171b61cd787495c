// `npm test`: type-check and lint, unit and integration tests (vitest), then the browser journeys (Playwright).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
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

const steps: [string, string[]][] = [
  ['npm', ['run', 'check']],
  ['npx', ['vitest', 'run']],
  ['npx', ['playwright', 'test']],
];
for (const [command, args] of steps) {
  console.log(`\n> ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`\n${command} ${args.join(' ')} failed`);
    process.exit(result.status ?? 1);
  }
}
console.log('\nAll checks and tests passed.');
