// `npm run test:chaos [-- --runs N --ops M --two-servers]`: the sync chaos test (with --two-servers, its two-server
// mode) with N fresh seeds, one after another; prints the replay command of every seed that failed and exits non-zero
// if any did (docs/sync.md, "Sync chaos").
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { findPostgresBin, POSTGRES_SKIPPED } from '../server/test/postgres';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    ops: { type: 'string', default: '300' },
    'two-servers': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const ops = Number(values.ops);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(ops) || ops < 10) {
  console.error('Usage: npm run test:chaos -- [--runs N (at least 1)] [--ops M (at least 10)] [--two-servers]');
  process.exit(2);
}

// Without PostgreSQL every run would skip, and a row of skips must not read as passes.
if (values['two-servers'] && findPostgresBin() === null) {
  console.error(POSTGRES_SKIPPED);
  process.exit(2);
}
const file = values['two-servers'] ? 'src/db/sync-chaos-two-servers.test.ts' : 'src/db/sync-chaos.test.ts';
const replay = (seed: number) => `CHAOS_SEED=${seed} CHAOS_OPS=${ops} npx vitest run ${file}`;
const failed: number[] = [];
for (let i = 1; i <= runs; i += 1) {
  const seed = randomInt(2 ** 32);
  console.log(`\n[${i}/${runs}] seed ${seed}`);
  const result = spawnSync('npx', ['vitest', 'run', file], {
    stdio: 'inherit',
    env: { ...process.env, CHAOS_SEED: String(seed), CHAOS_OPS: String(ops) },
  });
  if (result.status !== 0) failed.push(seed);
}
console.log(`\nsync chaos: ${runs - failed.length} passed, ${failed.length} failed`);
for (const seed of failed) console.log(`  replay: ${replay(seed)}`);
process.exit(failed.length > 0 ? 1 : 0);
