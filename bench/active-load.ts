/**
 * Figures: 5,000 devices connected (BENCH_DEVICES overrides) and a realistic share of them active for 60 s: p99 of
 * each call (push and pull per collection; target < 100 ms), p99 of delivery (write to held), server CPU (%) and
 * memory (RSS). Baseline in the same run: the same load on a server with SYNC_DELIVERY=announce (first), then the
 * server's delivery, a fresh server each. Devices apply docs/sync.md's protocol (bench/sim-device.ts).
 *
 * The load: each device writes once every 3 minutes on average (about 28 writes a second for 5,000), as a Poisson
 * process, with a shift change from 40 s to 50 s at three times the rate. The mix: chat messages 50 %, read marks
 * (a recipient's conversation `readUpTo`) 15 %, reactions 20 % and comments 10 % on the newest posts, posts 5 %;
 * one urgent post to all houses at 20 s, which each device then acknowledges after a delay of mean 2 minutes (so
 * about one in five within the run). Delivery is measured for every message (its recipient) and, for broadcast
 * changes, on one device in ten (each would need 5,000 held times otherwise).
 *
 * The devices run in this process (bench/delivery.ts says why and how the reader is checked); its CPU use and event
 * loop delay are printed beside the figures.
 * Run: node --import tsx bench/active-load.ts
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { conversationIdOf } from '../schema/chat-rules';
import { acknowledgementId, type SyncCollection } from '../schema/sync';
import { percentile, printFigure, printMachine, round, verdict } from './bench-report';
import {
  changeKeys,
  clock,
  createRow,
  newCommentDoc,
  newMessageDoc,
  newPostDoc,
  newReactionDoc,
  reactionKey,
  waitUntil,
  type CallTiming,
  type SimDevice,
  type WireDoc,
} from './sim-device';
import {
  connectDevices,
  cpuMs,
  rssBytes,
  seededRandom,
  startServerProcess,
  type ServerProcess,
  type SyncMode,
} from './sim-server';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 5000);
const COLLECTIONS: SyncCollection[] = [
  'posts',
  'comments',
  'reactions',
  'conversations',
  'messages',
  'acknowledgements',
];
const RUN_MS = 60_000;
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
/** One device in this many follows broadcast changes for the delivery figure. */
const SAMPLE_EVERY = 10;
const TARGET_CALL_P99 = 100;
/** How long after the run the bench waits for the last changes to be held. */
const DRAIN_MS = 30_000;

type WriteKind = (typeof MIX)[number][0] | 'urgent' | 'ack';

