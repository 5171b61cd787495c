import { BehaviorSubject, type Observable } from 'rxjs';
import { SYNC_EVENTS, type ChangeEvent, type SyncCollection } from '../../../schema/sync-protocol';
import { readEventStream } from '../event-stream';
import { SYNC_HEADERS, type Transport } from './transport';

export interface LiveStreamOptions {
  transport: Transport;
  /** Aborted when the sync stops: the stream closes and is not opened again. */
  stopped: AbortSignal;
  /** How long to wait between reconnects. */
  retryMs: number;
  /** The stream said RESYNC (it has just connected; events may have been missed): every collection pulls. */
  onResync: () => void;
  /** The stream said a collection changed; `data` is the event, with the change itself when it carries it. */
  onChange: (collection: SyncCollection, data: ChangeEvent) => void;
  /** The server answered 401: the session is over; `code` says why (decision 151). */
  onUnauthorized?: (code: string | undefined) => void;
}

export interface LiveStream {
  /** Whether the stream is connected (from its RESYNC until it ends). */
  connected$: Observable<boolean>;
  /** Reads the stream until the sync stops, connecting again `retryMs` after each end or failure. */
  listen: () => Promise<void>;
}

/** The live stream of docs/sync.md ("Live stream"): says what changed, carrying the change when it is small. */
export function createLiveStream(options: LiveStreamOptions): LiveStream {
  const { transport, stopped } = options;
  const connected$ = new BehaviorSubject(false);
  async function listen() {
    while (!stopped.aborted) {
      try {
        await readEventStream(
          `${transport.baseUrl}/api/sync/stream`,
          { credentials: 'include', headers: SYNC_HEADERS, signal: stopped },
          (event) => {
            if (event.event === SYNC_EVENTS.resync) {
              connected$.next(true);
              options.onResync();
            } else if (event.event === SYNC_EVENTS.change) {
              // The hub's change event (server/features/sync/sync.hub.ts), in the shape schema/sync-protocol.ts gives.
              const data = JSON.parse(event.data) as ChangeEvent;
              options.onChange(data.collection, data);
            }
          },
          transport.observedFetch,
        );
      } catch (error) {
        // readEventStream's refusal carries the answer's status and code; a network error has neither.
        const refusal = error as { status?: number; code?: string };
        if (refusal.status === 401) options.onUnauthorized?.(refusal.code);
      }
      connected$.next(false);
      if (stopped.aborted) break;
      await new Promise((resolve) => setTimeout(resolve, options.retryMs));
    }
  }
  return { connected$: connected$.asObservable(), listen };
}
