/**
 * The client for calls that are not synced entities: sign-in, accounts, administration (house style: The client).
 * Errors follow docs/behaviour.md, "Messages and formats": any non-2xx answer becomes an ApiError whose message is
 * "{status}: {text}".
 */

/** A non-2xx answer. `serverMessage` is the JSON `message` alone, safe to show to the user. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly statusText: string,
    text: string,
    readonly serverMessage: string | undefined,
    readonly code: string | undefined,
  ) {
    super(`${status}: ${text}`);
  }
}

/** The server could not be reached at all (offline, DNS, refused): screens show "Connection error". */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(cause: unknown) {
    super('Unable to connect to the server. Please try again.', { cause });
  }
}

/**
 * Recognises an unauthorized error as docs/behaviour.md, "Sessions and signing out" words it: "401: " followed by
 * "Unauthorized".
 */
export function isUnauthorizedError(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('401: ') && error.message.includes('Unauthorized');
}

/** The server's own message when it sent one, else the given fallback. */
export function serverMessageOf(error: unknown, fallback: string): string {
  return error instanceof ApiError && error.serverMessage ? error.serverMessage : fallback;
}

function readJsonField(body: unknown, field: string): string | undefined {
  if (typeof body !== 'object' || body === null || !(field in body)) return undefined;
  const value: unknown = Reflect.get(body, field);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Sends one request; JSON bodies get a JSON content type, FormData goes as multipart unchanged (decision 58). */
export async function apiRequest(method: Method, path: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = {
    method,
    credentials: 'include',
    headers: { Accept: 'application/json' },
    // Pages holding a token set no-referrer; requests to our own server may still say where they come from.
    referrerPolicy: 'same-origin',
  };
  if (body instanceof FormData) {
    init.body = body;
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { Accept: 'application/json', 'Content-Type': 'application/json' };
  }

  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    throw new NetworkError(error);
  }

  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    throw new NetworkError(error);
  }
  const json = text ? parseJson(text) : undefined;

  if (!response.ok) {
    const serverMessage = readJsonField(json, 'message');
    const shown = serverMessage ?? (text || response.statusText);
    throw new ApiError(response.status, response.statusText, shown, serverMessage, readJsonField(json, 'code'));
  }
  // Callers check the shape with the zod schemas of schema/ before using it.
  return json;
}

/** The `code` of an error answer's JSON body, when it has one (a 401's "access_ended", decision 151). */
export async function errorCodeOf(response: Response): Promise<string | undefined> {
  try {
    return readJsonField(parseJson(await response.clone().text()), 'code');
  } catch {
    return undefined;
  }
}

export const api = {
  get: (path: string) => apiRequest('GET', path),
  post: (path: string, body?: unknown) => apiRequest('POST', path, body),
  put: (path: string, body?: unknown) => apiRequest('PUT', path, body),
  patch: (path: string, body?: unknown) => apiRequest('PATCH', path, body),
  delete: (path: string) => apiRequest('DELETE', path),
};
