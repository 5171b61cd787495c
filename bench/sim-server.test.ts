import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { childrenOf, cpuMs } from './sim-server';

/** What bench/bench-postgres.ts counts as PostgreSQL's CPU rests on these two readings of /proc. */
describe("a process's CPU as the benches read it from /proc", () => {
  it('lists the processes a process started', async () => {
    const sleeper = spawn('sleep', ['30']);
    try {
      expect(childrenOf(process.pid)).toContain(sleeper.pid);
    } finally {
      const exited = new Promise((resolve) => sleeper.once('exit', resolve));
      sleeper.kill();
      await exited;
    }
    expect(childrenOf(process.pid)).not.toContain(sleeper.pid);
  });

  it("counts an ended child's CPU in its parent's once the parent has waited for it", async () => {
    const reaped = () => cpuMs(process.pid, true) - cpuMs(process.pid);
    const before = reaped();
    // A child that spends 300 ms of CPU, then ends.
    const burner = spawn(process.execPath, ['-e', 'while (process.cpuUsage().user < 300_000);']);
    await new Promise((resolve) => burner.once('exit', resolve));
    expect(reaped() - before).toBeGreaterThanOrEqual(250);
  });
});
