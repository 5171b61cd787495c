import type { SyncCollection } from '../../schema/sync';

/**
 * What the tabs of one browser tell each other about its one replication (decision 115). Only the leading tab
 * replicates; the others learn from it when the first sync is over, ask it to pull again, and ask whether it is
 * in sync. Their data needs no message: every tab reads the same IndexedDB and hears its writes.
 */
type TabSyncMessage =
  | { type: 'ask' }
  | { type: 'state'; synced: SyncCollection[]; done: boolean }
  | { type: 'resync' }
  | { type: 'in-sync?'; id: string }
  | { type: 'in-sync'; id: string };

/** What a tab needs of a BroadcastChannel; tests pass Node's own. */
export interface TabChannel {
  postMessage(message: unknown): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  close(): void;
}

/** The leading tab's replication, as the other tabs see it. */
export interface LeaderSync {
  collectionSynced: (name: SyncCollection) => Promise<void>;
  initialSyncDone: Promise<void>;
  awaitInSync: () => Promise<void>;
  resync: () => void;
}

export interface TabSync {
  /** Resolves once the leading tab says this collection's first sync is over. */
  collectionSynced: (name: SyncCollection) => Promise<void>;
  /** Resolves once the leading tab says its first sync is over. */
  initialSyncDone: Promise<void>;
  /** Resolves once the leading tab is in sync (a tab that does not lead has nothing of its own to send). */
  awaitInSync: () => Promise<void>;
  /** Asks the leading tab to pull everything again. */
  resync: () => void;
  /** This tab now leads: it answers the others from its own replication. */
  lead: (own: LeaderSync) => void;
  close: () => void;
}

/** A tab's end of the channel named after the user's database, so only tabs of the same store talk. */
export function connectTabs(channel: TabChannel, names: readonly SyncCollection[]): TabSync {
  const post = (message: TabSyncMessage) => {
    if (!closed) channel.postMessage(message);
  };
  let closed = false;
  let own: LeaderSync | null = null;
  const synced = new Set<SyncCollection>();
  let done = false;

  const heard = new Map<SyncCollection, () => void>();
  const heardSynced = new Map(
    names.map((name) => [name, new Promise<void>((resolve) => heard.set(name, resolve))] as const),
  );
  let heardDone = () => {};
  const initialSyncDone = new Promise<void>((resolve) => (heardDone = resolve));
  const inSyncAnswers = new Map<string, () => void>();

  channel.addEventListener('message', (event: MessageEvent) => {
    const message = event.data as TabSyncMessage;
    if (message.type === 'state') {
      message.synced.forEach((name) => heard.get(name)?.());
      if (message.done) heardDone();
    } else if (message.type === 'in-sync') {
      inSyncAnswers.get(message.id)?.();
      inSyncAnswers.delete(message.id);
    } else if (own) {
      if (message.type === 'ask') post({ type: 'state', synced: [...synced], done });
      else if (message.type === 'resync') own.resync();
      else if (message.type === 'in-sync?')
        void own.awaitInSync().then(() => post({ type: 'in-sync', id: message.id }));
    }
  });
  // A tab that opens after the leader's first sync hears of it at once.
  post({ type: 'ask' });

  return {
    collectionSynced: (name) => heardSynced.get(name) ?? Promise.resolve(),
    initialSyncDone,
    awaitInSync: () =>
      new Promise<void>((resolve) => {
        const id = crypto.randomUUID();
        inSyncAnswers.set(id, resolve);
        post({ type: 'in-sync?', id });
      }),
    resync: () => post({ type: 'resync' }),
    lead(leader) {
      own = leader;
      const tell = () => post({ type: 'state', synced: [...synced], done });
      for (const name of names) {
        void leader.collectionSynced(name).then(() => {
          synced.add(name);
          tell();
        });
      }
      void leader.initialSyncDone.then(() => {
        done = true;
        tell();
      });
    },
    close() {
      closed = true;
      channel.close();
    },
  };
}
