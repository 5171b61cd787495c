import { BehaviorSubject, type Observable } from 'rxjs';
import { withTimeout } from '../../lib/with-timeout';
import { errorCodeOf } from '../../lib/api';

/** Every sync request and the live stream are background traffic: they never keep an idle session alive. */
export const SYNC_HEADERS = { 'X-Background': '1', Accept: 'application/json' };

/** A sync request the server answered with a status other than 2xx. */
export class HttpError extends Error {
  constructor(readonly status: number) {
    super(`${status}: sync request failed`);
  }
}

export interface TransportOptions {
  baseUrl: string;
  fetch: typeof fetch;
  /** How long one request may take, answer included, before it is given up (decisions 70 and 84). */
  requestTimeoutMs: number;
  /** Aborted when the sync stops: requests end, and their failures no longer count as an unreachable server. */
  stopped: AbortSignal;
  /** The server answered 401: the session is over; `code` says why (decision 151). */
  onUnauthorized?: (code: string | undefined) => void;
}

/** How the replication talks to the server: one request function, and the fetch the live stream reads with. */
export interface Transport {
  readonly baseUrl: string;
  /** One sync request: JSON in, JSON out, given up after the request timeout. */
  call: <T>(path: string, init?: RequestInit) => Promise<T>;
  /** The fetch of every sync request and of the live stream: each answer or failure tells reachable$. */
  observedFetch: typeof fetch;
  /** Whether the server answers sync requests (decision 116). */
  reachable$: Observable<boolean>;
}

/** The transport of one startSync: requests marked as background traffic, with their timeout and reachability. */
export function createTransport(options: TransportOptions): Transport {
  const { baseUrl, requestTimeoutMs, stopped } = options;
  const doFetch = options.fetch;
  const reachable$ = new BehaviorSubject(true);
  const setReachable = (value: boolean) => {
    if (value !== reachable$.getValue()) reachable$.next(value);
  };
  const observedFetch: typeof fetch = async (input, init) => {
    try {
      const response = await doFetch(input, init);
      setReachable(response.status < 500);
      return response;
    } catch (error) {
      // No server answered. Offline, every fetch fails so, and being offline is what the app says then.
      const online = globalThis.navigator?.onLine !== false;
      if (error instanceof TypeError && online && !stopped.aborted) setReachable(false);
      throw error;
    }
  };

  /**
   * One sync request. It is given up after `requestTimeoutMs`: on a phone moving between Wi-Fi and mobile data
   * a connection can die without either end hearing of it, and a request on it would wait for ever, holding
   * its collection's replication. RxDB retries it. The request is aborted then, and the call ends whether or not
   * the fetch heeds the abort, which under load it may not (decision 84).
   */
  async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
    const timeout = new AbortController();
    const giveUp = (): never => {
      const error = new DOMException(`${path.split('?')[0]} took over ${requestTimeoutMs} ms`, 'TimeoutError');
      timeout.abort(error);
      throw error;
    };
    const request = async () => {
      const response = await observedFetch(baseUrl + path, {
        credentials: 'include',
        ...init,
        headers: { ...SYNC_HEADERS, ...init.headers },
        signal: AbortSignal.any([stopped, timeout.signal]),
      });
      if (response.status === 401) options.onUnauthorized?.(await errorCodeOf(response));
      if (!response.ok) throw new HttpError(response.status);
      // The caller names the answer's shape: the sync protocol's types (schema/sync.ts).
      return (await response.json()) as T;
    };
    try {
      return await withTimeout(request(), requestTimeoutMs, giveUp);
    } catch (error) {
      if (timeout.signal.aborted && !stopped.aborted) console.warn(`sync: ${path.split('?')[0]} timed out`);
      throw error;
    }
  }

  return { baseUrl, call, observedFetch, reachable$: reachable$.asObservable() };
}
