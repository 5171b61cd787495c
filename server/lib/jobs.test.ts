import { afterAll, describe, expect, it } from 'vitest';
import { closeDb, openDb, openPostgres } from '../db/client';
import { postgresOrSkip, startTestPostgres, type TestPostgres } from '../test/postgres';
import { startJob } from './jobs';

const bin = postgresOrSkip();
const silent = { info: () => undefined, error: () => undefined };

describe('background jobs', () => {
  it('runs on its period and at once, and a failure is logged as nothing done, not thrown', async () => {
    const logged: string[] = [];
    const log = { error: (message: string) => logged.push(message) } as unknown as Parameters<
      typeof startJob
    >[0]['log']; // only error() is called
    let runs = 0;
    const db = openDb(':memory:');
    const job = startJob({ log, db }, 'Counting', 20, () => {
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
    await closeDb(db);
  });
});

describe.skipIf(bin === null)('background jobs of several servers on one PostgreSQL', () => {
  let postgres: TestPostgres | undefined;
  afterAll(async () => {
    await postgres?.stop();
  });

  it('runs a job on one server at a time: the others skip their turn while it runs, and take it after', async () => {
    postgres = await startTestPostgres(bin);
    const [a, b] = [await openPostgres(postgres.url), await openPostgres(postgres.url)];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const jobA = startJob({ log: silent, db: a }, 'Sending reminders', 60_000, async () => {
      ran.push('a');
      await held;
      return 1;
    });
    const jobB = startJob({ log: silent, db: b }, 'Sending reminders', 60_000, async () => {
      ran.push('b');
      return 1;
    });
    const first = jobA.check();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await jobB.check()).toBe(0); // A holds it
    release();
    expect(await first).toBe(1);
    expect(await jobB.check()).toBe(1);
    expect(ran).toEqual(['a', 'b']);
    await jobA.stop();
    await jobB.stop();
    await closeDb(a);
    await closeDb(b);
  });
});
