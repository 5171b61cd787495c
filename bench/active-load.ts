/**
 * Figures: 5,000 devices connected (BENCH_DEVICES overrides) and a realistic share of them active for 60 s: p99 of
 * each call (push and pull per collection; target < 100 ms), p99 of delivery (write to held), server CPU (%) and
 * memory (RSS). Three modes in one run, a fresh server each: `announce` (SYNC_DELIVERY=announce), the baseline of
 * `delivery` (one server on SQLite), which is in turn the baseline of `postgres-two`: two delivery servers sharing one
 * PostgreSQL database in a throwaway cluster (bench/bench-postgres.ts), devices and writers spread over both. There
 * server CPU is both servers' sum, RSS the larger server's, and PostgreSQL's own CPU a row apart; without PostgreSQL
 * the mode is skipped with a line saying why. Devices apply docs/sync.md's protocol (bench/sim-device.ts).
 *
 * Three processes per mode (postgres-two adds a server and PostgreSQL's): the server; this file's own, started afresh
 * for the mode, holding every device's stream; and the writers (bench/load-writer.ts, which describes the load), so a
 * push's time is the server's answer, not the devices' event-loop delay. Pulls are timed there. Delivery is measured
 * for every message (its recipient) and, for broadcast changes, on one device in ten (each would need 5,000 held
 * times otherwise). Each process's CPU use and event-loop delay is printed. On a two-core machine postgres-two's
 * processes share the cores that delivery's fewer had: its figures show where the machine runs out.
 * BENCH_MODES picks modes (comma-separated, e.g. `delivery,postgres-two`); BENCH_BASELINE=0 runs delivery alone. A
 * mode's figures need its baseline in the same run.
 * Run: node --import tsx bench/active-load.ts
 */
import { spawn } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { SyncCollection } from '../schema/sync';
import { postgresMissing, startPostgresPair } from './bench-postgres';
import { percentile, printFigures, printMachine, round, type BenchFigure } from './bench-report';
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
} from './sim-server';

const DEVICES = Number(process.env.BENCH_DEVICES ?? 5000);
const MODES = [...SYNC_MODES, 'postgres-two'] as const;
type Mode = (typeof MODES)[number];
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
  /** The servers' CPU, summed over them (one core = 100 %). */
  cpuPercent: number;
  /** The largest RSS of any one server. */
  rssMaxMb: number;
  /** PostgreSQL's processes' CPU, where the mode runs on it. */
  databaseCpuPercent?: number;
  conflicts: number;
  retried: number;
  failed: number;
  writes: Map<WriteKind, number>;
  reader: { cpu: number; loopP99: number };
  writer: { cpu: number; loopP99: number };
}

/** A mode's servers and, on PostgreSQL, its processes' CPU so far (ms). */
interface Deployed {
  servers: ServerProcess[];
  databaseCpuMs?: () => number;
  stop: () => Promise<void>;
}

async function deploy(mode: Mode): Promise<Deployed> {
  if (mode === 'postgres-two') return startPostgresPair(DEVICES);
  const server = await startServerProcess(DEVICES, mode);
  return { servers: [server], stop: server.stop };
}

