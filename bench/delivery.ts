/**
 * Figures: how long until every device holds a change, with 2,000 and 5,000 devices connected to the live stream
 * (BENCH_DEVICES overrides), and what the server spends on it. Changes are written as the app writes them (a sync
 * push from one device): five urgent posts to all houses in turn (each held by 5,000 devices p99 < 1,000 ms from its
 * push's start), a chat message (held by its recipient p99 < 25 ms; 100 between random pairs, one after another), a
 * burst of 100 reactions in 10 s from different users (each held by every device on the post), a comment. Server CPU per change
 * (utime + stime of its process from the push to every device idle again) < 300 ms for a change all 5,000 hold.
 * Baseline in the same run: the server with SYNC_DELIVERY=announce (events name the collection, every device pulls);
 * then the server's delivery, a fresh server each. Devices apply docs/sync.md's protocol (bench/sim-device.ts).
 *
 * A mode's devices all run in one process of their own (a fresh one per mode, so the baseline's devices leave
 * nothing behind to slow the delivery's): the server has one of the machine's two cores and that process the other,
 * so more reader processes would only compete for it. Whether the reader keeps up is measured, not assumed:
 * each change's line prints this process's CPU use and its event loop's delay (p99) over the change. A reader well
 * under one core with a loop delay far below the delivery times means the times are the server's; a loop delay
 * near them means the machine was busy with other work and the run should be repeated on a quiet one.
 * Each change's line prints the machine's busy cores over it too (/proc/stat), so a run where other work took the
 * second core shows it. bench/two-servers.ts measures the same changes on two servers and PostgreSQL with these
 * functions.
 * Run: node --import tsx bench/delivery.ts
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { SyncCollection } from '../schema/sync';
import { percentile, printFigures, printMachine, round } from './bench-report';
import {
  changeKeys,
  clock,
  createRow,
  newCommentDoc,
  newMessageDoc,
  newPostDoc,
  newReactionDoc,
  reactionKey,
  SimDevice,
  waitUntil,
} from './sim-device';
import {
  benchEntry,
  connectDevices,
  cpuMs,
  machineBusyMs,
  runModeApart,
  seededRandom,
  startServerProcess,
  SYNC_MODES,
  type ServerProcess,
  type SyncMode,
} from './sim-server';

const SIZES = process.env.BENCH_DEVICES ? [Number(process.env.BENCH_DEVICES)] : [2000, 5000];
/** What the app replicates of what these changes touch (src/db/replication.ts). */
const COLLECTIONS: SyncCollection[] = [
  'posts',
  'comments',
  'reactions',
  'conversations',
  'messages',
  'acknowledgements',
];
const MESSAGES = 100;
/** Urgent posts in turn: server CPU per post is their mean, as one post is a few ticks of the process clock. */
const URGENT_POSTS = 5;
/** How long the next urgent post waits at most for every device to be idle again. */
const URGENT_IDLE_MS = 60_000;
const REACTIONS = 100;
const BURST_MS = 10_000;
export const TARGETS = { urgentP99: 1000, chatP99: 25, cpuPerChange: 300 };
/**
 * The longest a change may take to reach every device before the bench gives up on it (its missing devices count as
 * never held), so that a saturated server still lets the bench finish in a few minutes.
 */
export const HOLD_TIMEOUT_MS = 20_000;
/** How long the bench waits for every device to be idle again after a change. */
const IDLE_TIMEOUT_MS = 15_000;
/** The chat series stops early after this long (fewer messages then), for the same reason. */
const CHAT_MAX_MS = 20_000;

export interface ChangeResult {
  /** Per device (and per change for a series), ms from the push's start until held, sorted. */
  times: number[];
  /** Those of devices on another server than the writer's (the change came through the fan-out); empty with one. */
  acrossTimes: number[];
  /** Server CPU per change, ms: the sum of the deployment's server processes. */
  cpuPerChange: number;
  /** The database's own processes' CPU per change, ms; null on SQLite, which runs inside the server. */
  databaseCpuPerChange: number | null;
  /** Bytes received per device per change. */
  bytesPerDevice: number;
  /** This process: CPU use (1 = one core) and event loop delay p99 (ms) over the change. */
  reader: { cpu: number; loopP99: number };
  /** The whole machine's busy cores over the change (every process, this run's or not). */
  machineCores: number;
}

export type Results = Record<'urgent' | 'chat' | 'reactions' | 'comment', ChangeResult>;

/**
 * What a mode runs the changes against: its server processes (devices spread over them, writers taking turns) and,
 * when the data is in PostgreSQL, how much CPU its processes have used (ms).
 */
export interface Deployment {
  servers: readonly ServerProcess[];
  databaseCpuMs?: () => number;
}

