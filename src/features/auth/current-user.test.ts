import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appStore } from '../../lib/store';
import { authStateAtom, FIRST_SCREEN_HOLD_MS, refreshCurrentUser, refreshCurrentUserIfStale } from './current-user';

const user = {
  id: 'u1',
  email: 'ada@example.org',
  firstName: 'Ada',
  lastName: 'Lovelace',
  role: 'staff',
  isAdmin: false,
  isMasterAdmin: false,
  isActive: true,
  profileImageUrl: null,
};

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status });

beforeEach(() => {
  appStore.set(authStateAtom, { status: 'loading' });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('current user', () => {
  it('is signed in when GET /api/auth/user answers a user', async () => {
    vi.stubGlobal('fetch', async () => json(200, user));
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom)).toMatchObject({ status: 'signedIn', user: { id: 'u1' } });
  });

  it('is signed out on 401 without retrying', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => json(401, { code: 'unauthenticated', message: 'Unauthorized' }));
    vi.stubGlobal('fetch', fetchMock);
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom).status).toBe('signedOut');
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it('keeps a signed-in user while the server cannot be reached', async () => {
    vi.stubGlobal('fetch', async () => json(200, user));
    await refreshCurrentUser();
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom).status).toBe('signedIn');
  });

  it('reopens offline as the last signed-in user, and forgets them on a 401', async () => {
    const saved = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => saved.set(k, v),
      removeItem: (k: string) => saved.delete(k),
    });
    vi.stubGlobal('fetch', async () => json(200, user));
    await refreshCurrentUser();
    // A new page load without a connection.
    appStore.set(authStateAtom, { status: 'loading' });
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom)).toMatchObject({ status: 'signedIn', user: { id: 'u1' } });
    // Back online, the session turns out to be dead.
    vi.stubGlobal('fetch', async () => json(401, { code: 'unauthenticated', message: 'Unauthorized' }));
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom).status).toBe('signedOut');
    expect(saved.size).toBe(0);
  });

  it('shares one request between concurrent callers and stays fresh for five minutes', async () => {
    vi.useFakeTimers();
    const fetchMock = vi.fn<typeof fetch>(async () => json(200, user));
    vi.stubGlobal('fetch', fetchMock);
    await Promise.all([refreshCurrentUser(), refreshCurrentUser()]);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(4 * 60_000);
    expect(refreshCurrentUserIfStale()).toBeNull();
    vi.advanceTimersByTime(60_000);
    await refreshCurrentUserIfStale();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('holds "Loading..." on the first answer until what the first screen needs is ready', async () => {
    vi.stubGlobal('fetch', async () => json(200, user));
    let release = () => {};
    const ready = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const done = refreshCurrentUser((state) => {
      seen.push(state.status);
      return ready;
    });
    await vi.waitFor(() => expect(seen).toEqual(['signedIn']));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(appStore.get(authStateAtom).status).toBe('loading');
    release();
    await done;
    expect(appStore.get(authStateAtom)).toMatchObject({ status: 'signedIn', user: { id: 'u1' } });

    // Later answers are applied at once: the hook is for the first screen only.
    const later = vi.fn(() => new Promise<void>(() => {}));
    await refreshCurrentUser(later);
    expect(later).not.toHaveBeenCalled();
  });

  it('shows the first screen after FIRST_SCREEN_HOLD_MS when what it waits for never comes', async () => {
    vi.useFakeTimers();
    vi.stubGlobal('fetch', async () => json(200, user));
    const done = refreshCurrentUser(() => new Promise<void>(() => {}));
    await vi.advanceTimersByTimeAsync(FIRST_SCREEN_HOLD_MS - 100);
    expect(appStore.get(authStateAtom).status).toBe('loading');
    await vi.advanceTimersByTimeAsync(100);
    await done;
    expect(appStore.get(authStateAtom).status).toBe('signedIn');
  });
});
