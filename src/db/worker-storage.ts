import type { RxStorage } from 'rxdb';
import {
  getRxStorageRemote,
  type MessageFromRemote,
  type MessageToRemote,
  type RemoteMessageChannel,
} from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';

/** What the page needs of a worker; a test passes a stand-in. */
export interface WorkerLike {
  onmessage: ((event: MessageEvent<MessageFromRemote>) => void) | null;
  onerror: ((event: ErrorEvent) => void) | null;
  postMessage(message: MessageToRemote): void;
  terminate(): void;
}

/** The start of the error a request gets when the worker cannot answer it. */
export const WORKER_STOPPED = 'The local database worker stopped';

/** Whether an error (RxDB wraps the worker's in its own) says the storage worker is not running. */
export function isWorkerStopped(error: unknown): boolean {
  return (error instanceof Error ? error.message : String(error)).includes(WORKER_STOPPED);
}

export function startStorageWorker(): WorkerLike {
  return new Worker(new URL('./storage-worker.ts', import.meta.url), { type: 'module', name: 'local-store' });
}

/**
 * One worker per opened database. A request the worker never answers (it failed to start, or it crashed) is
 * answered here with an error, so the database open or write that sent it fails instead of waiting for ever.
 */
export function workerChannel(start: () => WorkerLike): RemoteMessageChannel {
  const worker = start();
  const messages$ = new Subject<MessageFromRemote>();
  const unanswered = new Map<string, MessageToRemote>();
  let failure: string | null = null;
  const answerWithError = (message: MessageToRemote) =>
    messages$.next({
      connectionId: message.connectionId,
      answerTo: message.requestId,
      method: message.method,
      error: { name: 'Error', message: failure ?? WORKER_STOPPED, stack: '' } as never,
    });
  worker.onmessage = (event) => {
    unanswered.delete(event.data.answerTo);
    messages$.next(event.data);
  };
  worker.onerror = (event) => {
    failure = `${WORKER_STOPPED}: ${event.message || 'it could not start'}`;
    event.preventDefault?.();
    for (const message of unanswered.values()) answerWithError(message);
    unanswered.clear();
  };
  return {
    messages$: messages$.asObservable(),
    send(message) {
      if (failure) {
        // A stopped worker has nothing left open: closing succeeds, anything else fails.
        const closed = { connectionId: message.connectionId, answerTo: message.requestId, method: message.method };
        queueMicrotask(() => (message.method === 'close' ? messages$.next(closed) : answerWithError(message)));
        return;
      }
      unanswered.set(message.requestId, message);
      worker.postMessage(message);
    },
    close() {
      worker.terminate();
      for (const message of unanswered.values()) answerWithError(message);
      unanswered.clear();
      messages$.complete();
      return Promise.resolve();
    },
  };
}

/** The local database's storage in the browser: storage-dexie in a worker (decision 88). */
export function workerStorage(start: () => WorkerLike = startStorageWorker): RxStorage<unknown, unknown> {
  return getRxStorageRemote({
    identifier: 'staff-portal-local-store',
    mode: 'storage',
    messageChannelCreator: () => Promise.resolve(workerChannel(start)),
  }) as unknown as RxStorage<unknown, unknown>;
}
