/**
 * Settles as `work` does, unless `ms` pass first: then with what `onLate` returns, or rejects with what it throws
 * (without `onLate`, with undefined). Either way the timer is cleared. `onLate` may abort the work: the answer never
 * waits for the work to heed it (decision 84).
 */
export function withTimeout<T>(work: T | PromiseLike<T>, ms: number): Promise<T | undefined>;
export function withTimeout<T, L>(work: T | PromiseLike<T>, ms: number, onLate: () => L): Promise<T | L>;
export async function withTimeout<T>(
  work: T | PromiseLike<T>,
  ms: number,
  onLate: () => unknown = () => undefined,
): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<unknown>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(onLate());
      } catch (error) {
        reject(error);
      }
    }, ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
