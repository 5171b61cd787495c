import { performance } from 'node:perf_hooks';
import { SYNC_EVENTS, type SyncCollection } from '../../../schema/sync';

/** Every 25 s a comment line keeps proxies from closing idle streams (docs/sync.md). */
export const PING_EVERY_MS = 25_000;

/**
 * With delivery, changes every stream hears of (the feed, the directory) leave at most this often: at the first at
 * once, then those of the next moments together, one event per collection and stream (decision 131).
 */
export const BROADCAST_EVERY_MS = 200;
/**
 * Streams written in one go of a large fan-out, before other work (a push's answer) may run: a socket write costs
 * about as much as a small request, so a slice stays a few milliseconds long.
 */
export const FANOUT_SLICE = 100;

/**
 * The lane's slice on PostgreSQL: a writer's statements there are round trips, each waiting for a turn of the event
 * loop while the transaction holds the lock every writer takes, so a turn spends less on fan-out (decision 164).
 */
export const POSTGRES_LANE_SLICE = 25;

/** Open streams one session may hold: one browser streams from its leading tab only (decision 115). */
export const MAX_STREAMS_PER_SESSION = 10;
/** Open streams one user may hold over all their devices. */
export const MAX_STREAMS_PER_USER = 30;

/** Changes to plan together: per collection, the users to tell, or null for everyone. */
type Changes = Map<SyncCollection, Set<string> | null>;

/** Adds a change to those to tell. */
function addChange(changes: Changes, collection: SyncCollection, userIds: Iterable<string> | null) {
  const current = changes.get(collection);
  if (userIds === null) changes.set(collection, null);
  else if (current !== null) {
    const set = current ?? new Set<string>();
    for (const id of userIds) set.add(id);
    changes.set(collection, set);
  }
}

/** What the hub keeps of one open stream. */
interface Stream {
  connection: SyncConnection;
  /**
   * Per collection, the sequence its last delivered event reached (else `connectedAt`): the next event says it follows
   * from there, so a device that holds everything up to it may simply store it.
   */
  reached: Map<SyncCollection, number>;
  /** The sequence when it connected: its first pull brings everything up to at least this. */
  connectedAt: number;
  /** Its entry in the lane while it has events waiting there. */
  waiting: LaneEntry | undefined;
}

/** A stream's events waiting in the hub's lane, in the order they are to be written. */
interface LaneEntry {
  stream: Stream;
  events: [SyncCollection, string][];
}

/** One open live stream of one signed-in client. */
export interface SyncConnection {
  userId: string;
  sessionHash: string;
  /**
   * Writes one SSE event, or several of the same name in one socket write (buffered by the socket; never throws).
   */
  send: (event: string, data: string | readonly string[]) => unknown;
  /** Writes the keep-alive comment. */
  ping: () => unknown;
  /** Ends the stream. */
  close: () => void;
  /** Called once the stream is registered, before any event is written to it (the route writes RESYNC). */
  opened?: () => void;
}

/**
 * How a change event carries the change itself (decision 131). Without it the hub only announces: the event says
 * which collection changed and the device pulls.
 */
export interface HubDelivery {
  /**
   * The global change sequence now: every change numbered at or below it has committed, including that of a
   * transaction which told the hub of its change and has not yet ended (the read waits for it).
   */
  currentSeq: () => Promise<number>;
  /**
   * For each of `wanted`, the event data telling that user what changed in `collection` after `since` (up to
   * `through`, the sequence now), or null when that user may see none of it; in the same order, computed together.
   */
  eventsFor: (
    collection: SyncCollection,
    wanted: readonly { userId: string; since: number }[],
    through: number,
  ) => Promise<(string | null)[]>;
  /** Whether every user pulls the same documents of this collection, so one computed event serves them all. */
  sameForEveryone: (collection: SyncCollection) => boolean;
  /** Told when events could not be read (or a session checked): the streams concerned are only announced the change. */
  failed?: (error: unknown) => void;
}

/** The live-stream hub: knows the open streams and tells them about committed changes. */
export interface SyncHub {
  /**
   * Registers a stream once the sequence it starts from is read (its first pull brings at least that), calls its
   * `opened`, and answers the function that unregisters it.
   */
  connect: (connection: SyncConnection) => Promise<() => void>;
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
  checkSessionsWith: (isLive: (sessionHash: string) => boolean | Promise<boolean>) => void;
  /** How many streams are open. */
  size: () => number;
  /** Closes every stream and stops the ping timer (server shutdown). */
  close: () => void;
}