async function runMode(mode: Mode): Promise<Outcome> {
  const deployed = await deploy(mode);
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
    await connectDevices(deployed.servers, devices, DEVICES, (_, i) => ({
      collections: COLLECTIONS,
      deviceId: `load-device-${i}`,
      keysOf: sampled(i) ? changeKeys : messageKeys,
      onCall,
    }));
    console.log(`${mode}: ${DEVICES} devices connected in ${round((performance.now() - connecting) / 1000)} s`);
    pulls.clear();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return await activeMinute(deployed, devices, pulls, sampled);
  } finally {
    devices.forEach((d) => d.close());
    await deployed.stop();
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
  { servers, databaseCpuMs }: Deployed,
  devices: SimDevice[],
  pulls: Map<string, number[]>,
  sampled: (index: number) => boolean,
): Promise<Outcome> {
  const sample = devices.filter((_, i) => sampled(i));
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const serversCpuMs = () => servers.reduce((sum, s) => sum + cpuMs(s.pid), 0);
  const cpuBefore = serversCpuMs();
  const databaseBefore = databaseCpuMs?.() ?? 0;
  const readerBefore = process.cpuUsage();
  const rssMax = servers.map((s) => rssBytes(s.pid));
  const rssTimer = setInterval(
    () => servers.forEach((s, i) => (rssMax[i] = Math.max(rssMax[i], rssBytes(s.pid)))),
    1000,
  );
  const started = performance.now();
  loop.enable();
  const written = await runWriters({
    bases: servers.map((s) => s.base),
    users: servers[0].users.slice(0, devices.length),
    posts: servers[0].posts,
  });
  const elapsed = performance.now() - started;
  const percentOf = (cpu: number) => (cpu / elapsed) * 100;
  const cpuPercent = percentOf(serversCpuMs() - cpuBefore);
  const databaseCpuPercent = databaseCpuMs && percentOf(databaseCpuMs() - databaseBefore);
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
    rssMaxMb: Math.max(...rssMax) / 2 ** 20,
    databaseCpuPercent,
    conflicts: written.conflicts,
    retried: written.retried,
    failed: written.failed,
    writes: new Map(written.writes),
    reader: { cpu: (reader.user + reader.system) / 1000 / elapsed, loopP99: loop.percentile(99) / 1e6 },
    writer: { cpu: written.cpu, loopP99: written.loopP99 },
  };
}

