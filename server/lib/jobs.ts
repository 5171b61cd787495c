import { exclusive } from '../db/client';
import type { AppDeps } from './context';

/** A background job of the server process, run every `everyMs`; `check` runs it at once (tests). */
export interface Job {
  check: () => Promise<number>;
  /** Stops the timer; resolves once a run in progress has ended (so the database can be closed after it). */
  stop: () => Promise<void>;
}

/**
 * Starts a job: `run` answers how much it did; of several servers on one database, one runs it at a time; a failure is logged under `name` and counts as nothing done, so one bad
 * row never stops the next run. Runs never overlap: a tick while one is running is skipped, and `check` waits for it.
 * The timer does not keep the process alive.
 */
export function startJob(
  deps: Pick<AppDeps, 'log' | 'db'>,
  name: string,
  everyMs: number,
  run: () => number | Promise<number>,
): Job {
  let running: Promise<number> | null = null;
  const once = async (): Promise<number> => {
    try {
      return (await exclusive(deps.db, name, async () => run())) ?? 0;
    } catch (error) {
      deps.log.error(`${name} failed`, error);
      return 0;
    }
  };
  const check = async (): Promise<number> => {
    while (running) await running;
    const current = once();
    running = current;
    try {
      return await current;
    } finally {
      running = null;
    }
  };
  const timer = setInterval(() => {
    if (!running) void check();
  }, everyMs);
  timer.unref();
  const stop = async () => {
    clearInterval(timer);
    while (running) await running;
  };
  return { check, stop };
}
