// `npm test`: type-check and lint, unit and integration tests (vitest), then the browser journeys (Playwright).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!fs.existsSync(chromium)) {
  console.error(
    `The browser tests need Debian's Chromium at ${chromium}.\n` +
      'Install it with:  sudo apt-get update && sudo apt-get install -y chromium\n' +
      '(or set CHROMIUM_PATH to another Chromium binary).',
  );
  process.exit(1);
}

const steps = [
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