interface Outcome {
  calls: Map<string, number[]>;
  delivery: number[];
  /** Held times expected but not seen by the end of the drain. */
  missing: number;
  cpuPercent: number;
  rssMaxMb: number;
  conflicts: number;
  /** Pushes that failed (no answer, or a 5xx) and were sent again, as the app's replication does. */
  retried: number;
  /** Writes that never got through in 5 tries. */
  failed: number;
  writes: Map<WriteKind, number>;
  reader: { cpu: number; loopP99: number };
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

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

async function runMode(mode: SyncMode): Promise<Outcome> {
  const server = await startServerProcess(DEVICES, mode);
  const devices: SimDevice[] = [];
  const calls = new Map<string, number[]>();
  const onCall = (call: CallTiming) => {
    const key = `${call.kind} ${call.collection}`;
    let list = calls.get(key);
    if (!list) calls.set(key, (list = []));
    list.push(call.ms);
  };
  const sampled = (index: number) => index % SAMPLE_EVERY === 0;
  // Messages are followed on every device (only the recipient gets them); broadcast changes on the sampled ones.
  const messageKeys = (collection: SyncCollection, doc: WireDoc) =>
    collection === 'messages' ? [`messages/${doc.id}`] : [];
  try {
    const connecting = performance.now();
    await connectDevices(server, devices, DEVICES, (_, i) => ({
      collections: COLLECTIONS,
      deviceId: `load-device-${i}`,
      keysOf: sampled(i) ? changeKeys : messageKeys,
      onCall,
    }));
    console.log(`${mode}: ${DEVICES} devices connected in ${round((performance.now() - connecting) / 1000)} s`);
    calls.clear();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return await activeMinute(server, devices, calls, sampled);
  } finally {
    devices.forEach((d) => d.close());
    server.stop();
  }
}

async function activeMinute(
  server: ServerProcess,
  devices: SimDevice[],
  calls: Map<string, number[]>,
  sampled: (index: number) => boolean,
): Promise<Outcome> {
  const random = seededRandom(11);
  const userOf = new Map(devices.map((d, i) => [d, server.users[i].id]));
  const posts = [...server.posts.slice(0, 20)];
  const messages: { to: SimDevice; from: SimDevice }[] = [];
  /** What must be held where: the key, the devices, the write's start. */
  const expected: { key: string; devices: SimDevice[]; start: number }[] = [];
  const sample = devices.filter((_, i) => sampled(i));
  const writes = new Map<WriteKind, number>();
  let conflicts = 0;
  let retried = 0;
  let failed = 0;
  /**
   * One push, sent again a second after it fails (no answer, or any answer but 200: the app's replication throws on
   * those and RxDB retries), at most 5 times; null when it never got through.
   */
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

  const pending: Promise<void>[] = [];

  /** Pushes one row; `keys` must then be held by `targets` (by default the sampled devices but the writer). */
  const write = (
    kind: WriteKind,
    device: SimDevice,
    collection: SyncCollection,
    doc: WireDoc,
    keys: string[],
    targets = sample.filter((d) => d !== device),
  ) => {
    writes.set(kind, (writes.get(kind) ?? 0) + 1);
    const start = clock();
    for (const key of keys) expected.push({ key, devices: targets, start });
    pending.push(
      pushWithRetry(device, collection, doc).then((answer) => {
        if (!answer) failed += 1;
        // The push answer (schema/sync.ts PushResponse): refused rows come back as conflicts.
        else conflicts += (answer.body as { conflicts: unknown[] }).conflicts.length;
      }),
    );
  };

  const act = (device: SimDevice) => {
    const me = userOf.get(device)!;
    const kind = (() => {
      let roll = random();
      for (const [name, share] of MIX) if ((roll -= share) < 0) return name;
      return MIX[0][0];
    })();
    if (kind === 'message' || (kind === 'readMark' && messages.length === 0)) {
      let to = device;
      while (to === device) to = pick(random, devices);
      const doc = newMessageDoc(me, userOf.get(to)!, 'Running ten minutes late for handover');
      messages.push({ to, from: device });
      write('message', device, 'messages', doc, [`messages/${doc.id}`], [to]);
    } else if (kind === 'readMark') {
      const { to, from } = pick(random, messages);
      const [reader, other] = [userOf.get(to)!, userOf.get(from)!];
      const mark = { id: conversationIdOf(reader, other), otherUserId: other, readUpTo: Date.now(), _deleted: false };
      write('readMark', to, 'conversations', mark, []);
    } else if (kind === 'reaction') {
      const post = pick(random, posts);
      const type = pick(random, ['like', 'love', 'laugh'] as const);
      write('reaction', device, 'reactions', newReactionDoc(post, me, type), [reactionKey(post, me)]);
    } else if (kind === 'comment') {
      const doc = newCommentDoc(pick(random, posts), me, 'Thanks, noted!');
      write('comment', device, 'comments', doc, [`comments/${doc.id}`]);
    } else {
      const doc = newPostDoc(me, 'Reminder: sign the medication chart at the end of each round');
      posts.unshift(doc.id);
      write('post', device, 'posts', doc, [`posts/${doc.id}`]);
    }
  };

  const urgent = (device: SimDevice) => {
    const doc = newPostDoc(userOf.get(device)!, 'Water off in every house from 15:00 to 16:00', true);
    write('urgent', device, 'posts', doc, [`posts/${doc.id}`]);
    for (const other of devices) {
      const delay = -Math.log(1 - random()) * MEAN_ACK_DELAY_MS;
      if (URGENT_AT_MS + delay >= RUN_MS) continue;
      const user = userOf.get(other)!;
      timers.push(
        setTimeout(() => {
          const at = Date.now();
          const ack = {
            id: acknowledgementId(doc.id, user),
            postId: doc.id,
            userId: user,
            createdAt: at,
            acknowledgedAt: at,
            writtenAt: at,
            viewedAt: at,
            _deleted: false,
          };
          write('ack', other, 'acknowledgements', ack, []);
        }, delay + 1000),
      );
    }
  };

  const timers: NodeJS.Timeout[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const cpuBefore = cpuMs(server.pid);
  const readerBefore = process.cpuUsage();
  let rssMax = rssBytes(server.pid);
  const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, rssBytes(server.pid))), 1000);
  const started = performance.now();
  loop.enable();
  for (const at of schedule(random, devices.length)) timers.push(setTimeout(() => act(pick(random, devices)), at));
  timers.push(setTimeout(() => urgent(devices[0]), URGENT_AT_MS));
  await new Promise((resolve) => setTimeout(resolve, RUN_MS));
  const elapsed = performance.now() - started;
  const cpuPercent = ((cpuMs(server.pid) - cpuBefore) / elapsed) * 100;
  const reader = process.cpuUsage(readerBefore);
  loop.disable();
  timers.forEach(clearTimeout);
  clearInterval(rssTimer);
  await Promise.all(pending);
  const isHeld = (e: (typeof expected)[number]) => e.devices.every((d) => d.held.has(e.key));
  await waitUntil(() => expected.every(isHeld), DRAIN_MS, 'the last changes').catch(() => undefined);
  const delivery: number[] = [];
  let missing = 0;
  for (const e of expected) {
    for (const d of e.devices) {
      const at = d.held.get(e.key);
      if (at === undefined) missing += 1;
      else delivery.push(at - e.start);
    }
  }
  return {
    calls,
    delivery: delivery.sort((a, b) => a - b),
    missing,
    cpuPercent,
    rssMaxMb: rssMax / 2 ** 20,
    conflicts,
    retried,
    failed,
    writes,
    reader: { cpu: (reader.user + reader.system) / 1000 / elapsed, loopP99: loop.percentile(99) / 1e6 },
  };
}

