import { afterEach, describe, expect, it, vi } from 'vitest';

const calls = vi.hoisted(() => ({ toasts: [] as unknown[], logout: null as null | (() => void) }));
vi.mock('../../lib/api', () => ({
  api: {
    // The logout's answer comes when the test says.
    post: () => new Promise<void>((resolve) => (calls.logout = resolve)),
  },
}));
vi.mock('../../lib/toast', () => ({ toast: (t: unknown) => calls.toasts.push(t) }));
vi.mock('../../db/local-store', () => ({ wipeLocalStore: async () => {} }));

const { endLostSession, signOut } = await import('./session');

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
});
