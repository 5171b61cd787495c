/**
 * bench/RESULTS.md as data: which benches were measured when, and their rows. A run of every bench writes the whole
 * table; a run of some (`npm run bench -- delivery --write`) replaces only their rows and their line in the list of
 * runs, so one bench can be measured again on a quiet machine without the others. Text after the table is kept.
 */
import type { BenchFigure } from './bench-report';

export interface ResultRow extends BenchFigure {
  /** The bench script's name without its extension, e.g. `delivery`. */
  bench: string;
}

export interface ResultsFile {
  /** The machine line: cores, CPU and Node. */
  machine: string;
  /** One line per run: the benches it measured, when, and the load. */
  runs: { benches: string[]; when: string }[];
  rows: ResultRow[];
  /** Everything after the table, as it was. */
  after: string;
}

const TITLE = '# Benchmark results';
const RUNS_INTRO = 'When each bench was measured:';
const COLUMNS = ['Bench', 'Figure', 'Target', 'Measured', 'Baseline', 'Ratio', 'Result'];

const cell = (text: string) => text.replace(/\|/g, '\\|');
const uncell = (text: string) => text.trim().replace(/\\\|/g, '|');
const verdictOf = (pass: boolean | null) => (pass === null ? '-' : pass ? 'PASS' : 'MISS');
const passOf = (text: string) => (text === 'PASS' ? true : text === 'MISS' ? false : null);

/** Reads a results file written by toMarkdown; anything it cannot read is left out. */
export function parseResults(text: string): ResultsFile {
  const lines = text.split('\n');
  const tableStart = lines.findIndex((line) => line.startsWith('| Bench'));
  const head = tableStart < 0 ? lines : lines.slice(0, tableStart);
  const machine = head.find((line) => line.startsWith('Machine: '))?.slice('Machine: '.length) ?? '';
  const runs = head
    .filter((line) => line.startsWith('- '))
    .map((line) => /^- (.+?): (.+)$/.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => ({ benches: match[1].split(', '), when: match[2] }));
  if (tableStart < 0) return { machine, runs, rows: [], after: '' };
  let end = tableStart;
  while (end < lines.length && lines[end].startsWith('|')) end += 1;
  const rows = lines
    .slice(tableStart + 2, end)
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map(uncell),
    )
    .filter((cells) => cells.length === COLUMNS.length)
    .map(([bench, figure, target, measured, baseline, ratio, result]) => ({
      ...{ bench, figure, target, measured, baseline, ratio },
      pass: passOf(result),
    }));
  return { machine, runs, rows, after: lines.slice(end).join('\n').trim() };
}

/**
 * The file after a run of `benches`: their rows and run line replace the old ones (all of them when `whole`), the
 * other benches' stay, and the rows keep the order of the benches' names.
 */
export function mergeRun(
  old: ResultsFile,
  run: { benches: string[]; when: string; machine: string; rows: ResultRow[]; whole: boolean },
): ResultsFile {
  const measured = new Set(run.benches);
  const keep = (bench: string) => !run.whole && !measured.has(bench);
  const rows = [...old.rows.filter((r) => keep(r.bench)), ...run.rows];
  const order = [...new Set(rows.map((r) => r.bench))].sort();
  rows.sort((a, b) => order.indexOf(a.bench) - order.indexOf(b.bench));
  const runs = old.runs.map((r) => ({ ...r, benches: r.benches.filter(keep) })).filter((r) => r.benches.length > 0);
  return { machine: run.machine, runs: [...runs, { benches: run.benches, when: run.when }], rows, after: old.after };
}

export function toMarkdown(file: ResultsFile): string {
  return [
    TITLE,
    '',
    'Written by `npm run bench` (bench/run-all.ts); `npm run bench -- <name> --write` measures some benches again and',
    "replaces their rows. Each bench prints its own details; figures move with the machine's load.",
    '',
    `Machine: ${file.machine}`,
    '',
    RUNS_INTRO,
    '',
    ...file.runs.map((r) => `- ${r.benches.join(', ')}: ${r.when}`),
    '',
    `| ${COLUMNS.join(' | ')} |`,
    `| ${COLUMNS.map(() => '---').join(' | ')} |`,
    ...file.rows.map((r) =>
      [r.bench, r.figure, r.target, r.measured, r.baseline, r.ratio, verdictOf(r.pass)]
        .map((text) => ` ${cell(text)} `)
        .join('|')
        .replace(/^/, '|')
        .concat('|'),
    ),
    '',
    ...(file.after ? [file.after, ''] : []),
  ].join('\n');
}
