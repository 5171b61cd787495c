import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createSyncHub,
  FANOUT_SLICE,
  MAX_STREAMS_PER_SESSION,
  MAX_STREAMS_PER_USER,
  type SyncConnection,
  type SyncHub,
} from './sync.hub';

let hub: SyncHub | undefined;
afterEach(() => hub?.close());

function fakeConnection(userId: string, sessionHash = `${userId}-session`) {
  const sent: string[] = [];
  let pings = 0;
  let closed = false;
  const connection: SyncConnection = {
    userId,
    sessionHash,
    send: async (event, data) => {
      for (const each of typeof data === 'string' ? [data] : data) sent.push(`${event} ${each}`);
    },
    ping: async () => (pings += 1),
    close: () => (closed = true),
  };
  return {
    connection,
    sent,
    get pings() {
      return pings;
    },
    get closed() {
      return closed;
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
/** The lane starts writing after the turn's I/O (a push's answer): one turn to start it, one for its first slice. */
const laneTurns = async () => {
  await turn();
  await turn();
};
/** Lets the microtasks queued so far (and those they queue) run, but no other turn of the loop. */
const microtasks = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

describe('the sync hub', () => {
  it('holds at most 10 streams per session and 30 per user, ending the oldest for a new one', async () => {
    hub = createSyncHub();
    const mine = Array.from({ length: 2_000 }, () => fakeConnection('a', 'one-cookie'));
    for (const stream of mine) await hub.connect(stream.connection);
    expect(hub.size()).toBe(MAX_STREAMS_PER_SESSION);
    expect(mine.filter((s) => !s.closed)).toEqual(mine.slice(-MAX_STREAMS_PER_SESSION));
    const devices = Array.from({ length: 40 }, (_, i) => fakeConnection('a', `device-${i}`));
    for (const stream of devices) await hub.connect(stream.connection);
    expect(hub.size()).toBe(MAX_STREAMS_PER_USER);
    expect(devices.at(-1)!.closed).toBe(false);
    const other = fakeConnection('b');
    await hub.connect(other.connection);
    expect(other.closed).toBe(false);
  });

  it('batches notifications of one turn into one event per collection, sent to every stream', async () => {
    hub = createSyncHub();
    const a = fakeConnection('a');
    const b = fakeConnection('b');
    await hub.connect(a.connection);
    await hub.connect(b.connection);
    hub.notify('posts');
    hub.notify('posts');
    hub.notify('comments');
    expect(a.sent).toEqual([]); // nothing before the current task (and its transaction) has finished
    await turn();
    expect(a.sent).toEqual(['change {"collection":"posts"}', 'change {"collection":"comments"}']);
    expect(b.sent).toEqual(a.sent);
  });

  it('sends the event as soon as the current synchronous work has finished, before other I/O of the turn', async () => {
    hub = createSyncHub();
    const a = fakeConnection('a');
    await hub.connect(a.connection);
    const order: string[] = [];
    setImmediate(() => order.push('immediate'));
    hub.notify('messages', ['a']);
    hub.notify('conversations', ['a']);
    expect(a.sent).toEqual([]);
    await Promise.resolve();
    order.push(...a.sent);
    await turn();
    expect(order).toEqual(['change {"collection":"messages"}', 'change {"collection":"conversations"}', 'immediate']);
  });

  it('sends a change meant for some users only to their streams, and merges audiences within a turn', async () => {
    hub = createSyncHub();
    const a = fakeConnection('a');
    const aLaptop = fakeConnection('a', 'a-laptop');
    const b = fakeConnection('b');
    const c = fakeConnection('c');
    for (const f of [a, aLaptop, b, c]) await hub.connect(f.connection);
    hub.notify('comments', ['a', 'b']);
    hub.notify('reactions', ['a']);
    hub.notify('reactions', ['b', 'nobody-connected']);
    await turn();
    const events = ['change {"collection":"comments"}', 'change {"collection":"reactions"}'];
    expect(a.sent).toEqual(events);
    expect(aLaptop.sent).toEqual(events);
    expect(b.sent).toEqual(events);
    expect(c.sent).toEqual([]);
    hub.notify('comments', ['a']);
    hub.notify('comments');
    await turn();
    expect(c.sent).toEqual(['change {"collection":"comments"}']);
  });

  it('pings every stream on one shared timer and drops streams whose session died', async () => {
    hub = createSyncHub({ pingEveryMs: 20 });
    const live = fakeConnection('a', 'live');
    const dead = fakeConnection('b', 'dead');
    await hub.connect(live.connection);
    await hub.connect(dead.connection);
    hub.checkSessionsWith((hash) => hash === 'live');
    // Waits for the pings rather than a fixed time: a busy machine can run a late 20 ms timer once before a 70 ms one.
    await vi.waitFor(() => expect(live.pings).toBeGreaterThanOrEqual(2), { timeout: 5000, interval: 10 });
    expect(live.closed).toBe(false);
    expect(dead.closed).toBe(true);
    expect(hub.size()).toBe(1);
  });

  it('closes the streams of one user or one session, and unregisters a stream that ended', async () => {
    hub = createSyncHub();
    const phone = fakeConnection('a', 'phone');
    const laptop = fakeConnection('a', 'laptop');
    const other = fakeConnection('b');
    await hub.connect(phone.connection);
    await hub.connect(laptop.connection);
    const remove = await hub.connect(other.connection);
    hub.disconnectSession('phone');
    expect([phone.closed, laptop.closed]).toEqual([true, false]);
    hub.disconnectUser('a');
    expect(laptop.closed).toBe(true);
    remove();
    expect(hub.size()).toBe(0);
    expect(other.closed).toBe(false);
  });

  it('pings many streams in slices, answering other work in between', async () => {
    hub = createSyncHub({ pingEveryMs: 30 });
    const streams = Array.from({ length: FANOUT_SLICE * 2 + 5 }, (_, i) => fakeConnection(`user-${i}`));
    const pinged = () => streams.filter((s) => s.pings > 0).length;
    // Other work queued by the first ping runs before the next slice: it sees one slice pinged.
    let between = -1;
    const { ping } = streams[0].connection;
    streams[0].connection.ping = () => {
      if (between < 0) setImmediate(() => (between = pinged()));
      return ping();
    };
    for (const stream of streams) await hub.connect(stream.connection);
    await vi.waitFor(() => expect(pinged()).toBe(streams.length), { timeout: 5000, interval: 5 });
    expect(between).toBe(FANOUT_SLICE);
  });

  it('writes a smaller slice per turn when told to (a server on PostgreSQL)', async () => {
    hub = createSyncHub({
      laneSlice: 25,
      delivery: {
        currentSeq: async () => 2,
        sameForEveryone: () => true,
        eventsFor: async (collection, wanted) => wanted.map(() => JSON.stringify({ collection })),
      },
    });
    const streams = Array.from({ length: FANOUT_SLICE + 5 }, (_, i) => fakeConnection(`user-${i}`));
    for (const stream of streams) await hub.connect(stream.connection);
    const written = () => streams.filter((s) => s.sent.length > 0).length;
    hub.notify('posts');
    await microtasks();
    await turn();
    expect(written()).toBe(25);
    await turn();
    expect(written()).toBe(50);
    await vi.waitFor(() => expect(written()).toBe(streams.length), { timeout: 5000, interval: 5 });
  });

  it('computes one event per starting point for a collection everyone sees alike, one per user otherwise', async () => {
    let seq = 10;
    const computed: string[] = [];
    hub = createSyncHub({
      delivery: {
        currentSeq: async () => seq,
        sameForEveryone: (collection) => collection === 'posts',
        eventsFor: async (collection, wanted, through) =>
          wanted.map(({ userId, since }) => {
            computed.push(`${collection} ${userId} ${since}-${through}`);
            return userId === 'nobody-sees' ? null : JSON.stringify({ collection, since, through });
          }),
      },
    });
    const streams = ['a', 'b', 'nobody-sees'].map((id) => fakeConnection(id));
    for (const stream of streams) await hub.connect(stream.connection);
    seq = 12;
    hub.notify('posts');
    hub.notify('messages', ['a', 'nobody-sees']);
    await laneTurns();
    // The posts' event was computed once for all three streams: the first user's id only names who it was read as.
    expect(computed).toEqual(['posts a 10-12', 'messages a 10-12', 'messages nobody-sees 10-12']);
    expect(streams[1].sent).toEqual(['change {"collection":"posts","since":10,"through":12}']);
    expect(streams[2].sent).toEqual(['change {"collection":"posts","since":10,"through":12}']);
    seq = 15;
    hub.notify('messages', ['a', 'nobody-sees']);
    await turn();
    // A user who saw nothing last time is told from where their last event left off, so nothing is skipped.
    expect(computed.slice(3)).toEqual(['messages a 12-15', 'messages nobody-sees 10-15']);
  });

  it('with delivery, sends changes for every stream at once after a quiet moment, then together at most every period', async () => {
    let seq = 1;
    hub = createSyncHub({
      broadcastEveryMs: 100,
      delivery: {
        currentSeq: async () => seq,
        sameForEveryone: () => true,
        eventsFor: async (collection, wanted, through) =>
          wanted.map(({ since }) => JSON.stringify({ collection, since, through })),
      },
    });
    const a = fakeConnection('a');
    await hub.connect(a.connection);
    seq = 2;
    hub.notify('posts');
    await laneTurns();
    expect(a.sent).toEqual(['change {"collection":"posts","since":1,"through":2}']);
    seq = 3;
    hub.notify('posts');
    seq = 4;
    await turn();
    hub.notify('comments');
    hub.notify('posts');
    // A message for one user does not wait for the period.
    hub.notify('messages', ['a']);
    await turn();
    expect(a.sent.slice(1)).toEqual(['change {"collection":"messages","since":1,"through":4}']);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(a.sent.slice(2)).toEqual([
      'change {"collection":"posts","since":2,"through":4}',
      'change {"collection":"comments","since":1,"through":4}',
    ]);
  });

  it('writes a change for every stream in slices, answering other work in between', async () => {
    hub = createSyncHub({
      delivery: {
        currentSeq: async () => 2,
        sameForEveryone: () => true,
        eventsFor: async (collection, wanted) => wanted.map(() => JSON.stringify({ collection })),
      },
    });
    const count = FANOUT_SLICE * 3 + 20;
    const streams = Array.from({ length: count }, (_, i) => fakeConnection(`user-${i}`));
    for (const stream of streams) await hub.connect(stream.connection);
    const written = () => streams.filter((s) => s.sent.length > 0).length;
    hub.notify('posts');
    await microtasks();
    // The push that made the change is answered first.
    expect(written()).toBe(0);
    await turn();
    expect(written()).toBe(FANOUT_SLICE);
    let between = -1;
    setImmediate(() => (between = written()));
    for (let i = 0; i < 4; i += 1) await turn();
    expect(between).toBeGreaterThan(0);
    expect(between).toBeLessThan(count);
    expect(written()).toBe(count);
    expect(streams.every((s) => s.sent.length === 1)).toBe(true);
  });

  it('holds a change for many users until the turn’s I/O is done, writes it in slices, each collection in order', async () => {
    let seq = 1;
    hub = createSyncHub({
      delivery: {
        currentSeq: async () => seq,
        sameForEveryone: () => false,
        // As a pull does, nothing for a user whose stream already reached the sequence now.
        eventsFor: async (collection, wanted, through) =>
          wanted.map(({ since }) => (since >= through ? null : JSON.stringify({ collection, since, through }))),
      },
    });
    const count = FANOUT_SLICE * 2 + 5;
    const streams = Array.from({ length: count }, (_, i) => fakeConnection(`user-${i}`));
    for (const stream of streams) await hub.connect(stream.connection);
    const last = streams.at(-1)!;
    const written = () => streams.filter((s) => s.sent.length > 0).length;
    seq = 2;
    // An urgent post's alert rows: one list per user, every user at once.
    hub.notify(
      'acknowledgements',
      streams.map((s) => s.connection.userId),
    );
    await microtasks();
    expect(written()).toBe(0);
    // Before its turn, the last user acknowledges (their list changes again) and gets a message: both go at once, and
    // the alert list's event carries both of its changes.
    seq = 3;
    hub.notify('acknowledgements', [last.connection.userId]);
    hub.notify('messages', [last.connection.userId]);
    await microtasks();
    expect(last.sent).toEqual([
      'change {"collection":"acknowledgements","since":1,"through":3}',
      'change {"collection":"messages","since":1,"through":3}',
    ]);
    await laneTurns();
    expect(written()).toBe(FANOUT_SLICE + 1);
    for (let i = 0; i < 4; i += 1) await turn();
    expect(
      streams
        .slice(0, -1)
        .every((s) => s.sent.join() === 'change {"collection":"acknowledgements","since":1,"through":3}'),
    ).toBe(true);
    // The held change had nothing more for the last user.
    expect(last.sent).toHaveLength(2);
  });

  it('plans a collection’s changes one after another: a slow read is never overtaken, and changes waiting join', async () => {
    let seq = 1;
    const reads: string[] = [];
    hub = createSyncHub({
      delivery: {
        currentSeq: async () => seq,
        sameForEveryone: () => false,
        eventsFor: async (collection, wanted, through) => {
          reads.push(`${collection} ${through}`);
          // The first read is slow (a busy database); the later ones answer at once.
          if (reads.length === 1) await new Promise((resolve) => setTimeout(resolve, 30));
          return wanted.map(({ since }) => JSON.stringify({ collection, since, through }));
        },
      },
    });
    const a = fakeConnection('a');
    await hub.connect(a.connection);
    seq = 2;
    hub.notify('messages', ['a']);
    await turn();
    seq = 3;
    hub.notify('messages', ['a']);
    await turn();
    // Joins the change still waiting for its turn: one read for both.
    seq = 4;
    hub.notify('messages', ['a']);
    await vi.waitFor(() => expect(a.sent).toHaveLength(2), { timeout: 5000, interval: 5 });
    await turn();
    expect(a.sent).toEqual([
      'change {"collection":"messages","since":1,"through":2}',
      'change {"collection":"messages","since":2,"through":4}',
    ]);
    expect(reads).toEqual(['messages 2', 'messages 4']);
  });

  it('announces a change whose events could not be read, and reports why', async () => {
    const failures: unknown[] = [];
    hub = createSyncHub({
      delivery: {
        currentSeq: async () => 2,
        sameForEveryone: () => false,
        eventsFor: async () => {
          throw new Error('The database is busy');
        },
        failed: (error) => failures.push(error),
      },
    });
    const a = fakeConnection('a');
    await hub.connect(a.connection);
    hub.notify('messages', ['a']);
    await turn();
    expect(a.sent).toEqual(['change {"collection":"messages"}']);
    expect(failures).toEqual([new Error('The database is busy')]);
  });

  it("writes an urgent post and a user's alert row together, in the same slice", async () => {
    let seq = 1;
    hub = createSyncHub({
      delivery: {
        currentSeq: async () => seq,
        sameForEveryone: (collection) => collection === 'posts',
        eventsFor: async (collection, wanted) => wanted.map(() => JSON.stringify({ collection })),
      },
    });
    const streams = Array.from({ length: FANOUT_SLICE * 2 }, (_, i) => fakeConnection(`user-${i}`));
    for (const stream of streams) await hub.connect(stream.connection);
    seq = 2;
    hub.notify(
      'acknowledgements',
      streams.map((s) => s.connection.userId),
    );
    hub.notify('posts');
    await microtasks();
    expect(streams.every((s) => s.sent.length === 0)).toBe(true);
    await turn();
    const both = ['change {"collection":"posts"}', 'change {"collection":"acknowledgements"}'];
    expect(streams.slice(0, FANOUT_SLICE).every((s) => s.sent.join() === both.join())).toBe(true);
    expect(streams.slice(FANOUT_SLICE).every((s) => s.sent.length === 0)).toBe(true);
    await turn();
    expect(streams.every((s) => s.sent.join() === both.join())).toBe(true);
  });

  it('sends nothing once closed, not even a change that was waiting for its beat', async () => {
    let open = true;
    const read = () => {
      if (!open) throw new TypeError('The database connection is not open');
      return 3;
    };
    hub = createSyncHub({
      broadcastEveryMs: 50,
      delivery: {
        currentSeq: async () => read(),
        sameForEveryone: () => true,
        eventsFor: async (collection, wanted) => wanted.map(() => (read(), JSON.stringify({ collection }))),
      },
    });
    const a = fakeConnection('a');
    await hub.connect(a.connection);
    hub.notify('posts');
    await laneTurns();
    hub.notify('posts');
    hub.notify('messages', ['a']);
    hub.close();
    open = false;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(a.sent).toEqual(['change {"collection":"posts"}']);
  });
});
