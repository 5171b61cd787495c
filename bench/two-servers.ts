/**
 * Figures: the delivery bench's urgent post (five in turn, each held by every device p99 < 1,000 ms from its push's
 * start), chat message (held by its recipient p99 < 25 ms) and server CPU per urgent post (< 300 ms), measured as
 * bench/delivery.ts measures them, at 1,000, 2,000 and 5,000 devices on the live stream (BENCH_DEVICES overrides: one
 * count or several, comma-separated), in two modes of one run, each in fresh processes:
 * - `sqlite-one`: one server on its SQLite file (delivery.ts's delivery mode);
 * - `postgres-two`: two servers on one PostgreSQL database (a throwaway cluster), each device on one of them (half
 *   each), the changes written through each in turn, so every change reaches half the devices through the other
 *   server's LISTEN/NOTIFY fan-out (decision 158).
 * Both serve the same rows: bench/sim-server.ts seeds SQLite (bench/seed.ts, a ready session per user) and, for
 * PostgreSQL, copies that database with `npm run migrate-to-postgres` (decision 154).
 * Server CPU is the sum of the mode's server processes. PostgreSQL's own processes are counted apart, from /proc
 * (bench/bench-postgres.ts, which deploys the pair): the postmaster's CPU with that of its children it has waited for, plus each live child's (backends, WAL writer,
 * checkpointer, autovacuum). SQLite runs inside the server, so sqlite-one's server CPU holds its database's work.
 * Where a mode saturates: the smallest device count at which it misses one of the three targets, or "not within N".
 * Every postgres-two figure's baseline is sqlite-one's of the same run.
 *
 * The machine has two cores. sqlite-one keeps two processes busy (its server, the devices); postgres-two keeps four
 * (two servers, PostgreSQL, the devices) on the same two cores, so its figures show where this machine runs out, not
 * what two servers on machines of their own would do. Each change's line prints the machine's busy cores: near 2, the
 * machine was the limit. The throwaway cluster runs with fsync off (server/test/postgres.ts).
 * Run: node --import tsx bench/two-servers.ts
 */
import { performance } from 'node:perf_hooks';
import { postgresMissing, startPostgresPair } from './bench-postgres';
import { type BenchFigure, percentile, printFigures, printMachine, round } from './bench-report';
import {
  atEachSize,
  chatSeries,
  ms,
  TARGETS,
  urgentPosts,
  type ChangeResult,
  type Deployment,
  type Results,
} from './delivery';
import type { SimDevice } from './sim-device';
import { benchEntry, runModeApart, startServerProcess } from './sim-server';

const SIZES = (process.env.BENCH_DEVICES?.split(',').map(Number) ?? [1000, 2000, 5000]).sort((a, b) => a - b);
// Two devices at least: the urgent posts' writers, one on each server.
if (!SIZES.every((size) => Number.isInteger(size) && size >= 2))
  throw new Error(
    `BENCH_DEVICES must be device counts of 2 or more, comma-separated (it is ${process.env.BENCH_DEVICES})`,
  );
const MODES = ['sqlite-one', 'postgres-two'] as const;
type Mode = (typeof MODES)[number];
type Changes = Pick<Results, 'urgent' | 'chat'>;
type Outcome = Map<number, Changes>;

async function changes(deployment: Deployment, devices: SimDevice[]): Promise<Changes> {
  const { result: urgent } = await urgentPosts(deployment, devices);
  return { urgent, chat: await chatSeries(deployment, devices) };
}

async function sqliteOne(): Promise<Outcome> {
  const server = await startServerProcess(Math.max(...SIZES), 'delivery');
  try {
    const deployment = { servers: [server] };
    return await atEachSize('sqlite-one', deployment, SIZES, (devices) => changes(deployment, devices));
  } finally {
    await server.stop();
  }
}

async function postgresTwo(): Promise<Outcome> {
  const pair = await startPostgresPair(Math.max(...SIZES));
  try {
    return await atEachSize('postgres-two', pair, SIZES, (devices) => changes(pair, devices));
  } finally {
    await pair.stop();
  }
}

const p99 = (r: ChangeResult) => percentile(r.times, 99);

/** A target of delivery.ts's, as each mode is judged against it. */
interface Target {
  name: string;
  limit: string;
  value: (c: Changes) => number;
  threshold: number;
}

const JUDGED: Target[] = [
  {
    name: 'urgent post p99',
    limit: `< ${TARGETS.urgentP99} ms`,
    value: (c) => p99(c.urgent),
    threshold: TARGETS.urgentP99,
  },
  { name: 'chat message p99', limit: `< ${TARGETS.chatP99} ms`, value: (c) => p99(c.chat), threshold: TARGETS.chatP99 },
  {
    name: 'server CPU per urgent post',
    limit: `< ${TARGETS.cpuPerChange} ms`,
    value: (c) => c.urgent.cpuPerChange,
    threshold: TARGETS.cpuPerChange,
  },
];

