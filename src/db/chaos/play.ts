import { vi } from 'vitest';
import { ChaosRun, MAX_OPEN, sleep, within } from './run';
import { makeScript } from './script';

/** What to play: the seed and length of the script, and the test file a replay command names. */
export interface ChaosPlay {
  seed: number;
  ops: number;
  file: string;
}

/**
 * Plays a whole chaos run (docs/sync.md, "Sync chaos"): the users, the servers, the script step by step, then the
 * settle phase and every check; throws a report naming the seed, its replay command and what went wrong.
 */
export async function playChaos(run: ChaosRun, { seed, ops, file }: ChaosPlay): Promise<void> {
  const replay = `CHAOS_SEED=${seed} CHAOS_OPS=${ops} npx vitest run ${file}`;
  console.log(`sync chaos: seed ${seed}, ${ops} operations on ${run.servers.mode} (replay: ${replay})`);
  const started = Date.now();
  const users = await run.seedUsers();
  await run.startServers();
  await run.signIn(users);
  const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => {
    run.warnings.push(args.map(String).join(' '));
  });
  try {
    for (const device of run.devices.slice(0, MAX_OPEN)) await run.open(device);
    for (const [index, step] of makeScript(seed, ops).entries()) {
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
      `sync chaos: seed ${seed}: ${summary}; ${run.ledger.posts.size} posts, ${run.ledger.comments.size} comments, ` +
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
        `sync chaos failed with seed ${seed} (replay: ${replay})`,
        `${problems.length} problems:`,
        ...problems.slice(0, 40).map((p) => `  ${p}`),
        'last operations:',
        ...run.log.slice(-40).map((l) => `  ${l}`),
        'history of the first documents named:',
        ...run.history(problems),
        'server errors (last lines each server printed):',
        ...run.servers.output().map((l) => `  ${l}`),
        'sync warnings:',
        ...run.warnings.slice(0, 10).map((w) => `  ${w}`),
      ].join('\n');
      throw new Error(report);
    }
  } finally {
    warn.mockRestore();
  }
}

/** Closes whatever a run left open: its devices' databases and its servers (a test file's afterAll). */
export async function endChaos(run: ChaosRun | null): Promise<void> {
  if (!run) return;
  await Promise.all(run.devices.map((d) => run.close(d).catch(() => undefined)));
  await run.servers.close();
}
