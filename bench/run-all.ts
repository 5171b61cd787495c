/**
 * `npm run bench`: runs every bench script in turn, each in its own process, shows its output, collects the
 * `BENCH {json}` lines it prints and writes them as a table to bench/RESULTS.md. Not part of `npm test`.
 *
 * Run: node --import tsx bench/run-all.ts [name ...]   (names pick some scripts, e.g. `posts-api`; such a run
 * prints its table without writing RESULTS.md)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { format, resolveConfig } from 'prettier';
import { BENCH_PREFIX, machine, verdict, type BenchFigure } from './bench-report';

const BENCH_DIR = import.meta.dirname;
/** Files here that are not benches (nor are the tests, `*.test.ts`). */
const HELPERS = new Set([
  'run-all.ts',
  'bench-report.ts',
  'seed.ts',
  'sim-device.ts',
  'sim-server.ts',
  'load-writer.ts',
]);
/** A bench that has not finished by then is stopped and reported as failed. */
const TIMEOUT_MS = 10 * 60_000;

interface Row extends BenchFigure {
  script: string;
}

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

const cell = (text: string) => text.replace(/\|/g, '\\|');

function toMarkdown(rows: Row[], loadAverage: string): string {
  const m = machine();
  const lines = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (bench/run-all.ts) on ${m.date}: ${m.cores} cores (${m.cpu}), Node ${m.node},`,
    `${loadAverage}. Each bench prints its own details; figures move with the machine's load.`,
    '',
    '| Figure | Target | Measured | Baseline | Ratio | Result |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${cell(r.figure)} | ${cell(r.target)} | ${cell(r.measured)} | ${cell(r.baseline)} | ${cell(r.ratio)} | ` +
        `${verdict(r.pass)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const scripts = fs
    .readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !HELPERS.has(file))
    .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
    .sort();
  const loadBefore = os.loadavg()[0];
  const rows: Row[] = [];
  for (const script of scripts) {
    console.log(`\n=== ${script} ===`);
    const { figures, code, seconds } = await runBench(script);
    console.log(`=== ${script}: exit ${code}, ${seconds.toFixed(0)} s ===`);
    rows.push(...figures.map((figure) => ({ ...figure, script })));
    if (code !== 0 || figures.length === 0) {
      rows.push({
        script,
        figure: `${script} did not finish`,
        target: '-',
        measured: `exit code ${code}`,
        baseline: '-',
        ratio: '-',
        pass: false,
      });
    }
  }
  const loadAverage = `load average ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`;
  const file = path.join(BENCH_DIR, 'RESULTS.md');
  if (only.length === 0) {
    // Formatted as the repository's Prettier check expects, so the committed table stays clean.
    const options = { ...(await resolveConfig(file)), filepath: file };
    fs.writeFileSync(file, await format(toMarkdown(rows, loadAverage), options));
    console.log(`\nWrote ${path.relative(process.cwd(), file)}:`);
  } else {
    console.log(`\nA filtered run leaves ${path.relative(process.cwd(), file)} as it was:`);
  }
  for (const r of rows) console.log(`  ${verdict(r.pass).padEnd(4)}  ${r.figure}: ${r.measured} (target ${r.target})`);
  // A MISS is a finding, reported in the table; only a bench that could not run fails the command.
  process.exit(rows.some((r) => r.figure.endsWith('did not finish')) ? 1 : 0);
}

void main();
