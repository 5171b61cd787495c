import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withTimeout } from './with-timeout';

const never = () => new Promise<string>(() => {});

describe('withTimeout', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers what the work answers when it comes in time, and leaves no timer behind', async () => {
    const answer = withTimeout(Promise.resolve('page'), 1000, () => 'late');
    await expect(answer).resolves.toBe('page');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects as the work does when it fails in time, and leaves no timer behind', async () => {
    const answer = withTimeout(Promise.reject(new Error('offline')), 1000, () => 'late');
    await expect(answer).rejects.toThrow('offline');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers what onLate returns once the time is up, though the work never ends', async () => {
    const answer = withTimeout(never(), 1000, () => null);
    await vi.advanceTimersByTimeAsync(999);
    let settled = false;
    void answer.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(answer).resolves.toBeNull();
  });

  it('rejects with what onLate throws once the time is up, after onLate has aborted the work', async () => {
    const abort = new AbortController();
    const answer = withTimeout(never(), 500, () => {
      abort.abort();
      throw new DOMException('took over 500 ms', 'TimeoutError');
    });
    const rejected = expect(answer).rejects.toThrow('took over 500 ms');
    await vi.advanceTimersByTimeAsync(500);
    await rejected;
    expect(abort.signal.aborted).toBe(true);
  });

  it('answers undefined once the time is up when no onLate is given', async () => {
    const answer = withTimeout(never(), 200);
    await vi.advanceTimersByTimeAsync(200);
    await expect(answer).resolves.toBeUndefined();
  });

  it('takes a value that is not a promise as work already done', async () => {
    await expect(withTimeout(undefined, 200, () => 'late')).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });
});