function describe(mode: Mode, o: Outcome): void {
  const servers = mode === 'postgres-two' ? "both servers' CPU (their sum)" : 'server CPU';
  const database =
    o.databaseCpuPercent === undefined ? '' : `, PostgreSQL's processes' CPU ${round(o.databaseCpuPercent)} %`;
  console.log(
    `${mode}: writes ${JSON.stringify(Object.fromEntries(o.writes))}, ${o.conflicts} refused rows, ${o.retried} pushes sent again, ${o.failed} never sent, ` +
      `${servers} ${round(o.cpuPercent)} %${database}, RSS max ${round(o.rssMaxMb)} MB; devices' process CPU ` +
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

/** How a mode's rows are named against its baseline's. */
interface Naming {
  /** Before the calls' and delivery's figures: none for delivery's, whose names older results carry. */
  prefix: string;
  /** The baseline as the rows name it. */
  baseline: string;
  cpu: string;
  memory: string;
}

/** A mode's rows against its baseline's: each call's p99 (with its target), delivery, server CPU and memory. */
function comparedRows(measured: Outcome, baseline: Outcome, naming: Naming): BenchFigure[] {
  const p99 = (times: number[] | undefined) =>
    percentile(
      [...(times ?? [])].sort((a, b) => a - b),
      99,
    );
  const calls = [...new Set([...baseline.calls.keys(), ...measured.calls.keys()])].sort();
  const rows = calls.map((call) => {
    const [value, base] = [p99(measured.calls.get(call)), p99(baseline.calls.get(call))];
    const count = measured.calls.get(call)?.length ?? 0;
    const baseCount = baseline.calls.get(call)?.length ?? 0;
    return {
      figure: `${naming.prefix}${call}, p99, ${DEVICES} devices connected and active (60 s)`,
      target: `< ${TARGET_CALL_P99} ms`,
      measured: count === 0 ? 'no calls' : `${round(value)} ms (${count} calls)`,
      baseline: `${naming.baseline}: ${baseCount === 0 ? 'no calls' : `${round(base)} ms (${baseCount} calls)`}`,
      ratio: count === 0 || baseCount === 0 ? '-' : String(round(value / base, 3)),
      pass: count === 0 ? null : value < TARGET_CALL_P99,
    };
  });
  const against = (figure: string, show: (o: Outcome) => string, value: (o: Outcome) => number) => ({
    figure,
    target: '-',
    measured: show(measured),
    baseline: `${naming.baseline}: ${show(baseline)}`,
    ratio: String(round(value(measured) / value(baseline), 3)),
    pass: null,
  });
  rows.push(
    against(
      `${naming.prefix}Delivery under load, write to held, p99 (${DEVICES} devices)`,
      (o) => `${round(percentile(o.delivery, 99))} ms (${o.missing} not held)`,
      (o) => percentile(o.delivery, 99),
    ),
    against(
      naming.cpu,
      (o) => `${round(o.cpuPercent)} %`,
      (o) => o.cpuPercent,
    ),
    against(
      naming.memory,
      (o) => `${round(o.rssMaxMb)} MB`,
      (o) => o.rssMaxMb,
    ),
  );
  return rows;
}

/** PostgreSQL's CPU, and with both servers', beside the SQLite server's, which holds its database's work. */
function databaseRow(postgres: Outcome, sqlite: Outcome): BenchFigure {
  const database = postgres.databaseCpuPercent ?? NaN;
  const whole = postgres.cpuPercent + database;
  return {
    figure: `postgres-two: PostgreSQL's processes' CPU under load (${DEVICES} devices, one core = 100 %)`,
    target: '-',
    measured: `${round(database)} %; with both servers ${round(whole)} %`,
    baseline: `delivery's server, SQLite inside: ${round(sqlite.cpuPercent)} %`,
    ratio: String(round(whole / sqlite.cpuPercent, 3)),
    pass: null,
  };
}

function figures(outcomes: ReadonlyMap<Mode, Outcome>): void {
  const [announce, delivery, postgres] = MODES.map((mode) => outcomes.get(mode));
  const rows: BenchFigure[] = [];
  if (announce && delivery)
    rows.push(
      ...comparedRows(delivery, announce, {
        prefix: '',
        baseline: 'announce and pull',
        cpu: `Server CPU under load (${DEVICES} devices, one core = 100 %)`,
        memory: `Server memory under load, RSS max (${DEVICES} devices)`,
      }),
    );
  if (delivery && postgres)
    rows.push(
      ...comparedRows(postgres, delivery, {
        prefix: 'postgres-two: ',
        baseline: 'delivery on SQLite',
        cpu: `postgres-two: servers' CPU under load (their sum; ${DEVICES} devices, one core = 100 %)`,
        memory: `postgres-two: server memory under load, RSS max of either server (${DEVICES} devices)`,
      }),
      databaseRow(postgres, delivery),
    );
  if (rows.length > 0) printFigures(rows);
  else
    console.log(
      'No figures: a mode is compared with its baseline run beside it (delivery with announce, postgres-two with delivery)',
    );
}

/** BENCH_MODES (comma-separated) when set; else delivery alone with BENCH_BASELINE=0, for trying a change; else all. */
function chosenModes(): Mode[] {
  const names = process.env.BENCH_MODES?.split(',').map((name) => name.trim());
  if (names === undefined) return process.env.BENCH_BASELINE === '0' ? ['delivery'] : [...MODES];
  const known = new Set<string>(MODES);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) throw new Error(`BENCH_MODES names ${unknown.join(', ')}: the modes are ${MODES.join(', ')}`);
  return MODES.filter((mode) => names.includes(mode));
}

async function main(): Promise<void> {
  printMachine();
  const started = performance.now();
  const outcomes = new Map<Mode, Outcome>();
  for (const mode of chosenModes()) {
    const missing = mode === 'postgres-two' ? postgresMissing() : null;
    if (missing !== null) {
      console.log(`postgres-two skipped: ${missing}`);
      continue;
    }
    const outcome = await runModeApart<Outcome>(import.meta.filename, mode);
    describe(mode, outcome);
    outcomes.set(mode, outcome);
  }
  figures(outcomes);
  console.log(`active-load bench: ${round((performance.now() - started) / 1000)} s`);
}

benchEntry(MODES, runMode, main);
