/**
 * Wraps a background job (sending what waits on the device) so that calls while it runs fold into one more run
 * after it, with the latest argument; a failure is logged and the next call tries again.
 */
export function foldRuns<A>(work: (arg: A) => Promise<void>, failure: string): (arg: A) => Promise<void> {
  let running: Promise<void> | null = null;
  let again = false;
  let latest: A;
  return (arg) => {
    latest = arg;
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await work(latest);
        } catch (error) {
          console.error(failure, error);
        }
      } while (again);
    })().finally(() => {
      running = null;
    });
    return running;
  };
}
