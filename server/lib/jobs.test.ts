import { describe, expect, it } from 'vitest';
import { startJob } from './jobs';

describe('background jobs', () => {
  it('runs on its period and at once, and a failure is logged as nothing done, not thrown', async () => {
    const logged: string[] = [];
    const log = { error: (message: string) => logged.push(message) } as unknown as Parameters<
      typeof startJob
    >[0]['log']; // only error() is called
    let runs = 0;
    const job = startJob({ log }, 'Counting', 20, () => {
      runs += 1;
      if (runs === 1) throw new Error('the database is locked');
      return runs;
    });
    expect(await job.check()).toBe(0);
    expect(logged).toEqual(['Counting failed']);
    expect(await job.check()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 70));
    await job.stop();
    const after = runs;
    expect(after).toBeGreaterThan(2);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(runs).toBe(after);
  });
});
