/**
 * The storage worker (decision 88): the browser's IndexedDB work of the local database runs here, off the main
 * thread, so a first sync's thousands of writes and reads do not block taps and scrolling. RxDB itself (queries,
 * replication, change events) stays in the page and reaches this storage through RxDB's storage-remote plugin.
 */
import { Subject } from 'rxjs';
import { exposeRxStorageRemote, type MessageFromRemote, type MessageToRemote } from 'rxdb/plugins/storage-remote';
import { dexieStorage } from './dexie-storage';

interface WorkerScope {
  onmessage: ((event: MessageEvent<MessageToRemote>) => void) | null;
  postMessage(message: MessageFromRemote): void;
}

const scope = self as unknown as WorkerScope;
const messages$ = new Subject<MessageToRemote>();
scope.onmessage = (event) => messages$.next(event.data);

exposeRxStorageRemote({
  storage: dexieStorage(),
  messages$: messages$.asObservable(),
  send: (message) => scope.postMessage(message),
});
