/**
 * Figures: 5,000 devices connected (BENCH_DEVICES overrides) and a realistic share of them active for 60 s: p99 of
 * each call (push and pull per collection; target < 100 ms), p99 of delivery (write to held), server CPU (%) and
 * memory (RSS). Baseline in the same run: the same load on a server with SYNC_DELIVERY=announce (first), then the
 * server's delivery, a fresh server each. Devices apply docs/sync.md's protocol (bench/sim-device.ts).
 *
 * Three processes per mode: the server; this file's own, started afresh for the mode, holding every device's stream;
 * and the writers (bench/load-writer.ts, which describes the load), so a push's time is the server's answer, not
 * the devices' event-loop delay. Pulls are timed there. Delivery is measured for every message (its recipient) and, for broadcast changes, on one device in ten
 * (each would need 5,000 held times otherwise). Each process's CPU use and event-loop delay is printed.
 * Run: node --import tsx bench/active-load.ts
 */
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { SyncCollection } from '../schema/sync';
import { percentile, printFigures, printMachine, round } from './bench-report';
import type { WriterOutcome, WriterSettings, WriteKind } from './load-writer';
import { changeKeys, waitUntil, type CallTiming, type SimDevice, type WireDoc } from './sim-device';
import {
  benchEntry,
  connectDevices,
  cpuMs,
  rssBytes,
  runModeApart,
  startServerProcess,
  SYNC_MODES,
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
/** One device in this many follows broadcast changes for the delivery figure. */
const SAMPLE_EVERY = 10;
const TARGET_CALL_P99 = 100;
/** How long after the run the bench waits for the last changes to be held. */
const DRAIN_MS = 30_000;

interface Outcome {
  calls: Map<string, number[]>;
  delivery: number[];
  /** Held times expected but not seen by the end of the drain. */
  missing: number;
  cpuPercent: number;
  rssMaxMb: number;
  conflicts: number;
  retried: number;
  failed: number;
  writes: Map<WriteKind, number>;
  reader: { cpu: number; loopP99: number };
  writer: { cpu: number; loopP99: number };
}

async function runMode(mode: SyncMode): Promise<Outcome> {
  const server = await startServerProcess(DEVICES, mode);
  const devices: SimDevice[] = [];
  const pulls = new Map<string, number[]>();
  const onCall = (call: CallTiming) => {
    const key = `${call.kind} ${call.collection}`;
    let list = pulls.get(key);
    if (!list) pulls.set(key, (list = []));
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
    pulls.clear();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return await activeMinute(server, devices, pulls, sampled);
  } finally {
    devices.forEach((d) => d.close());
    await server.stop();
  }
}

/** Runs the writers' process for its minute and answers what it reports. */
function runWriters(settings: WriterSettings): Promise<WriterOutcome> {
  const child = spawn(process.execPath, [...process.execArgv, new URL('./load-writer.ts', import.meta.url).pathname], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (outcome) => resolve(outcome as WriterOutcome));
    child.once('exit', (code) => reject(new Error(`the writers' process stopped (${code}) without an outcome`)));
    child.send(settings);
  });
}

async function activeMinute(
  server: ServerProcess,
  devices: SimDevice[],
  pulls: Map<string, number[]>,
  sampled: (index: number) => boolean,
): Promise<Outcome> {
  const sample = devices.filter((_, i) => sampled(i));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const cpuBefore = cpuMs(server.pid);
  const readerBefore = process.cpuUsage();
  let rssMax = rssBytes(server.pid);
  const rssTimer = setInterval(() => (rssMax = Math.max(rssMax, rssBytes(server.pid))), 1000);
  const started = performance.now();
  loop.enable();
  const written = await runWriters({
    base: server.base,
    users: server.users.slice(0, devices.length),
    posts: server.posts,
  });
  const elapsed = performance.now() - started;
  const cpuPercent = ((cpuMs(server.pid) - cpuBefore) / elapsed) * 100;
  const reader = process.cpuUsage(readerBefore);
  loop.disable();
  clearInterval(rssTimer);
  const targetsOf = (e: WriterOutcome['expected'][number]) =>
    e.to === null ? sample.filter((d) => d !== devices[e.writer]) : [devices[e.to]];
  const expected = written.expected.map((e) => ({ key: e.key, start: e.start, devices: targetsOf(e) }));
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
    calls: new Map([...written.calls, ...pulls]),
    delivery: delivery.sort((a, b) => a - b),
    missing,
    cpuPercent,
    rssMaxMb: rssMax / 2 ** 20,
    conflicts: written.conflicts,
    retried: written.retried,
    failed: written.failed,
    writes: new Map(written.writes),
    reader: { cpu: (reader.user + reader.system) / 1000 / elapsed, loopP99: loop.percentile(99) / 1e6 },
    writer: { cpu: written.cpu, loopP99: written.loopP99 },
  };
}

function describe(mode: SyncMode, o: Outcome): void {
  console.log(
    `${mode}: writes ${JSON.stringify(Object.fromEntries(o.writes))}, ${o.conflicts} refused rows, ${o.retried} pushes sent again, ${o.failed} never sent, ` +
      `server CPU ${round(o.cpuPercent)} %, RSS max ${round(o.rssMaxMb)} MB; devices' process CPU ` +
      `${round(o.reader.cpu, 2)} cores, loop delay p99 ${round(o.reader.loopP99)} ms; writers' process CPU ` +
      `${round(o.writer.cpu, 2)} cores, loop delay p99 ${round(o.writer.loopP99)} ms`,
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
  printFigures(rows);
}

async function main(): Promise<void> {
  printMachine();
  const started = performance.now();
  // BENCH_BASELINE=0 measures delivery alone, for trying a change; the table's figures need the baseline's run.
  if (process.env.BENCH_BASELINE === '0') {
    describe('delivery', await runModeApart<Outcome>(import.meta.filename, 'delivery'));
    return;
  }
  const baseline = await runModeApart<Outcome>(import.meta.filename, 'announce');
  describe('announce', baseline);
  const delivery = await runModeApart<Outcome>(import.meta.filename, 'delivery');
  describe('delivery', delivery);
  figures(baseline, delivery);
  console.log(`active-load bench: ${round((performance.now() - started) / 1000)} s`);
}

benchEntry(SYNC_MODES, runMode, main);
