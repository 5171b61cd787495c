/** The `elementtiming` name of a post card's text: once one is presented, the feed's cards are on the screen. */
export const POST_TEXT_TIMING = 'post-text';

/** Attributes that mark an element for Element Timing (React passes the lower-case attribute through). */
export function elementTiming(name: string): Record<string, string> {
  return { elementtiming: name };
}

/** What `whenPresented` needs of the page; tests give their own. */
export interface PresentEnvironment {
  PerformanceObserver?: typeof PerformanceObserver;
  requestAnimationFrame: (callback: () => void) => number;
  cancelAnimationFrame: (handle: number) => void;
}

const pageEnvironment = (): PresentEnvironment => ({
  PerformanceObserver: globalThis.PerformanceObserver,
  requestAnimationFrame: (callback) => requestAnimationFrame(callback),
  cancelAnimationFrame: (handle) => cancelAnimationFrame(handle),
});

/**
 * Calls `done` once an element marked `elementTiming(name)` has been presented on the screen. Where the browser has
 * Element Timing (Chromium) that is its entry, which comes after the frame has reached the screen; elsewhere, a task
 * after the next frame's callbacks, which run just before that frame is drawn. Returns a function that cancels.
 */
export function whenPresented(name: string, done: () => void, env: PresentEnvironment = pageEnvironment()): () => void {
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done();
  };
  const Observer = env.PerformanceObserver;
  if (Observer?.supportedEntryTypes?.includes('element')) {
    const observer = new Observer((list) => {
      const entries = list.getEntries() as unknown as { identifier?: string }[];
      if (!entries.some((entry) => entry.identifier === name)) return;
      observer.disconnect();
      finish();
    });
    // buffered: a card presented before this observer existed counts too.
    observer.observe({ type: 'element', buffered: true });
    return () => {
      finished = true;
      observer.disconnect();
    };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = env.requestAnimationFrame(() => {
    timer = setTimeout(finish);
  });
  return () => {
    finished = true;
    env.cancelAnimationFrame(frame);
    clearTimeout(timer);
  };
}
