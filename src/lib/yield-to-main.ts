interface SchedulerWithYield {
  yield?: () => Promise<void>;
}

/**
 * Lets the browser handle input and paint before long work goes on: `scheduler.yield()` where the browser has it
 * (the work resumes ahead of other queued tasks), else a new task. Splitting a first sign-in's set-up this way
 * keeps each step of it short on a slow phone.
 */
export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: SchedulerWithYield }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}