const serversCpuMs = (deployment: Deployment) => deployment.servers.reduce((sum, s) => sum + cpuMs(s.pid), 0);

/** Runs a change from the start of its writes until every device is idle again; measures the servers and the reader. */
async function measured(
  deployment: Deployment,
  devices: SimDevice[],
  /** How many changes `run` wrote (a function: the chat series may end early). */
  changes: () => number,
  run: () => Promise<Held[]>,
): Promise<ChangeResult> {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const bytesBefore = devices.reduce((sum, d) => sum + d.bytes, 0);
  const cpuBefore = serversCpuMs(deployment);
  const databaseBefore = deployment.databaseCpuMs?.();
  const machineBefore = machineBusyMs();
  const readerBefore = process.cpuUsage();
  const started = performance.now();
  loop.enable();
  const held = await run();
  await waitUntil(() => devices.every((d) => d.idle()), IDLE_TIMEOUT_MS, 'every device to be idle').catch(() =>
    console.log(`  not every device was idle within ${IDLE_TIMEOUT_MS / 1000} s: the next change starts anyway`),
  );
  loop.disable();
  const elapsed = performance.now() - started;
  const reader = process.cpuUsage(readerBefore);
  const bytes = devices.reduce((sum, d) => sum + d.bytes, 0) - bytesBefore;
  const databaseAfter = deployment.databaseCpuMs?.();
  return {
    times: held.map((h) => h.ms).sort((a, b) => a - b),
    acrossTimes: held
      .filter((h) => h.across)
      .map((h) => h.ms)
      .sort((a, b) => a - b),
    cpuPerChange: (serversCpuMs(deployment) - cpuBefore) / changes(),
    databaseCpuPerChange:
      databaseBefore === undefined || databaseAfter === undefined ? null : (databaseAfter - databaseBefore) / changes(),
    bytesPerDevice: bytes / devices.length / changes(),
    reader: { cpu: (reader.user + reader.system) / 1000 / elapsed, loopP99: loop.percentile(99) / 1e6 },
    machineCores: (machineBusyMs() - machineBefore) / elapsed,
  };
}

/** A device's time from a push's start until it held the change, and whether it is on another server than the writer. */
interface Held {
  ms: number;
  across: boolean;
}

/**
 * Waits until each device but the writer holds `key`, or gives up after HOLD_TIMEOUT_MS; answers each one's time from
 * `start`, Infinity for a device that did not hold it by then. Looks only at those still without it.
 */
async function heldByAll(devices: SimDevice[], writer: SimDevice, key: string, start: number): Promise<Held[]> {
  let waiting = devices.filter((d) => d !== writer);
  const all = waiting;
  await waitUntil(() => (waiting = waiting.filter((d) => !d.held.has(key))).length === 0, HOLD_TIMEOUT_MS, key).catch(
    () => undefined,
  );
  return all.map((d) => ({ ms: (d.held.get(key) ?? Infinity) - start, across: d.base !== writer.base }));
}

/**
 * Pushes one document and waits until every device but the writer holds `key`, from the push's start: a push that
 * waits behind a saturated server counts in the time, and the wait is bounded by HOLD_TIMEOUT_MS all the same.
 */
async function pushAndHold(
  devices: SimDevice[],
  writer: SimDevice,
  collection: SyncCollection,
  doc: Parameters<typeof createRow>[0],
  key: string,
): Promise<Held[]> {
  const start = clock();
  void writer.push(collection, [createRow(doc)]).then(
    ({ status }) => status === 200 || console.log(`  pushing to ${collection} answered ${status}`),
    (error: unknown) => console.log(`  pushing to ${collection} failed: ${String(error)}`),
  );
  return heldByAll(devices, writer, key, start);
}

/** Each device's user: devices are connected in the order of the seeded users (bench/sim-server.ts). */
const usersOf = (deployment: Deployment, devices: SimDevice[]) =>
  new Map(devices.map((d, i) => [d, deployment.servers[0].users[i].id]));

/**
 * Five urgent posts in turn, each written by an admin's device on the next server in turn (device i is on server i
 * modulo their number, and the first twenty users are admins); answers them measured and the last post's id.
 */
export async function urgentPosts(
  deployment: Deployment,
  devices: SimDevice[],
): Promise<{ result: ChangeResult; postId: string }> {
  const userOf = usersOf(deployment, devices);
  let postId = '';
  const result = await measured(
    deployment,
    devices,
    () => URGENT_POSTS,
    async () => {
      const held: Held[] = [];
      for (let i = 0; i < URGENT_POSTS; i += 1) {
        const writer = devices[i % deployment.servers.length];
        const post = newPostDoc(userOf.get(writer)!, `Fire alarm test at 14:0${i} in every house`, true);
        postId = post.id;
        held.push(...(await pushAndHold(devices, writer, 'posts', post, `posts/${post.id}`)));
        // The next post waits for this one's pulls to end, so the baseline times each post, not a growing queue.
        await waitUntil(() => devices.every((d) => d.idle()), URGENT_IDLE_MS, 'every device to be idle').catch(() =>
          console.log(`  not every device was idle ${URGENT_IDLE_MS / 1000} s after urgent post ${i + 1}`),
        );
      }
      return held;
    },
  );
  return { result, postId };
}

