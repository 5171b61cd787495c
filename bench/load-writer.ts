/**
 * The writers of bench/active-load.ts, in a process of their own: the phones that write are not the process that
 * reads 5,000 streams, so a call's time is the server's answer and not the reader's event-loop delay. The parent
 * sends the run's settings over IPC; this process writes for the run's length, times every call, and answers with
 * what each write must come to be held by (the parent's devices record when they hold it).
 *
 * The load: each device writes once every 3 minutes on average (about 28 writes a second for 5,000), as a Poisson
 * process, with a shift change from 40 s to 50 s at three times the rate. The mix: chat messages 50 %, read marks
 * (a recipient's conversation `readUpTo`) 15 %, reactions 20 % and comments 10 % on the newest posts, posts 5 %;
 * one urgent post to all houses at 20 s, which each device then acknowledges after a delay of mean 2 minutes (so
 * about one in five within the run).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { conversationIdOf } from '../schema/chat-rules';
import { acknowledgementId, type SyncCollection } from '../schema/sync';
import { seededRandom, type BenchUser } from './sim-server';
import {
  clock,
  createRow,
  newCommentDoc,
  newMessageDoc,
  newPostDoc,
  newReactionDoc,
  reactionKey,
  SimDevice,
  type CallTiming,
  type WireDoc,
} from './sim-device';

export const RUN_MS = 60_000;
const MEAN_WRITE_INTERVAL_MS = 3 * 60_000;
const SHIFT_CHANGE = { from: 40_000, to: 50_000, factor: 3 };
const URGENT_AT_MS = 20_000;
const MEAN_ACK_DELAY_MS = 2 * 60_000;
const MIX = [
  ['message', 0.5],
  ['readMark', 0.15],
  ['reaction', 0.2],
  ['comment', 0.1],
  ['post', 0.05],
] as const;

export type WriteKind = (typeof MIX)[number][0] | 'urgent' | 'ack';

export interface WriterSettings {
  /** The servers' bases: writer i writes through bases[i % n], the server connectDevices gives device i's stream. */
  bases: string[];
  users: BenchUser[];
  /** The newest posts of the seeded feed, newest first. */
  posts: string[];
}

/** A change key some devices must come to hold: one device (a message's recipient), or every sampled device. */
export interface Expected {
  key: string;
  /** The recipient's index, or null for the sampled devices but the writer. */
  to: number | null;
  writer: number;
  /** clock() when the write's first push began. */
  start: number;
}

export interface WriterOutcome {
  calls: [string, number[]][];
  expected: Expected[];
  writes: [WriteKind, number][];
  conflicts: number;
  /** Pushes that failed (no answer, or any answer but 200) and were sent again, as the app's replication does. */
  retried: number;
  /** Writes that never got through in 5 tries. */
  failed: number;
  /** This process's CPU (cores) and event-loop delay p99 (ms) over the run. */
  cpu: number;
  loopP99: number;
}

