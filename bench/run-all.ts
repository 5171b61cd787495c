/**
 * `npm run bench`: runs every bench script in turn, each in its own process, shows its output, collects the
 * `BENCH {json}` lines it prints and writes them as a table to bench/RESULTS.md (bench/results-file.ts). Not part of
 * `npm test`.
 *
 * Run: node --import tsx bench/run-all.ts [name ...] [--write]   (names pick some scripts, e.g. `posts-api`; such a
 * run prints its table, and with --write replaces those benches' rows in RESULTS.md, keeping the others')
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { format, resolveConfig } from 'prettier';
import { BENCH_PREFIX, machine, verdict, type BenchFigure } from './bench-report';
import { mergeRun, parseResults, toMarkdown, type ResultRow } from './results-file';

const BENCH_DIR = import.meta.dirname;
/** Files here that are not benches (nor are the tests, `*.test.ts`). */
const HELPERS = new Set([
  'run-all.ts',
  'bench-report.ts',
  'seed.ts',
  'sim-device.ts',
  'sim-server.ts',
  'load-writer.ts',
  'bench-postgres.ts',
  'results-file.ts',
]);
/** A bench that has not finished by then is stopped and reported as failed (active load's three modes take longest). */
const TIMEOUT_MS = 35 * 60_000;

/** Runs one bench script, echoing its output, and returns the figures it printed and how it ended. */
function runBench(script: string): Promise<{ figures: BenchFigure[]; code: number | null; seconds: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, script)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const figures: BenchFigure[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    console.log(line);
    if (line.startsWith(BENCH_PREFIX)) figures.push(JSON.parse(line.slice(BENCH_PREFIX.length)) as BenchFigure);
  });
  const timer = setTimeout(() => child.kill('SIGTERM'), TIMEOUT_MS);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ figures, code, seconds: (Date.now() - started) / 1000 });
    });
  });
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const write = args.includes('--write');
  const only = args.filter((arg) => arg !== '--write');
  const scripts = fs
    .readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !HELPERS.has(file))
    .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
    .sort();
  const loadBefore = os.loadavg()[0];
  const started = machine().date;
  const rows: ResultRow[] = [];
  for (const script of scripts) {
    const bench = script.replace(/\.ts$/, '');
    console.log(`\n=== ${script} ===`);
    const { figures, code, seconds } = await runBench(script);
    console.log(`=== ${script}: exit ${code}, ${seconds.toFixed(0)} s ===`);
    rows.push(...figures.map((figure) => ({ ...figure, bench })));
    if (code !== 0 || figures.length === 0) {
      rows.push({
        bench,
        figure: `${script} did not finish`,
        target: '-',
        measured: `exit code ${code}`,
        baseline: '-',
        ratio: '-',
        pass: false,
      });
    }
  }
  const file = path.join(BENCH_DIR, 'RESULTS.md');
  if (only.length === 0 || write) {
    const m = machine();
    const old = parseResults(fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
    const when =
      `${started.slice(0, 16)}Z, load average ${loadBefore.toFixed(1)} at the start, ` +
      `${os.loadavg()[0].toFixed(1)} at the end`;
    const benches = scripts.map((script) => script.replace(/\.ts$/, ''));
    const merged = mergeRun(old, {
      ...{ benches, when, rows, whole: only.length === 0 },
      machine: `${m.cores} cores (${m.cpu}), Node ${m.node}`,
    });
    // Formatted as the repository's Prettier check expects, so the committed table stays clean.
    const options = { ...(await resolveConfig(file)), filepath: file };
    fs.writeFileSync(file, await format(toMarkdown(merged), options));
    console.log(`\nWrote ${path.relative(process.cwd(), file)}:`);
  } else {
    console.log(`\nA filtered run without --write leaves ${path.relative(process.cwd(), file)} as it was:`);
  }
  for (const r of rows) console.log(`  ${verdict(r.pass).padEnd(4)}  ${r.figure}: ${r.measured} (target ${r.target})`);
  // A MISS is a finding, reported in the table; only a bench that could not run fails the command.
  process.exit(rows.some((r) => r.figure.endsWith('did not finish')) ? 1 : 0);
}

void main();