/** The smallest device count at which a mode missed a target, with what it missed; "not within N" otherwise. */
function saturation(outcome: ReadonlyMap<number, Changes>): string {
  const sizes = [...outcome.keys()].sort((a, b) => a - b);
  for (const size of sizes) {
    const c = outcome.get(size)!;
    const missed = JUDGED.filter((t) => !(t.value(c) < t.threshold));
    if (missed.length > 0)
      return `${size} devices (${missed.map((t) => `${t.name} ${ms(t.value(c))}, target ${t.limit}`).join('; ')})`;
  }
  return `not within ${sizes[sizes.length - 1]} devices`;
}

const ratio = (measured: number, baseline: number) => String(round(measured / Math.max(0.1, baseline), 3));

/** One size's rows: each mode's urgent post, chat message and server CPU, and PostgreSQL's CPU beside them. */
function rowsAt(size: number, sqlite: Changes, postgres: Changes): BenchFigure[] {
  const timed = (mode: Mode, c: Changes, name: string, pick: (c: Changes) => ChangeResult, target: number) => {
    const times = pick(c).times;
    const base = mode === 'postgres-two' ? p99(pick(sqlite)) : null;
    const across = pick(c).acrossTimes;
    const other = across.length === 0 ? '' : `; through the other server p99 ${ms(percentile(across, 99))}`;
    return {
      figure: `${mode}: ${name} (${size} devices connected), p99 from the push`,
      target: `< ${target} ms`,
      measured: `${ms(p99(pick(c)))} (p50 ${ms(percentile(times, 50))}, max ${ms(times[times.length - 1])}${other})`,
      baseline: base === null ? '-' : `sqlite-one: ${ms(base)}`,
      ratio: base === null ? '-' : ratio(p99(pick(c)), base),
      pass: p99(pick(c)) < target,
    };
  };
  const cpu = (mode: Mode, c: Changes) => ({
    figure:
      mode === 'sqlite-one'
        ? `sqlite-one: server CPU per urgent post delivered to ${size} devices`
        : `postgres-two: both servers' CPU (their sum) per urgent post delivered to ${size} devices`,
    target: `< ${TARGETS.cpuPerChange} ms`,
    measured: ms(c.urgent.cpuPerChange),
    baseline: mode === 'postgres-two' ? `sqlite-one: ${ms(sqlite.urgent.cpuPerChange)}` : '-',
    ratio: mode === 'postgres-two' ? ratio(c.urgent.cpuPerChange, sqlite.urgent.cpuPerChange) : '-',
    pass: c.urgent.cpuPerChange < TARGETS.cpuPerChange,
  });
  // postgres-two's deployment reads PostgreSQL's CPU, so its changes carry it.
  const database = postgres.urgent.databaseCpuPerChange!;
  const whole = postgres.urgent.cpuPerChange + database;
  return [
    timed('sqlite-one', sqlite, 'urgent post (5 in turn) held by every device', (c) => c.urgent, TARGETS.urgentP99),
    timed('postgres-two', postgres, 'urgent post (5 in turn) held by every device', (c) => c.urgent, TARGETS.urgentP99),
    timed('sqlite-one', sqlite, 'chat message held by its recipient', (c) => c.chat, TARGETS.chatP99),
    timed('postgres-two', postgres, 'chat message held by its recipient', (c) => c.chat, TARGETS.chatP99),
    cpu('sqlite-one', sqlite),
    cpu('postgres-two', postgres),
    {
      figure: `postgres-two: PostgreSQL's processes' CPU per urgent post delivered to ${size} devices`,
      target: '-',
      measured: `${ms(database)}; with both servers ${ms(whole)}`,
      baseline: `sqlite-one's server, SQLite inside: ${ms(sqlite.urgent.cpuPerChange)}`,
      ratio: ratio(whole, sqlite.urgent.cpuPerChange),
      pass: null,
    },
  ];
}

function figures(sqlite: Outcome, postgres: Outcome): void {
  const rows = SIZES.flatMap((size) => rowsAt(size, sqlite.get(size)!, postgres.get(size)!));
  const judged = JUDGED.map((t) => `${t.name} ${t.limit}`).join(', ');
  const first = saturation(sqlite);
  rows.push(
    {
      figure: `sqlite-one: first device count missing a target (${judged})`,
      target: '-',
      measured: first,
      baseline: '-',
      ratio: '-',
      pass: null,
    },
    {
      figure: `postgres-two: first device count missing a target (${judged})`,
      target: '-',
      measured: saturation(postgres),
      baseline: `sqlite-one: ${first}`,
      ratio: '-',
      pass: null,
    },
  );
  printFigures(rows);
}

async function main(): Promise<void> {
  printMachine();
  // Without PostgreSQL there is nothing to put beside SQLite: say so rather than print half a table.
  const missing = postgresMissing();
  if (missing !== null) throw new Error(`${missing}: the two-servers bench cannot run`);
  const started = performance.now();
  const sqlite = await runModeApart<Outcome>(import.meta.filename, 'sqlite-one');
  const postgres = await runModeApart<Outcome>(import.meta.filename, 'postgres-two');
  figures(sqlite, postgres);
  console.log(`two-servers bench: ${round((performance.now() - started) / 1000)} s`);
}

benchEntry(MODES, (mode) => (mode === 'sqlite-one' ? sqliteOne() : postgresTwo()), main);
