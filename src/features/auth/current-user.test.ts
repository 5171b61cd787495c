import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appStore } from '../../lib/store';
import { authStateAtom, FIRST_SCREEN_HOLD_MS, refreshCurrentUser, refreshCurrentUserIfStale } from './current-user';
import { wasAccessEnded } from './session-marks';

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

  it('remembers for the sign-in screens that the access ended when the 401 says so, and only then (decision 151)', async () => {
    const saved = new Map<string, string>();
    vi.stubGlobal('localStorage', {
      getItem: (k: string) => saved.get(k) ?? null,
      setItem: (k: string, v: string) => saved.set(k, v),
      removeItem: (k: string) => saved.delete(k),
    });
    const message = 'Your access has ended. Ask an administrator if you still need it.';
    vi.stubGlobal('fetch', async () => json(401, { code: 'unauthenticated', message: 'Unauthorized' }));
    await refreshCurrentUser();
    expect(wasAccessEnded()).toBe(false);
    appStore.set(authStateAtom, { status: 'loading' });
    vi.stubGlobal('fetch', async () => json(401, { code: 'access_ended', message }));
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom).status).toBe('signedOut');
    expect(wasAccessEnded()).toBe(true);
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

  it('ends a reopened session that the idle rule has run out, offline too, telling the server once it can', async () => {
    const saved = stubStorage();
    vi.stubGlobal('fetch', async () => json(200, user));
    await refreshCurrentUser();
    expect(saved.get('sp_last_active')).toBeDefined();
    // The app is closed; it is opened again 31 minutes later, without a connection.
    saved.set('sp_last_active', String(Date.now() - 31 * 60_000));
    appStore.set(authStateAtom, { status: 'loading' });
    const calls: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      calls.push(url);
      throw new TypeError('Failed to fetch');
    });
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom).status).toBe('signedOut');
    expect(saved.get('sp_last_user')).toBeUndefined();
    expect(saved.get('sp_sign_out_pending')).toBe('1');
    expect(calls).toEqual(['/api/auth/logout']);

    // Online again: the sign-out is completed first, and nobody is signed in, even though the session was still
    // alive until then (an answer preloaded by the page would still name the user).
    calls.length = 0;
    vi.stubGlobal('fetch', async (url: string) => {
      calls.push(url);
      return url === '/api/auth/logout' ? new Response(null, { status: 204 }) : json(200, user);
    });
    appStore.set(authStateAtom, { status: 'loading' });
    await refreshCurrentUser();
    expect(calls).toEqual(['/api/auth/logout']);
    expect(saved.get('sp_sign_out_pending')).toBeUndefined();
    expect(appStore.get(authStateAtom).status).toBe('signedOut');
  });

  it('does not sign anyone in while a sign-out made offline cannot reach the server', async () => {
    const saved = stubStorage();
    saved.set('sp_sign_out_pending', '1');
    const calls: string[] = [];
    vi.stubGlobal('fetch', async (url: string) => {
      calls.push(url);
      if (url === '/api/auth/logout') throw new TypeError('Failed to fetch');
      return json(200, user);
    });
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom).status).toBe('signedOut');
    expect(calls).toEqual(['/api/auth/logout']);
  });

  it('keeps a session opened within the idle rule, and counts the opening as activity', async () => {
    const saved = stubStorage();
    vi.stubGlobal('fetch', async () => json(200, user));
    await refreshCurrentUser();
    saved.set('sp_last_active', String(Date.now() - 29 * 60_000));
    appStore.set(authStateAtom, { status: 'loading' });
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await refreshCurrentUser();
    expect(appStore.get(authStateAtom)).toMatchObject({ status: 'signedIn', user: { id: 'u1' } });
  });
});

function stubStorage(): Map<string, string> {
  const saved = new Map<string, string>();
  vi.stubGlobal('localStorage', {
    getItem: (k: string) => saved.get(k) ?? null,
    setItem: (k: string, v: string) => saved.set(k, v),
    removeItem: (k: string) => saved.delete(k),
  });
  return saved;
}