/**
 * Chat messages one after the other between random pairs (the same pairs every run); message i's sender is a device
 * on server i modulo their number, its recipient on either.
 */
export async function chatSeries(deployment: Deployment, devices: SimDevice[]): Promise<ChangeResult> {
  const random = seededRandom(7);
  const userOf = usersOf(deployment, devices);
  const servers = deployment.servers.length;
  const times: Held[] = [];
  return measured(
    deployment,
    devices,
    () => times.length,
    async () => {
      const series = performance.now();
      for (let i = 0; i < MESSAGES && performance.now() - series < CHAT_MAX_MS; i += 1) {
        const from = devices[Math.floor(random() * Math.floor(devices.length / servers)) * servers + (i % servers)];
        let to = from;
        while (to === from) to = devices[Math.floor(random() * devices.length)];
        const message = newMessageDoc(userOf.get(from)!, userOf.get(to)!, `Can you cover the late shift? (${i})`);
        times.push(...(await pushAndHold([to], from, 'messages', message, `messages/${message.id}`)));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return times;
    },
  );
}

/** A burst of reactions to a post from different users' devices, spread over BURST_MS. */
async function reactionBurst(deployment: Deployment, devices: SimDevice[], postId: string): Promise<ChangeResult> {
  const userOf = usersOf(deployment, devices);
  return measured(
    deployment,
    devices,
    () => REACTIONS,
    async () => {
      const reactors = devices.slice(1, 1 + REACTIONS);
      const writes = reactors.map(async (reactor, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i * BURST_MS) / REACTIONS));
        const reaction = newReactionDoc(postId, userOf.get(reactor)!, 'like');
        return pushAndHold(devices, reactor, 'reactions', reaction, reactionKey(postId, userOf.get(reactor)!));
      });
      return (await Promise.all(writes)).flat();
    },
  );
}

async function commentOn(deployment: Deployment, devices: SimDevice[], postId: string): Promise<ChangeResult> {
  const writer = devices[2];
  const userId = usersOf(deployment, devices).get(writer)!;
  return measured(
    deployment,
    devices,
    () => 1,
    async () => {
      const doc = newCommentDoc(postId, userId, 'All clear in Oak House');
      return pushAndHold(devices, writer, 'comments', doc, `comments/${doc.id}`);
    },
  );
}

async function scenarios(deployment: Deployment, devices: SimDevice[]): Promise<Results> {
  const { result: urgent, postId } = await urgentPosts(deployment, devices);
  const chat = await chatSeries(deployment, devices);
  const reactions = await reactionBurst(deployment, devices, postId);
  const comment = await commentOn(deployment, devices, postId);
  return { urgent, chat, reactions, comment };
}

/** A change's line: its times, what the servers (and the database) spent, and whether the reader kept up. */
function printChange(label: string, name: string, r: ChangeResult): void {
  const database = r.databaseCpuPerChange === null ? '' : `, PostgreSQL ${round(r.databaseCpuPerChange)} ms`;
  const across =
    r.acrossTimes.length === 0
      ? ''
      : ` (through the other server: p50 ${round(percentile(r.acrossTimes, 50))} ms, ` +
        `p99 ${round(percentile(r.acrossTimes, 99))} ms)`;
  console.log(
    `  ${label} ${name}: p50 ${round(percentile(r.times, 50))} ms, p99 ${round(percentile(r.times, 99))} ms, ` +
      `max ${round(r.times[r.times.length - 1])} ms${across}; server CPU ${round(r.cpuPerChange)} ms per change${database}; ` +
      `${round(r.bytesPerDevice)} B per device per change; reader CPU ${round(r.reader.cpu, 2)} cores, ` +
      `loop delay p99 ${round(r.reader.loopP99)} ms; machine ${round(r.machineCores, 2)} cores busy; ` +
      `${r.times.filter((t) => !Number.isFinite(t)).length} not held within ${HOLD_TIMEOUT_MS / 1000} s`,
  );
}

/**
 * Connects devices up to each size in turn, spread over the deployment's servers, and runs `run` at each; prints
 * every change's line. The devices are closed at the end; the servers are the caller's.
 */