/**
 * Builds the hub. Idle streams cost a map entry each: one shared interval pings them all, and notifications
 * are batched per synchronous run (a microtask), and a change reaches only the streams of the users it names. A
 * collection's events are planned one change after another (inOrder); a stream whose last event already reached the
 * sequence now is not read for again, so the changes of one push, told between its statements, make one event per
 * collection and stream.
 */
export function createSyncHub(
  options: {
    pingEveryMs?: number;
    delivery?: HubDelivery;
    broadcastEveryMs?: number;
    /** Streams written per turn of a large fan-out (FANOUT_SLICE unless given). */
    laneSlice?: number;
  } = {},
): SyncHub {
  const { delivery } = options;
  const laneSlice = options.laneSlice ?? FANOUT_SLICE;
  const broadcastEveryMs = options.broadcastEveryMs ?? BROADCAST_EVERY_MS;
  const byUser = new Map<string, Set<Stream>>();
  /** Every open stream, for changes every stream hears of. */
  const streams = new Map<SyncConnection, Stream>();
  /** Per collection, the users to tell, or null for everyone. */
  const pending = new Map<SyncCollection, Set<string> | null>();
  let flushScheduled = false;
  /** Changes for many users' streams, held until this turn's I/O is done (holdLarge). */
  const large = new Map<SyncCollection, Set<string>>();
  let largeScheduled = false;
  /** With delivery, changes for every stream wait here until their turn (BROADCAST_EVERY_MS). */
  const broadcasts = new Set<SyncCollection>();
  let broadcastScheduled = false;
  let lastBroadcastAt = -Infinity;
  /**
   * Writes of a large fan-out, left in slices of FANOUT_SLICE streams: one entry per stream, which later events for
   * that stream join until it is written (one socket write for an urgent post and its alert row). A stream's event of
   * a collection it has waiting here joins it too, so each stream hears of a collection's changes in order.
   */
  const lane: LaneEntry[] = [];
  let laneHead = 0;
  let broadcastTimer: NodeJS.Timeout | undefined;
  /** After close nothing more is sent: the database the events are read from may be closed too. */
  let closed = false;
  let isLive: ((sessionHash: string) => boolean | Promise<boolean>) | undefined;
  /**
   * Per collection, the planning of its events under way (their reads awaited). The next planning of that collection
   * waits for it (inOrder): each stream's events of a collection are read, then written or queued in the lane, in the
   * order of the changes, each following from where the last left off, and none overtakes another.
   */
  const planning = new Map<SyncCollection, Promise<void>>();
  /**
   * Per collection, the changes whose planning waits for an earlier one (inOrder) and has not begun: a later change
   * joins them, so the changes told between one push's statements are read once, after its transaction.
   */
  const queued = new Map<SyncCollection, Changes>();
  /** The planning of held changes under way (flushLarge): the lane waits for it, so their events join its entries. */
  let largePlanning: Promise<void> | undefined;

  const all = () => [...streams.values()];
  /** The streams of some users, or every stream. */
  const streamsOf = (userIds: Set<string> | null) =>
    userIds ? [...userIds].flatMap((id) => [...(byUser.get(id) ?? [])]) : all();
  const remove = (connection: SyncConnection) => {
    const stream = streams.get(connection);
    if (!stream) return;
    streams.delete(connection);
    const set = byUser.get(connection.userId)!;
    set.delete(stream);
    if (set.size === 0) byUser.delete(connection.userId);
  };
  const end = (connection: SyncConnection) => {
    remove(connection);
    connection.close();
  };
  /** A stream that went away between its close and its removal must not stop the others. */
  const safely = (write: () => unknown) => {
    try {
      const written = write();
      // Thousands of sends per change are plain socket writes: only a promise needs catching.
      if (written instanceof Promise) written.catch(() => undefined);
    } catch {
      // ignored: the stream's own close handler removes it
    }
  };

  /** Today's announcement: the device pulls. */
  const announce = (collection: SyncCollection, list: Stream[]) => {
    const data = JSON.stringify({ collection });
    for (const { connection } of list) safely(() => connection.send(SYNC_EVENTS.change, data));
  };

  /**
   * Each stream gets the change as its user would pull it, from where its last event left off. Streams that follow
   * from the same sequence and see the same documents share one computed (and encoded) event.
   */
  const planDelivery = async (
    how: HubDelivery,
    collection: SyncCollection,
    list: Stream[],
    through: number,
  ): Promise<{ stream: Stream; data: string }[]> => {
    const shared = how.sameForEveryone(collection);
    /** By starting point, then user ('' for all when shared): the index of the event computed for them. */
    const indexes = new Map<number, Map<string, number>>();
    const wanted: { userId: string; since: number }[] = [];
    const indexOf = list.map((stream) => {
      const reached = stream.reached.get(collection);
      // Its last event already reached the sequence now (a later change of the same push): nothing to read again.
      if (reached !== undefined && reached >= through) return -1;
      const since = reached ?? stream.connectedAt;
      let ofSince = indexes.get(since);
      if (!ofSince) indexes.set(since, (ofSince = new Map()));
      const { userId } = stream.connection;
      const key = shared ? '' : userId;
      let index = ofSince.get(key);
      if (index === undefined) {
        ofSince.set(key, (index = wanted.length));
        wanted.push({ userId, since });
      }
      return index;
    });
    const events = wanted.length > 0 ? await how.eventsFor(collection, wanted, through) : [];
    const writes: { stream: Stream; data: string }[] = [];
    list.forEach((stream, i) => {
      const data = indexOf[i] < 0 ? null : events[indexOf[i]];
      // Nothing this user may see: the next event follows from the same place, so it still covers this span. A stream
      // that ended while the events were read is left out.
      if (data === null || !streams.has(stream.connection)) return;
      stream.reached.set(collection, through);
      writes.push({ stream, data });
    });
    return writes;
  };

  const enqueue = (stream: Stream, events: [SyncCollection, string][]) => {
    if (stream.waiting) stream.waiting.events.push(...events);
    else lane.push((stream.waiting = { stream, events }));
  };

  const isWaiting = (stream: Stream, collection: SyncCollection) =>
    stream.waiting?.events.some(([waiting]) => waiting === collection) === true;

  /**
   * Writes the next slice of the lane, then lets other work run before the next; a broadcast waits for the end. Before
   * a slice, held changes are planned and waited for once: they join the streams' entries before any is written (an
   * urgent post and its alert row in one write).
   */
  const drainLane = (waited = false) => {
    if (closed) return;
    if (large.size > 0) flushLarge();
    if (largePlanning && !waited) {
      void largePlanning.then(() => drainLane(true));
      return;
    }
    const end = Math.min(lane.length, laneHead + laneSlice);
    for (; laneHead < end; laneHead += 1) {
      const { stream, events } = lane[laneHead];
      stream.waiting = undefined;
      const data = events.length === 1 ? events[0][1] : events.map(([, each]) => each);
      safely(() => stream.connection.send(SYNC_EVENTS.change, data));
    }
    if (laneHead < lane.length) {
      setImmediate(drainLane);
      return;
    }
    lane.length = 0;
    laneHead = 0;
    if (broadcasts.size > 0 && delivery) scheduleBroadcast(delivery);
  };

  /**
   * Starts writing the lane unless it already is: after this turn's I/O (a push's answer) and after its other changes
   * have joined it (an urgent post's event joins its alert row's), not before.
   */
  const startLane = (wasEmpty: boolean) => {
    if (wasEmpty && lane.length > 0) setImmediate(drainLane);
  };

  /**
   * Runs `work` (planning events of these collections) once every earlier planning of any of them has ended. Its
   * promise never fails: `work` answers its own failures.
   */
  const inOrder = (collections: readonly SyncCollection[], work: () => Promise<void>): Promise<void> => {
    const before = collections.flatMap((collection) => planning.get(collection) ?? []);
    const done = (before.length === 0 ? work() : Promise.all(before).then(work)).catch((error: unknown) => {
      if (!closed) delivery?.failed?.(error);
    });
    for (const collection of collections) planning.set(collection, done);
    void done.then(() => {
      for (const collection of collections) if (planning.get(collection) === done) planning.delete(collection);
    });
    return done;
  };

  /** Events could not be read: the streams are told only which collection changed, and pull it. */
  const readFailed = (how: HubDelivery, error: unknown, changes: [SyncCollection, Stream[]][]) => {
    if (closed) return; // the database the events are read from may be closed too
    how.failed?.(error);
    for (const [collection, list] of changes) announce(collection, list);
  };

  /**
   * Plans changes in order (inOrder) and writes them: a change for a few streams (a chat message) at once; for many (an
   * urgent post's alert lists) through the lane, as is any event of a collection a stream still has waiting there. The
   * streams are taken before the sequence is read, so a stream registered since started from a sequence at or below
   * it. The events of all the changes are read first, then written together, in the order of the changes.
   */
  const deliver = (how: HubDelivery, changes: Changes) =>
    inOrder([...changes.keys()], async () => {
      // Begun: a change told from now on is planned after this one.
      for (const collection of changes.keys()) if (queued.get(collection) === changes) queued.delete(collection);
      if (closed) return;
      const lists = [...changes].map(([collection, userIds]): [SyncCollection, Stream[]] => [
        collection,
        streamsOf(userIds),
      ]);
      let through: number;
      try {
        through = await how.currentSeq();
      } catch (error) {
        readFailed(how, error, lists);
        return;
      }
      const planned: [SyncCollection, { stream: Stream; data: string }[]][] = [];
      const failed: [SyncCollection, Stream[]][] = [];
      // The collections' reads side by side (a chat message's conversation and the message itself), written in order.
      const outcomes = await Promise.all(
        lists.map(([collection, list]) =>
          planDelivery(how, collection, list, through).then(
            (writes) => ({ writes }),
            (error: unknown) => ({ error }),
          ),
        ),
      );
      if (closed) return;
      lists.forEach(([collection, list], i) => {
        const outcome = outcomes[i];
        if ('writes' in outcome) planned.push([collection, outcome.writes]);
        else {
          failed.push([collection, list]);
          readFailed(how, outcome.error, []);
        }
      });
      const wasEmpty = lane.length === 0;
      for (const [collection, writes] of planned) {
        for (const { stream, data } of writes) {
          if (writes.length > FANOUT_SLICE || isWaiting(stream, collection)) enqueue(stream, [[collection, data]]);
          else safely(() => stream.connection.send(SYNC_EVENTS.change, data));
        }
      }
      for (const [collection, list] of failed) announce(collection, list);
      startLane(wasEmpty);
    });

  const send = (changes: [SyncCollection, Set<string> | null][]) => {
    if (!delivery) {
      for (const [collection, userIds] of changes) announce(collection, streamsOf(userIds));
      return;
    }
    let fresh: Changes | undefined;
    for (const [collection, userIds] of changes) {
      if (userIds && userIds.size > FANOUT_SLICE) {
        holdLarge(collection, userIds);
        continue;
      }
      // Joins the changes of this collection still waiting for their turn, or starts new ones.
      let into = queued.get(collection);
      if (!into) queued.set(collection, (into = fresh ??= new Map()));
      addChange(into, collection, userIds);
    }
    if (fresh) void deliver(delivery, fresh);
  };

  /**
   * A change for many users' streams (an urgent post's 5,000 alert lists) is planned after this turn's I/O, so the
   * push that made it is answered first; its events follow from where each stream's last left off, so a smaller change
   * sent meanwhile only carries part of it sooner.
   */
  const holdLarge = (collection: SyncCollection, userIds: Set<string>) => {
    const held = large.get(collection);
    if (held) for (const id of userIds) held.add(id);
    else large.set(collection, userIds);
    if (!largeScheduled) {
      largeScheduled = true;
      setImmediate(flushLarge);
    }
  };

  const flushLarge = () => {
    largeScheduled = false;
    if (closed || large.size === 0 || !delivery) return;
    const changes: Changes = new Map(large);
    large.clear();
    const planned = deliver(delivery, changes);
    largePlanning = planned;
    void planned.then(() => {
      if (largePlanning === planned) largePlanning = undefined;
    });
  };

  const flush = () => {
    flushScheduled = false;
    if (closed) return;
    const changes = [...pending];
    pending.clear();
    send(changes);
  };

  /** Changes for every stream, planned at once and written through the lane; a stream's events of one go together. */
  const flushBroadcasts = (how: HubDelivery) => {
    broadcastScheduled = false;
    if (closed) return;
    lastBroadcastAt = performance.now();
    const collections = [...broadcasts];
    broadcasts.clear();
    void inOrder(collections, async () => {
      if (closed) return;
      const list = all();
      let through: number;
      try {
        through = await how.currentSeq();
      } catch (error) {
        readFailed(
          how,
          error,
          collections.map((collection) => [collection, list]),
        );
        return;
      }
      const byStream = new Map<Stream, [SyncCollection, string][]>();
      const failed: SyncCollection[] = [];
      for (const collection of collections) {
        if (closed) return;
        let writes: { stream: Stream; data: string }[];
        try {
          writes = await planDelivery(how, collection, list, through);
        } catch (error) {
          failed.push(collection);
          readFailed(how, error, []);
          continue;
        }
        for (const { stream, data } of writes) {
          const events = byStream.get(stream);
          if (events) events.push([collection, data]);
          else byStream.set(stream, [[collection, data]]);
        }
      }
      if (closed) return;
      const wasEmpty = lane.length === 0;
      for (const [stream, events] of byStream) enqueue(stream, events);
      for (const collection of failed) announce(collection, list);
      startLane(wasEmpty);
    });
  };

  /**
   * Every stream writing each change of a busy feed (a reaction, a comment) costs the server a write per stream per
   * change; taken together, one event carries them all. The first after a quiet moment leaves at once.
   */
  const scheduleBroadcast = (how: HubDelivery) => {
    // While a fan-out is still being written, the next waits for its end (drainLane).
    if (broadcastScheduled || lane.length > 0) return;
    broadcastScheduled = true;
    const wait = lastBroadcastAt + broadcastEveryMs - performance.now();
    if (wait <= 0) queueMicrotask(() => flushBroadcasts(how));
    else broadcastTimer = setTimeout(() => flushBroadcasts(how), wait).unref();
  };

  /**
   * Pings every stream, ending those whose session died, in slices of FANOUT_SLICE with other work in between, so
   * thousands of pings and session checks never hold a request back.
   */
  const pingAll = () => {
    const list = all();
    let next = 0;
    const slice = async () => {
      if (closed) return;
      const part = list.slice(next, Math.min(list.length, next + FANOUT_SLICE));
      next += part.length;
      const check = isLive;
      // A session that cannot be checked now (the database is busy or gone) keeps its stream until the next ping.
      const live = check
        ? await Promise.all(
            part.map(async ({ connection }) => {
              try {
                return await check(connection.sessionHash);
              } catch (error) {
                if (!closed) delivery?.failed?.(error);
                return true;
              }
            }),
          )
        : null;
      if (closed) return;
      part.forEach(({ connection }, i) => {
        if (!streams.has(connection)) return; // ended since the list was taken
        if (live && !live[i]) end(connection);
        else safely(() => connection.ping());
      });
      if (next < list.length) setImmediate(run);
    };
    const run = () => void slice();
    run();
  };
  const timer = setInterval(pingAll, options.pingEveryMs ?? PING_EVERY_MS);
  timer.unref();

  return {
    async connect(connection) {
      // Read before the stream is registered, so no event is planned for it from a sequence it has not reached.
      const connectedAt = delivery ? await delivery.currentSeq() : 0;
      if (closed) {
        connection.close();
        return () => undefined;
      }
      let set = byUser.get(connection.userId);
      if (!set) byUser.set(connection.userId, (set = new Set()));
      // Its first pull (after the RESYNC it is sent now) brings everything up to at least `connectedAt`.
      const stream: Stream = { connection, reached: new Map(), connectedAt, waiting: undefined };
      set.add(stream);
      streams.set(connection, stream);
      connection.opened?.();
      // Past a limit the oldest stream ends, not the new one: the newest is the tab in use, and a closed one that is
      // still wanted reconnects (decision 127).
      const ofSession = [...set].filter((s) => s.connection.sessionHash === connection.sessionHash);
      if (ofSession.length > MAX_STREAMS_PER_SESSION) end(ofSession[0].connection);
      else if (set.size > MAX_STREAMS_PER_USER) end(set.values().next().value!.connection);
      return () => remove(connection);
    },
    notify(collection, userIds) {
      if (delivery && userIds === undefined) {
        broadcasts.add(collection);
        scheduleBroadcast(delivery);
        return;
      }
      addChange(pending, collection, userIds ?? null);
      if (flushScheduled) return;
      flushScheduled = true;
      // Right after the current synchronous work: a chat message's event goes out before the sender's answer is
      // written, rather than after every other I/O callback of this loop turn (decision 77). A change told from inside
      // a transaction is read once that transaction has ended (HubDelivery.currentSeq waits for it).
      queueMicrotask(flush);
    },
    disconnectUser(userId) {
      for (const { connection } of byUser.get(userId) ?? []) end(connection);
    },
    disconnectSession(sessionHash) {
      for (const { connection } of all()) if (connection.sessionHash === sessionHash) end(connection);
    },
    checkSessionsWith(check) {
      isLive = check;
    },
    size: () => streams.size,
    close() {
      closed = true;
      clearTimeout(broadcastTimer);
      clearInterval(timer);
      for (const { connection } of all()) end(connection);
    },
  };
}
