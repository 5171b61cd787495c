import 'fake-indexeddb/auto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it, vi } from 'vitest';
import { freePort } from '../../server/test/server-process';
import { ChaosRun, MAX_OPEN, sleep, within } from './chaos/run';
import { chaosSettings, makeScript } from './chaos/script';

/**
 * Sync chaos (docs/sync.md "Sync chaos"): three devices make a few hundred random writes while going offline, losing
 * answers, closing and reopening, and the server restarts twice (once SIGKILLed); at the end every device and the
 * server must hold the same data, everything written must be there, once. `npm test` runs the fixed seed;
 * `npm run test:chaos` tries fresh ones and prints each failing seed's replay command (scripts/chaos.ts). The run's
 * parts: the script from the seed (chaos/script.ts), the devices and the ledger (chaos/ledger.ts), the run and its
 * checks (chaos/run.ts).
 *
 * CHAOS_SEED=<n> replays a run's script; CHAOS_OPS=<n> makes a longer one (default 300).
 */
const { seed: SEED, ops: OPS, trace: TRACE } = chaosSettings();

describe('sync chaos', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-chaos-'));
  let run: ChaosRun | null = null;
  afterAll(async () => {
    if (run) {
      await Promise.all(run.devices.map((d) => run!.close(d).catch(() => undefined)));
      await run.server?.stop();
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    `keeps three devices and the server identical through offline writes, lost answers and two server restarts (seed ${SEED})`,
    async () => {
      console.log(`sync chaos: seed ${SEED}, ${OPS} operations (replay: CHAOS_SEED=${SEED} CHAOS_OPS=${OPS})`);
      const started = Date.now();
      run = new ChaosRun(dataDir, await freePort(), SEED, TRACE);
      const users = await run.seedUsers();
      await run.startServer();
      await run.signIn(users);
      const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
        run!.warnings.push(args.map(String).join(' '));
      });
      const script = makeScript(SEED, OPS);
      try {
        for (const device of run.devices.slice(0, MAX_OPEN)) await run.open(device);
        for (const [index, step] of script.entries()) {
          try {
            await within(60_000, `#${index} ${step.kind}`, run.run(index, step));
          } catch (error) {
            run.note(index, `${step.kind} threw ${(error as Error).message}`);
            run.anomalies.push(`#${index} ${step.kind} threw ${(error as Error).stack}`);
          }
          await sleep(step.delayMs);
        }
        const runMs = Date.now() - started;
        const problems = [...run.anomalies, ...(await run.settle())];
        const summary = [...run.counts].map(([k, n]) => `${k} ${n}`).join(', ');
        console.log(
          `sync chaos: seed ${SEED}: ${summary}; ${run.ledger.posts.size} posts, ${run.ledger.comments.size} comments, ` +
            `${run.ledger.messages.size} messages, ${run.ledger.acknowledged.size} acknowledgements; ` +
            `run ${(runMs / 1000).toFixed(1)} s, settle ${((Date.now() - started - runMs) / 1000).toFixed(1)} s; ` +
            `${run.warnings.length} sync warnings`,
        );
        // RxDB's notice about its free storage is not a sync warning worth reading; the rest are.
        const notable = [...new Set(run.warnings.filter((w) => !w.includes('RxDB Open Core')))];
        if (notable.length > 0) console.log(`sync chaos warnings:\n  ${notable.slice(0, 10).join('\n  ')}`);
        if (process.env.CHAOS_VERBOSE) console.log([...run.log, ...run.warnings].join('\n'));
        if (problems.length > 0) {
          const report = [
            `sync chaos failed with seed ${SEED} (replay: CHAOS_SEED=${SEED} CHAOS_OPS=${OPS} npx vitest run src/db/sync-chaos.test.ts)`,
            `${problems.length} problems:`,
            ...problems.slice(0, 40).map((p) => `  ${p}`),
            'last operations:',
            ...run.log.slice(-40).map((l) => `  ${l}`),
            'history of the first documents named:',
            ...run.history(problems),
            'server errors (last lines the server printed):',
            ...(run.server?.output() ?? '')
              .split('\n')
              .filter(Boolean)
              .slice(-15)
              .map((l) => `  ${l.slice(0, 300)}`),
            'sync warnings:',
            ...run.warnings.slice(0, 10).map((w) => `  ${w}`),
          ].join('\n');
          throw new Error(report);
        }
      } finally {
        warn.mockRestore();
      }
    },
    Math.max(240_000, OPS * 1000),
  );
});