export async function atEachSize<R extends Partial<Results>>(
  label: string,
  deployment: Deployment,
  sizes: readonly number[],
  run: (devices: SimDevice[]) => Promise<R>,
): Promise<Map<number, R>> {
  const devices: SimDevice[] = [];
  const results = new Map<number, R>();
  try {
    for (const size of sizes) {
      const started = performance.now();
      await connectDevices(deployment.servers, devices, size, (user, i) => ({
        collections: COLLECTIONS,
        keysOf: changeKeys,
        deviceId: `bench-device-${i}`,
      }));
      console.log(`${label}: ${size} devices connected in ${round((performance.now() - started) / 1000)} s`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const result = await run(devices);
      results.set(size, result);
      for (const [name, r] of Object.entries(result)) if (r) printChange(`${label} ${size}`, name, r);
      const errors = devices.reduce((sum, d) => sum + d.errors, 0);
      if (errors > 0) console.log(`  ${label} ${size}: ${errors} failed calls (retried)`);
    }
  } finally {
    devices.forEach((d) => d.close());
  }
  return results;
}

async function runMode(mode: SyncMode): Promise<Map<number, Results>> {
  const server = await startServerProcess(Math.max(...SIZES), mode);
  try {
    const deployment = { servers: [server] };
    return await atEachSize(mode, deployment, SIZES, (devices) => scenarios(deployment, devices));
  } finally {
    await server.stop();
  }
}

export const ms = (value: number) =>
  Number.isFinite(value) ? `${round(value)} ms` : `not held in ${HOLD_TIMEOUT_MS / 1000} s`;

function figures(baseline: Map<number, Results>, delivery: Map<number, Results>): void {
  for (const size of SIZES) {
    const b = baseline.get(size)!;
    const d = delivery.get(size)!;
    const timed = (name: string, pick: (r: Results) => ChangeResult, target?: number) => {
      const [p99, base99] = [percentile(pick(d).times, 99), percentile(pick(b).times, 99)];
      const times = pick(d).times;
      return {
        figure: `${name} (${size} devices connected), p99 from the push`,
        target: target === undefined ? '-' : `< ${target} ms`,
        measured: `${ms(p99)} (p50 ${ms(percentile(times, 50))}, max ${ms(times[times.length - 1])})`,
        baseline: `announce and pull: ${ms(base99)}`,
        ratio: String(round(p99 / base99, 3)),
        pass: target === undefined ? null : p99 < target,
      };
    };
    const cpu = (name: string, pick: (r: Results) => ChangeResult) => ({
      figure: `Server CPU per ${name} delivered to ${size} devices`,
      target: `< ${TARGETS.cpuPerChange} ms`,
      measured: `${ms(pick(d).cpuPerChange)} (${round(pick(d).bytesPerDevice)} B per device)`,
      baseline: `announce and pull: ${ms(pick(b).cpuPerChange)} (${round(pick(b).bytesPerDevice)} B per device)`,
      ratio: String(round(pick(d).cpuPerChange / Math.max(1, pick(b).cpuPerChange), 3)),
      pass: pick(d).cpuPerChange < TARGETS.cpuPerChange,
    });
    const rows = [
      timed('Urgent post (5 in turn) held by every device', (r) => r.urgent, TARGETS.urgentP99),
      timed('Chat message held by its recipient, 100 in turn', (r) => r.chat, TARGETS.chatP99),
      timed('Reaction (100 in 10 s) held by every device on the post', (r) => r.reactions),
      timed('Comment held by every device', (r) => r.comment),
      cpu('urgent post', (r) => r.urgent),
      cpu('reaction of a burst', (r) => r.reactions),
      cpu('comment', (r) => r.comment),
      {
        figure: `Server CPU per chat message (${size} devices connected)`,
        target: '-',
        measured: `${ms(d.chat.cpuPerChange)} (${round(d.chat.bytesPerDevice, 2)} B per device)`,
        baseline: `announce and pull: ${ms(b.chat.cpuPerChange)}`,
        ratio: String(round(d.chat.cpuPerChange / Math.max(0.1, b.chat.cpuPerChange), 3)),
        pass: null,
      },
    ];
    printFigures(rows);
  }
}

async function main(): Promise<void> {
  printMachine();
  const started = performance.now();
  // BENCH_BASELINE=0 measures delivery alone (its lines, no table), for trying a change.
  if (process.env.BENCH_BASELINE === '0') {
    await runModeApart<Map<number, Results>>(import.meta.filename, 'delivery');
    return;
  }
  const baseline = await runModeApart<Map<number, Results>>(import.meta.filename, 'announce');
  const delivery = await runModeApart<Map<number, Results>>(import.meta.filename, 'delivery');
  figures(baseline, delivery);
  console.log(`delivery bench: ${round((performance.now() - started) / 1000)} s`);
}

// Run as a script only: bench/two-servers.ts imports the measuring functions above.
if (process.argv[1] === import.meta.filename) benchEntry(SYNC_MODES, runMode, main);
