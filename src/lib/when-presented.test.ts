import { describe, expect, it, vi } from 'vitest';
import { elementTiming, whenPresented, type PresentEnvironment } from './when-presented';

type Entry = { identifier: string };

/** A PerformanceObserver that reports what the test hands it, as Chromium reports Element Timing entries. */
function fakeObserver(supported: string[]) {
  const observers: { callback: (list: { getEntries: () => Entry[] }) => void; options?: unknown; on: boolean }[] = [];
  class FakeObserver {
    static supportedEntryTypes = supported;
    private readonly record;
    constructor(callback: (list: { getEntries: () => Entry[] }) => void) {
      this.record = { callback, on: false } as (typeof observers)[number];
      observers.push(this.record);
    }
    observe(options: unknown) {
      this.record.options = options;
      this.record.on = true;
    }
    disconnect() {
      this.record.on = false;
    }
  }
  const report = (...identifiers: string[]) => {
    for (const observer of observers.filter((o) => o.on))
      observer.callback({ getEntries: () => identifiers.map((identifier) => ({ identifier })) });
  };
  return { Observer: FakeObserver as unknown as typeof PerformanceObserver, observers, report };
}

function environment(Observer?: typeof PerformanceObserver) {
  const frames: (() => void)[] = [];
  const env: PresentEnvironment = {
    PerformanceObserver: Observer,
    requestAnimationFrame: (callback) => frames.push(callback),
    cancelAnimationFrame: (handle) => {
      frames[handle - 1] = () => {};
    },
  };
  return { env, runFrame: () => frames.splice(0).forEach((frame) => frame()) };
}

describe('whenPresented', () => {
  it('waits for the element entry of the named element, buffered, and reports it once', () => {
    const fake = fakeObserver(['element', 'paint']);
    const { env, runFrame } = environment(fake.Observer);
    const done = vi.fn();
    whenPresented('post-text', done, env);
    expect(fake.observers[0].options).toEqual({ type: 'element', buffered: true });
    runFrame();
    fake.report('other');
    expect(done).not.toHaveBeenCalled();
    fake.report('other', 'post-text');
    fake.report('post-text');
    expect(done).toHaveBeenCalledTimes(1);
    expect(fake.observers[0].on).toBe(false);
  });

  it('stops waiting when cancelled', () => {
    const fake = fakeObserver(['element']);
    const { env } = environment(fake.Observer);
    const done = vi.fn();
    const cancel = whenPresented('post-text', done, env);
    cancel();
    fake.report('post-text');
    expect(done).not.toHaveBeenCalled();
    expect(fake.observers[0].on).toBe(false);
  });

  it('without Element Timing, reports in a task after the next frame', async () => {
    vi.useFakeTimers();
    try {
      for (const Observer of [undefined, fakeObserver(['paint']).Observer]) {
        const { env, runFrame } = environment(Observer);
        const done = vi.fn();
        whenPresented('post-text', done, env);
        await vi.runAllTimersAsync();
        expect(done).not.toHaveBeenCalled();
        runFrame();
        expect(done).not.toHaveBeenCalled();
        await vi.runAllTimersAsync();
        expect(done).toHaveBeenCalledTimes(1);
      }
      const { env, runFrame } = environment();
      const done = vi.fn();
      whenPresented('post-text', done, env)();
      runFrame();
      await vi.runAllTimersAsync();
      expect(done).not.toHaveBeenCalled();
    } finally {
      vi.useRealTimers();
    }
  });

  it('marks an element with the lower-case attribute Chromium reads', () => {
    expect(elementTiming('post-text')).toEqual({ elementtiming: 'post-text' });
  });
});