/** When each write of the run starts, from the start, by a Poisson process whose rate triples at the shift change. */
function schedule(random: () => number, devices: number): number[] {
  const perMs = devices / MEAN_WRITE_INTERVAL_MS;
  const times: number[] = [];
  for (let at = 0; ;) {
    const rate = at >= SHIFT_CHANGE.from && at < SHIFT_CHANGE.to ? perMs * SHIFT_CHANGE.factor : perMs;
    at += -Math.log(1 - random()) / rate;
    if (at >= RUN_MS) return times;
    times.push(at);
  }
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Writes for RUN_MS as the settings' users, each as its own device (no stream: only its pushes). */
export async function writeForARun(settings: WriterSettings): Promise<WriterOutcome> {
  const random = seededRandom(11);
  const calls = new Map<string, number[]>();
  const onCall = (call: CallTiming) => {
    const key = `${call.kind} ${call.collection}`;
    let list = calls.get(key);
    if (!list) calls.set(key, (list = []));
    list.push(call.ms);
  };
  const devices = settings.users.map(
    (user, i) =>
      new SimDevice({
        base: settings.bases[i % settings.bases.length],
        token: user.token,
        deviceId: `load-device-${i}`,
        collections: [],
        onCall,
      }),
  );
  const userOf = (index: number) => settings.users[index].id;
  const posts = [...settings.posts.slice(0, 20)];
  const messages: { to: number; from: number }[] = [];
  const expected: Expected[] = [];
  const writes = new Map<WriteKind, number>();
  const pending: Promise<void>[] = [];
  let [conflicts, retried, failed] = [0, 0, 0];

  /** One push, sent again a second after it fails, at most 5 times; null when it never got through. */
  const pushWithRetry = async (device: SimDevice, collection: SyncCollection, doc: WireDoc) => {
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      try {
        const answer = await device.push(collection, [createRow(doc)]);
        if (answer.status === 200) return answer;
      } catch {
        // no answer: sent again below
      }
      retried += 1;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    return null;
  };

  const write = (
    kind: WriteKind,
    writer: number,
    collection: SyncCollection,
    doc: WireDoc,
    keys: string[],
    to = null as number | null,
  ) => {
    writes.set(kind, (writes.get(kind) ?? 0) + 1);
    const start = clock();
    for (const key of keys) expected.push({ key, to, writer, start });
    pending.push(
      pushWithRetry(devices[writer], collection, doc).then((answer) => {
        if (!answer) failed += 1;
        // The push answer (schema/sync.ts PushResponse): refused rows come back as conflicts.
        else conflicts += (answer.body as { conflicts: unknown[] }).conflicts.length;
      }),
    );
  };

  const act = (writer: number) => {
    const me = userOf(writer);
    let roll = random();
    const kind = MIX.find(([, share]) => (roll -= share) < 0)?.[0] ?? MIX[0][0];
    if (kind === 'message' || (kind === 'readMark' && messages.length === 0)) {
      let to = writer;
      while (to === writer) to = Math.floor(random() * devices.length);
      const doc = newMessageDoc(me, userOf(to), 'Running ten minutes late for handover');
      messages.push({ to, from: writer });
      write('message', writer, 'messages', doc, [`messages/${doc.id}`], to);
    } else if (kind === 'readMark') {
      const { to, from } = pick(random, messages);
      const mark = {
        id: conversationIdOf(userOf(to), userOf(from)),
        otherUserId: userOf(from),
        readUpTo: Date.now(),
        _deleted: false,
      };
      write('readMark', to, 'conversations', mark, []);
    } else if (kind === 'reaction') {
      const post = pick(random, posts);
      const type = pick(random, ['like', 'love', 'laugh'] as const);
      write('reaction', writer, 'reactions', newReactionDoc(post, me, type), [reactionKey(post, me)]);
    } else if (kind === 'comment') {
      const doc = newCommentDoc(pick(random, posts), me, 'Thanks, noted!');
      write('comment', writer, 'comments', doc, [`comments/${doc.id}`]);
    } else {
      const doc = newPostDoc(me, 'Reminder: sign the medication chart at the end of each round');
      posts.unshift(doc.id);
      write('post', writer, 'posts', doc, [`posts/${doc.id}`]);
    }
  };

  const timers: NodeJS.Timeout[] = [];
  const urgent = () => {
    const doc = newPostDoc(userOf(0), 'Water off in every house from 15:00 to 16:00', true);
    write('urgent', 0, 'posts', doc, [`posts/${doc.id}`]);
    for (let other = 0; other < devices.length; other += 1) {
      const delay = -Math.log(1 - random()) * MEAN_ACK_DELAY_MS;
      if (URGENT_AT_MS + delay >= RUN_MS) continue;
      timers.push(
        setTimeout(() => {
          const at = Date.now();
          const ack = {
            ...{ id: acknowledgementId(doc.id, userOf(other)), postId: doc.id, userId: userOf(other) },
            ...{ createdAt: at, acknowledgedAt: at, writtenAt: at, viewedAt: at, _deleted: false },
          };
          write('ack', other, 'acknowledgements', ack, []);
        }, delay + 1000),
      );
    }
  };

  const loop = monitorEventLoopDelay({ resolution: 10 });
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  loop.enable();
  for (const at of schedule(random, devices.length)) {
    timers.push(setTimeout(() => act(Math.floor(random() * devices.length)), at));
  }
  timers.push(setTimeout(urgent, URGENT_AT_MS));
  await new Promise((resolve) => setTimeout(resolve, RUN_MS));
  const cpu = process.cpuUsage(cpuBefore);
  const elapsed = performance.now() - started;
  loop.disable();
  timers.forEach(clearTimeout);
  await Promise.all(pending);
  devices.forEach((d) => d.close());
  return {
    calls: [...calls],
    expected,
    writes: [...writes],
    conflicts,
    retried,
    failed,
    cpu: (cpu.user + cpu.system) / 1000 / elapsed,
    loopP99: loop.percentile(99) / 1e6,
  };
}

if (process.argv[1] === import.meta.filename && process.send) {
  process.once('message', (settings: WriterSettings) => {
    writeForARun(settings).then(
      (outcome) => process.send!(outcome, () => process.exit(0)),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}
