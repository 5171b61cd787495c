import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, NetworkError, api, isUnauthorizedError, serverMessageOf } from './api';

function answer(status: number, body: string, statusText = ''): Response {
  return new Response(body || null, { status, statusText });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('api client', () => {
  it('sends JSON with a JSON content type and cookies', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => answer(200, '{"ok":true}'));
    vi.stubGlobal('fetch', fetchMock);
    await expect(api.post('/api/auth/login', { email: 'a@b.c', password: 'x' })).resolves.toEqual({ ok: true });
    const [path, init] = fetchMock.mock.calls[0];
    expect(path).toBe('/api/auth/login');
    expect(init?.credentials).toBe('include');
    expect(init?.body).toBe('{"email":"a@b.c","password":"x"}');
    expect(init?.headers).toMatchObject({ 'Content-Type': 'application/json' });
  });

  it('sends FormData unchanged, without a content type of its own', async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => answer(204, ''));
    vi.stubGlobal('fetch', fetchMock);
    const form = new FormData();
    form.append('profilePicture', 'x');
    await expect(api.post('/api/auth/profile-picture', form)).resolves.toBeUndefined();
    const [, init] = fetchMock.mock.calls[0];
    expect(init?.body).toBe(form);
    expect(init?.headers).not.toHaveProperty('Content-Type');
  });

  it('turns a JSON error answer into "{status}: {message}" and keeps the message alone', async () => {
    vi.stubGlobal('fetch', async () => answer(403, '{"code":"forbidden","message":"Nope"}', 'Forbidden'));
    const error: unknown = await api.get('/api/admin/users').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ message: '403: Nope', status: 403, serverMessage: 'Nope', code: 'forbidden' });
    expect(serverMessageOf(error, 'fallback')).toBe('Nope');
  });

  it('falls back to the response text, then the status text', async () => {
    vi.stubGlobal('fetch', async () => answer(502, 'Bad gateway page', 'Bad Gateway'));
    await expect(api.get('/x')).rejects.toMatchObject({ message: '502: Bad gateway page', serverMessage: undefined });
    vi.stubGlobal('fetch', async () => answer(500, '', 'Internal Server Error'));
    const error: unknown = await api.get('/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ message: '500: Internal Server Error' });
    expect(serverMessageOf(error, 'fallback')).toBe('fallback');
  });

  it('reports an unreachable server as a network error', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('Failed to fetch');
    });
    await expect(api.get('/api/auth/user')).rejects.toBeInstanceOf(NetworkError);
  });

  it('recognises unauthorized errors by their "401: " prefix and "Unauthorized"', async () => {
    vi.stubGlobal('fetch', async () => answer(401, '{"code":"unauthenticated","message":"Unauthorized"}'));
    const error: unknown = await api.get('/api/auth/user').catch((e: unknown) => e);
    expect(isUnauthorizedError(error)).toBe(true);
    expect(isUnauthorizedError(new Error('401: Invalid email or password'))).toBe(false);
    expect(isUnauthorizedError(new Error('403: Unauthorized'))).toBe(false);
  });
});
