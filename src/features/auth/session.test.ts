import { afterEach, describe, expect, it, vi } from 'vitest';
import { LOCAL_DATABASE_PREFIX } from '../../../schema/offline';

const calls = vi.hoisted(() => ({
  toasts: [] as unknown[],
  logout: null as null | (() => void),
  wipe: null as null | Promise<void>,
}));
vi.mock('../../lib/api', () => ({
  api: {
    // The logout's answer comes when the test says.
    post: () => new Promise<void>((resolve) => (calls.logout = resolve)),
  },
}));
vi.mock('../../lib/toast', () => ({ toast: (t: unknown) => calls.toasts.push(t) }));
// The wipe ends when the test says, if it says.
vi.mock('../../db/local-store', () => ({ wipeLocalStore: async () => await calls.wipe }));

const { endLostSession, signOut } = await import('./session');
const { noteActivity, wasAccessEnded } = await import('./session-marks');

afterEach(() => {
  vi.useRealTimers();
  calls.toasts.length = 0;
});

describe('sign-out', () => {
  it('is not taken for a lost session when a background request is refused meanwhile', async () => {
    vi.useFakeTimers();
    const navigate = vi.fn();
    const done = signOut(navigate);
    // A sync pull answered 401 after the server ended the session, before the wipe stopped the sync.
    endLostSession(navigate);
    calls.logout!();
    await done;
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls.toasts).toEqual([]);
    expect(navigate.mock.calls).toEqual([['/?logged_out=true']]);
  });

  it('leaves a lost session at other times to the "Unauthorized" toast and /login', async () => {
    vi.useFakeTimers();
    const navigate = vi.fn();
    endLostSession(navigate);
    expect(calls.toasts).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(navigate.mock.calls).toEqual([['/login']]);
  });

  it('goes to /login only once nothing of the user is left on the device, however long the wipe takes', async () => {
    vi.useFakeTimers();
    let finish!: () => void;
    calls.wipe = new Promise<void>((resolve) => (finish = resolve));
    vi.stubGlobal('indexedDB', { databases: async () => [{ name: `${LOCAL_DATABASE_PREFIX}someone--0--posts` }] });
    try {
      const navigate = vi.fn();
      endLostSession(navigate);
      await vi.advanceTimersByTimeAsync(3000);
      expect(navigate).not.toHaveBeenCalled();
      finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(navigate.mock.calls).toEqual([['/login']]);
    } finally {
      calls.wipe = null;
      vi.unstubAllGlobals();
    }
  });

  it('says the access has ended when any 401 of the lost session says so, until the next sign-in (decision 151)', async () => {
    vi.useFakeTimers();
    const stored = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => stored.get(key) ?? null,
      setItem: (key: string, value: string) => stored.set(key, value),
      removeItem: (key: string) => stored.delete(key),
    });
    try {
      const navigate = vi.fn();
      endLostSession(navigate, 'access_ended');
      expect(calls.toasts).toEqual([
        {
          title: 'Access ended',
          description: 'Your access has ended. Ask an administrator if you still need it.',
          variant: 'destructive',
        },
      ]);
      await vi.advanceTimersByTimeAsync(500);
      expect(navigate.mock.calls).toEqual([['/login']]);
      expect(wasAccessEnded()).toBe(true);
      noteActivity(Date.now(), true);
      expect(wasAccessEnded()).toBe(false);

      // A plain 401 came first (its request no longer carried the cookie); the stream's reason still counts.
      endLostSession(navigate);
      endLostSession(navigate, 'access_ended');
      await vi.advanceTimersByTimeAsync(500);
      expect(wasAccessEnded()).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
