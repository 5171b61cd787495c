import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SW_MESSAGES } from '../../schema/offline';

// workbox-window's development build logs through `self`, which Node lacks; the logs are not wanted here.
vi.hoisted(() => Object.assign(globalThis, { self: globalThis, __WB_DISABLE_DEV_LOGS: true }));

const { activateWaitingWorker, registerServiceWorker, waitingWorkerAtom } = await import('./service-worker');
const { appStore } = await import('./store');

const ORIGIN = 'https://portal.example.org';

/** A service worker the page can message; what it was sent is kept. */
function fakeWorker(): ServiceWorker & { sent: unknown[] } {
  const sent: unknown[] = [];
  const worker = Object.assign(new EventTarget(), {
    scriptURL: `${ORIGIN}/sw.js`,
    state: 'installed',
    sent,
    postMessage: (message: unknown) => sent.push(message),
  });
  // The fields workbox-window reads; the rest of the interface is not used.
  return worker as unknown as ServiceWorker & { sent: unknown[] };
}

/** A browser whose page is controlled by `controller` and whose registration holds `waiting`. */
function fakeBrowser(controller: ServiceWorker | null, waiting: ServiceWorker | null) {
  const container = Object.assign(new EventTarget(), {
    controller,
    register: vi.fn(async () => Object.assign(new EventTarget(), { waiting, installing: null, active: controller })),
  });
  const reload = vi.fn();
  vi.stubGlobal('navigator', { serviceWorker: container });
  vi.stubGlobal('location', new URL(`${ORIGIN}/`));
  vi.stubGlobal('document', { readyState: 'complete', baseURI: `${ORIGIN}/` });
  vi.stubGlobal('window', { location: { reload } });
  return { container, reload };
}

/** Lets workbox-window's registration and its queued events run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

beforeEach(() => {
  vi.stubEnv('PROD', true);
  appStore.set(waitingWorkerAtom, null);
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

describe('the service worker registration and the update banner', () => {
  it('offers a version that waits behind the controlling one, and Update Now activates it and reloads once', async () => {
    const waiting = fakeWorker();
    const { container, reload } = fakeBrowser(fakeWorker(), waiting);
    registerServiceWorker();
    await settle();
    expect(container.register).toHaveBeenCalledWith('/sw.js', { scope: '/' });
    expect(appStore.get(waitingWorkerAtom)).toBe(waiting);

    activateWaitingWorker();
    await settle();
    // The message sw/sw.ts answers with skipWaiting().
    expect(waiting.sent).toEqual([{ type: SW_MESSAGES.skipWaiting }]);
    expect(reload).not.toHaveBeenCalled();
    container.controller = waiting;
    container.dispatchEvent(new Event('controllerchange'));
    container.dispatchEvent(new Event('controllerchange'));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('reloads at once when the version it offered has already taken over (another tab updated first)', async () => {
    const waiting = fakeWorker();
    const { container, reload } = fakeBrowser(fakeWorker(), waiting);
    registerServiceWorker();
    await settle();
    expect(appStore.get(waitingWorkerAtom)).toBe(waiting);
    // Another tab's Update Now: the version is active and controls this page before its banner is clicked.
    Object.assign(waiting, { state: 'activated' });
    container.controller = waiting;
    container.dispatchEvent(new Event('controllerchange'));

    activateWaitingWorker();
    expect(reload).toHaveBeenCalledTimes(1);
    expect(waiting.sent).toEqual([]);
  });

  it('reloads once the version it asked to take over is active, whichever the browser tells first', async () => {
    const waiting = fakeWorker();
    const { container, reload } = fakeBrowser(fakeWorker(), waiting);
    registerServiceWorker();
    await settle();
    activateWaitingWorker();
    expect(waiting.sent).toEqual([{ type: SW_MESSAGES.skipWaiting }]);
    Object.assign(waiting, { state: 'activated' });
    waiting.dispatchEvent(new Event('statechange'));
    container.dispatchEvent(new Event('controllerchange'));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('offers nothing on the very first install, when no version controls the page', async () => {
    const { container } = fakeBrowser(null, fakeWorker());
    registerServiceWorker();
    await settle();
    expect(container.register).toHaveBeenCalled();
    expect(appStore.get(waitingWorkerAtom)).toBeNull();
  });

  it('registers nothing in development', async () => {
    vi.stubEnv('PROD', false);
    const { container } = fakeBrowser(fakeWorker(), fakeWorker());
    registerServiceWorker();
    await settle();
    expect(container.register).not.toHaveBeenCalled();
  });
});
