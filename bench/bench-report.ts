import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CHROMIUM } from '../scripts/chromium';

/** One figure of a bench, printed as a `BENCH {json}` line that `bench/run-all.ts` collects. */
export interface BenchFigure {
  figure: string;
  target: string;
  measured: string;
  baseline: string;
  /** measured / baseline, or '-' when they are not comparable. */
  ratio: string;
  /** Against the target; null for a figure printed for information, without a target. */
  pass: boolean | null;
}

export const BENCH_PREFIX = 'BENCH ';

/** The machine and moment a figure was taken on: figures mean little without them. */
export function machine(): { cores: number; cpu: string; node: string; date: string } {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    node: process.version,
    date: new Date().toISOString(),
  };
}

export function printMachine(): void {
  const m = machine();
  console.log(`Machine: ${m.cores} cores (${m.cpu}), Node ${m.node}, ${m.date}`);
}

export const verdict = (pass: boolean | null) => (pass === null ? '-' : pass ? 'PASS' : 'MISS');

/** Prints the machine-readable line; run-all reads every such line of a bench's output. */
export function printFigure(figure: BenchFigure): void {
  console.log(BENCH_PREFIX + JSON.stringify(figure));
}

/** Each figure as a line to read, then as the line run-all collects. */
export function printFigures(figures: BenchFigure[]): void {
  for (const f of figures) {
    console.log(`${f.figure}: ${f.measured} (target ${f.target}) ${verdict(f.pass)}; baseline ${f.baseline}`);
    printFigure(f);
  }
}

/** The p-th percentile (0 to 100) of numbers sorted ascending. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** A fresh temporary folder, removed when the process ends however it ends. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  process.once('exit', remove);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      remove();
      process.exit(130);
    });
  }
  return dir;
}

/** The Chromium the benches drive (scripts/chromium.ts) and the flags every bench launches it with (no sandbox, no background traffic). */
export const CHROMIUM_PATH = CHROMIUM?.path;
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