function describe(mode: SyncMode, o: Outcome): void {
  console.log(
    `${mode}: writes ${JSON.stringify(Object.fromEntries(o.writes))}, ${o.conflicts} refused rows, ${o.retried} pushes sent again, ${o.failed} never sent, ` +
      `server CPU ${round(o.cpuPercent)} %, RSS max ${round(o.rssMaxMb)} MB; reader CPU ${round(o.reader.cpu, 2)} ` +
      `cores, loop delay p99 ${round(o.reader.loopP99)} ms`,
  );
  for (const [call, times] of [...o.calls].sort()) {
    const sorted = [...times].sort((a, b) => a - b);
    console.log(
      `  ${call}: ${times.length} calls, p50 ${round(percentile(sorted, 50))} ms, p99 ${round(percentile(sorted, 99))} ms`,
    );
  }
  console.log(
    `  delivery: ${o.delivery.length} held, ${o.missing} not held within ${DRAIN_MS / 1000} s of the end; ` +
      `p50 ${round(percentile(o.delivery, 50))} ms, p99 ${round(percentile(o.delivery, 99))} ms`,
  );
}

function figures(baseline: Outcome, delivery: Outcome): void {
  const p99 = (times: number[] | undefined) =>
    percentile(
      [...(times ?? [])].sort((a, b) => a - b),
      99,
    );
  const calls = [...new Set([...baseline.calls.keys(), ...delivery.calls.keys()])].sort();
  const rows = calls.map((call) => {
    const [measured, base] = [p99(delivery.calls.get(call)), p99(baseline.calls.get(call))];
    const count = delivery.calls.get(call)?.length ?? 0;
    return {
      figure: `${call}, p99, ${DEVICES} devices connected and active (60 s)`,
      target: `< ${TARGET_CALL_P99} ms`,
      measured: count === 0 ? 'no calls' : `${round(measured)} ms (${count} calls)`,
      baseline: `announce and pull: ${round(base)} ms (${baseline.calls.get(call)?.length ?? 0} calls)`,
      ratio: count === 0 ? '-' : String(round(measured / base, 3)),
      pass: count === 0 ? null : measured < TARGET_CALL_P99,
    };
  });
  const held = (o: Outcome) => `${round(percentile(o.delivery, 99))} ms (${o.missing} not held)`;
  rows.push(
    {
      figure: `Delivery under load, write to held, p99 (${DEVICES} devices)`,
      target: '-',
      measured: held(delivery),
      baseline: `announce and pull: ${held(baseline)}`,
      ratio: String(round(percentile(delivery.delivery, 99) / percentile(baseline.delivery, 99), 3)),
      pass: null,
    },
    {
      figure: `Server CPU under load (${DEVICES} devices, one core = 100 %)`,
      target: '-',
      measured: `${round(delivery.cpuPercent)} %`,
      baseline: `announce and pull: ${round(baseline.cpuPercent)} %`,
      ratio: String(round(delivery.cpuPercent / baseline.cpuPercent, 3)),
      pass: null,
    },
    {
      figure: `Server memory under load, RSS max (${DEVICES} devices)`,
      target: '-',
      measured: `${round(delivery.rssMaxMb)} MB`,
      baseline: `announce and pull: ${round(baseline.rssMaxMb)} MB`,
      ratio: String(round(delivery.rssMaxMb / baseline.rssMaxMb, 3)),
      pass: null,
    },
  );
  for (const f of rows) {
    console.log(`${f.figure}: ${f.measured} (target ${f.target}) ${verdict(f.pass)}; baseline ${f.baseline}`);
    printFigure(f);
  }
}

async function main(): Promise<void> {
  printMachine();
  const started = performance.now();
  const baseline = await runMode('announce');
  describe('announce', baseline);
  const delivery = await runMode('delivery');
  describe('delivery', delivery);
  figures(baseline, delivery);
  console.log(`active-load bench: ${round((performance.now() - started) / 1000)} s`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
