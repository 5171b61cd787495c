/** Test helper: the storage worker run in the test's own process, on fake-indexeddb (src/db/worker-storage.ts). */
import { IDBKeyRange, indexedDB } from 'fake-indexeddb';
import { exposeRxStorageRemote, type MessageFromRemote, type MessageToRemote } from 'rxdb/plugins/storage-remote';
import { Subject } from 'rxjs';
import { dexieStorage } from './dexie-storage';
import type { WorkerLike } from './worker-storage';

/**
 * A worker run in this process: the page's messages reach the storage side and its answers come back through
 * structured clones on later tasks, as postMessage delivers them. What the storage worker (storage-worker.ts)
 * runs in a browser runs here on fake-indexeddb.
 */
export class InProcessWorker implements WorkerLike {
  onmessage: ((event: MessageEvent<MessageFromRemote>) => void) | null = null;
  onerror: ((event: ErrorEvent) => void) | null = null;
  terminated = false;
  /** Requests received, by storage method. */
  readonly methods: string[] = [];
  private readonly inbox = new Subject<MessageToRemote>();

  constructor(readonly answers = true) {
    exposeRxStorageRemote({
      storage: dexieStorage({ indexedDB, IDBKeyRange }),
      messages$: this.inbox.asObservable(),
      send: (message) =>
        setTimeout(() => {
          if (!this.terminated) this.onmessage?.({ data: structuredClone(message) } as MessageEvent<MessageFromRemote>);
        }),
    });
  }

  postMessage(message: MessageToRemote): void {
    if (this.terminated) throw new Error('posted to a terminated worker');
    this.methods.push(message.method);
    if (this.answers) setTimeout(() => this.inbox.next(structuredClone(message)));
  }

  terminate(): void {
    this.terminated = true;
  }

  /** The worker stops as a browser reports it: an error event, then silence. */
  crash(message: string): void {
    this.onerror?.({ message, preventDefault: () => undefined } as ErrorEvent);
    this.terminated = true;
  }
}

/** Starts in-process workers and keeps them, to look at afterwards. */
export function recordingStarter(): { workers: InProcessWorker[]; start: () => InProcessWorker } {
  const workers: InProcessWorker[] = [];
  return {
    workers,
    start: () => {
      const worker = new InProcessWorker();
      workers.push(worker);
      return worker;
    },
  };
}

/** A worker whose script fails to load: the browser reports an error event and nothing ever answers. */
export function brokenStarter(message = 'Failed to fetch the worker script'): () => InProcessWorker {
  return () => {
    const worker = new InProcessWorker(false);
    setTimeout(() => worker.crash(message));
    return worker;
  };
}
