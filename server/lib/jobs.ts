import type { AppDeps } from './context';

/** A background job of the server process, run every `everyMs`; `check` runs it at once (tests). */
export interface Job {
  check: () => number;
  stop: () => void;
}

/**
 * Starts a job: `run` answers how much it did; a failure is logged under `name` and counts as nothing done, so one bad
 * row never stops the next run. The timer does not keep the process alive.
 */
export function startJob(deps: Pick<AppDeps, 'log'>, name: string, everyMs: number, run: () => number): Job {
  const check = () => {
    try {
      return run();
    } catch (error) {
      deps.log.error(`${name} failed`, error);
      return 0;
    }
  };
  const timer = setInterval(check, everyMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
