import { SYNC_EVENTS, type SyncCollection } from '../../../schema/sync';

/** Every 25 s a comment line keeps proxies from closing idle streams (docs/sync.md). */
export const PING_EVERY_MS = 25_000;

/** Open streams one session may hold: one browser streams from its leading tab only (decision 115). */
export const MAX_STREAMS_PER_SESSION = 10;
/** Open streams one user may hold over all their devices. */
export const MAX_STREAMS_PER_USER = 30;

/** One open live stream of one signed-in client. */
export interface SyncConnection {
  userId: string;
  sessionHash: string;
  /** Writes one SSE event (buffered by the socket; never throws). */
  send: (event: string, data: string) => unknown;
  /** Writes the keep-alive comment. */
  ping: () => unknown;
  /** Ends the stream. */
  close: () => void;
}

/** The live-stream hub: knows the open streams and tells them about committed changes. */
export interface SyncHub {
  /** Registers a stream; the returned function unregisters it. */
  connect: (connection: SyncConnection) => () => void;
  /**
   * A change to a collection was committed; coalesced and sent once the current synchronous work has finished. With
   * `userIds`, only those users' streams hear of it (a conversation's two participants, one user's alert list);
   * without, every stream does (the feed and the directory, which every user may see).
   */
  notify: (collection: SyncCollection, userIds?: Iterable<string>) => void;
  /** Closes every stream of a user (deactivated, deleted, password changed). */
  disconnectUser: (userId: string) => void;
  /** Closes the streams of one session (signed out). */
  disconnectSession: (sessionHash: string) => void;
  /** Streams are checked at each ping: a session that died (idle, too old) loses its stream. */
  checkSessionsWith: (isLive: (sessionHash: string) => boolean) => void;
  /** How many streams are open. */
  size: () => number;
  /** Closes every stream and stops the ping timer (server shutdown). */
  close: () => void;
}

/**
 * Builds the hub. Idle streams cost a map entry each: one shared interval pings them all, and notifications
 * are batched per synchronous run (a microtask), so a push of 100 rows sends one event per collection, and a
 * change reaches only the streams of the users it names.
 */
export function createSyncHub(options: { pingEveryMs?: number } = {}): SyncHub {
  const byUser = new Map<string, Set<SyncConnection>>();
  /** Per collection, the users to tell, or null for everyone. */
  const pending = new Map<SyncCollection, Set<string> | null>();
  let flushScheduled = false;
  let isLive: ((sessionHash: string) => boolean) | undefined;

  const all = () => [...byUser.values()].flatMap((set) => [...set]);
  const remove = (connection: SyncConnection) => {
    const set = byUser.get(connection.userId);
    if (!set) return;
    set.delete(connection);
    if (set.size === 0) byUser.delete(connection.userId);
  };
  const end = (connection: SyncConnection) => {
    remove(connection);
    connection.close();
  };
  /** A stream that went away between its close and its removal must not stop the others. */
  const safely = (write: () => unknown) => {
    try {
      void Promise.resolve(write()).catch(() => undefined);
    } catch {
      // ignored: the stream's own close handler removes it
    }
  };

  const flush = () => {
    flushScheduled = false;
    const changes = [...pending];
    pending.clear();
    for (const [collection, userIds] of changes) {
      const data = JSON.stringify({ collection });
      const connections = userIds ? [...userIds].flatMap((id) => [...(byUser.get(id) ?? [])]) : all();
      for (const connection of connections) safely(() => connection.send(SYNC_EVENTS.change, data));
    }
  };

  const timer = setInterval(() => {
    for (const connection of all()) {
      if (isLive && !isLive(connection.sessionHash)) end(connection);
      else safely(() => connection.ping());
    }
  }, options.pingEveryMs ?? PING_EVERY_MS);
  timer.unref();

  return {
    connect(connection) {
      let set = byUser.get(connection.userId);
      if (!set) byUser.set(connection.userId, (set = new Set()));
      set.add(connection);
      // Past a limit the oldest stream ends, not the new one: the newest is the tab in use, and a closed one that is
      // still wanted reconnects (decision 127).
      const ofSession = [...set].filter((c) => c.sessionHash === connection.sessionHash);
      if (ofSession.length > MAX_STREAMS_PER_SESSION) end(ofSession[0]);
      else if (set.size > MAX_STREAMS_PER_USER) end(set.values().next().value!);
      return () => remove(connection);
    },
    notify(collection, userIds) {
      const current = pending.get(collection);
      if (userIds === undefined) pending.set(collection, null);
      else if (current !== null) {
        const set = current ?? new Set<string>();
        for (const id of userIds) set.add(id);
        pending.set(collection, set);
      }
      if (flushScheduled) return;
      flushScheduled = true;
      // Right after the current synchronous work, its transaction included (better-sqlite3 transactions cannot
      // await): a chat message's event goes out before the sender's answer is written, rather than after every
      // other I/O callback of this loop turn (decision 77).
      queueMicrotask(flush);
    },
    disconnectUser(userId) {
      for (const connection of byUser.get(userId) ?? []) end(connection);
    },
    disconnectSession(sessionHash) {
      for (const connection of all()) if (connection.sessionHash === sessionHash) end(connection);
    },
    checkSessionsWith(check) {
      isLive = check;
    },
    size: () => all().length,
    close() {
      clearInterval(timer);
      for (const connection of all()) end(connection);
    },
  };
}
