import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every decision record has one shape and one row in the index (docs/decisions/README.md): the house rule this test keeps. */
const DIR = join('docs', 'decisions');
const FILE_NAME = /^(\d{3})-[a-z0-9]+(?:-[a-z0-9]+)*\.md$/;
const STATUS = /^(?:Accepted|Reverted|Superseded by decision (\d+)|Amended by decision (\d+))$/;
const PARAGRAPHS = ['**Context.**', '**Decision.**', '**Consequences.**'];
const FIGURE = String.raw`\d[\d,]*(?:\.\d+)?`;
const UNIT = String.raw`(?:(?: ?(?:ms|µs|KB|kB|MB|GB)| s)\b|%)`;
/** Phrases that report a run's figures: a percentile, a rate, a comparison, a change, a range, a share, an estimate, a verb of measuring. */
const MEASUREMENTS = [
  String.raw`\bp(?:50|95|99)(?: of)? ${FIGURE}`,
  String.raw`${FIGURE} ?(?:req\/s|µs)`,
  String.raw`${FIGURE}${UNIT} (?:against|instead of) (?:about )?${FIGURE}`,
  String.raw`\bfrom (?:about )?${FIGURE}${UNIT}? to (?:about )?${FIGURE}${UNIT}`,
  String.raw`${FIGURE}(?:–|-| to )${FIGURE}${UNIT}`,
  String.raw`${FIGURE}%`,
  String.raw`\babout ${FIGURE}${UNIT}`,
  String.raw`\b(?:took|cost|costs|counted|timed|measured|sends|wrote) (?:[\w'-]+ ){0,3}?(?:about |at )?${FIGURE}${UNIT}`,
].map((source) => new RegExp(source, 'g'));
/** Words just before a figure that make it a target or a bound, which a record may state. */
const TARGET_WORDS = /\b(?:target|under|over|at most|up to|limit|bound)|</i;

interface IndexRow {
  number: number;
  file: string;
  status: string;
  area: string;
}

interface ShapeInput {
  number: number;
  text: string;
  areas: Set<string>;
  numbers: Set<number>;
}

/** What is wrong with a record's title and Status/Date/Area bullets, as readable lines. */
function headerProblems({ number, text, areas, numbers }: ShapeInput): string[] {
  const lines = text.split('\n');
  const problems: string[] = [];
  const title = /^# (\d+)\. \S.*$/.exec(lines[0] ?? '');
  if (!title) problems.push('the first line is not "# N. Title"');
  else if (Number(title[1]) !== number) problems.push(`the title's number ${title[1]} is not the file's ${number}`);
  const [blank, status, date, area, after] = lines.slice(1, 6);
  if (blank !== '' || after !== '')
    problems.push('the Status/Date/Area bullets are not a block of their own under the title');
  const statusValue = /^- \*\*Status:\*\* (.+)$/.exec(status ?? '')?.[1];
  const statusMatch = STATUS.exec(statusValue ?? '');
  if (!statusMatch)
    problems.push(
      `the status "${statusValue ?? ''}" is not Accepted, Reverted, Superseded by decision N or Amended by decision N`,
    );
  const cited = Number(statusMatch?.[1] ?? statusMatch?.[2] ?? Number.NaN);
  if (!Number.isNaN(cited) && !numbers.has(cited))
    problems.push(`the status names decision ${cited}, which has no record`);
  if (!/^- \*\*Date:\*\* \d{4}-\d{2}-\d{2}$/.test(date ?? ''))
    problems.push('the second bullet is not "- **Date:** YYYY-MM-DD"');
  const areaValue = /^- \*\*Area:\*\* (.+)$/.exec(area ?? '')?.[1];
  if (!areaValue || !areas.has(areaValue)) problems.push(`the area "${areaValue ?? ''}" is not a section of the index`);
  return problems;
}

/** What is wrong with a record's Context, Decision and Consequences paragraphs, as readable lines. */
function paragraphProblems(text: string): string[] {
  const lines = text.split('\n');
  const problems: string[] = [];
  const starts = PARAGRAPHS.map((label) => lines.findIndex((line, index) => index > 5 && line.startsWith(label)));
  PARAGRAPHS.forEach((label, i) => {
    if (starts[i] === -1) problems.push(`no paragraph starts with ${label}`);
    else if (lines.filter((line) => line.startsWith(label)).length > 1)
      problems.push(`${label} starts more than one paragraph`);
  });
  if (starts.every((start) => start !== -1)) {
    if (!(starts[0] < starts[1] && starts[1] < starts[2]))
      problems.push('the paragraphs are not in the order Context, Decision, Consequences');
    if (starts[0] !== 6) problems.push('text stands between the bullets and **Context.**');
  }
  return problems;
}

/** The figures of runs a record holds, which belong in bench/NOTES.md under its number. */
function measurementProblems(text: string): string[] {
  const flat = text.replace(/\s+/g, ' ');
  return MEASUREMENTS.flatMap((pattern) =>
    [...flat.matchAll(pattern)]
      .filter(({ index }) => !TARGET_WORDS.test(flat.slice(Math.max(0, index - 25), index)))
      .map(([figure]) => `the measurement "${figure}" belongs in bench/NOTES.md`),
  );
}

/** What is wrong with one record's text (empty when it has the house shape). */
function shapeProblems(input: ShapeInput): string[] {
  return [...headerProblems(input), ...paragraphProblems(input.text), ...measurementProblems(input.text)];
}

/** The index's rows, each with the area heading its table sits under. */
function indexRows(readme: string): IndexRow[] {
  let area = '';
  return readme.split('\n').flatMap((line) => {
    const heading = /^## (.+)$/.exec(line);
    if (heading) area = heading[1].trim();
    const row = /^\| (\d+) +\| \[[^\]]+\]\(([^)]+)\) *\| ([^|]+?) *\|$/.exec(line);
    return row ? [{ number: Number(row[1]), file: row[2], status: row[3], area }] : [];
  });
}

const readme = readFileSync(join(DIR, 'README.md'), 'utf8');
const areas = new Set([...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1].trim()));
const rows = indexRows(readme);
const records = readdirSync(DIR)
  .filter((name) => name !== 'README.md')
  .map((name) => ({ name, text: readFileSync(join(DIR, name), 'utf8') }));
const numbers = new Set(records.map(({ name }) => Number(name.slice(0, 3))));

describe('decision records have one shape and one row in the index', () => {
  it('tells a record of the house shape from one without it', () => {
    const good = [
      '# 7. A title',
      '',
      '- **Status:** Amended by decision 3',
      '- **Date:** 2026-11-21',
      '- **Area:** Feed',
      '',
      '**Context.** Why.',
      '',
      '**Decision.** What.',
      '',
      '**Consequences.** So.',
    ].join('\n');
    const input = { number: 7, areas: new Set(['Feed']), numbers: new Set([3, 7]) };
    expect(shapeProblems({ ...input, text: good })).toEqual([]);
    expect(shapeProblems({ ...input, text: good.replace('**Consequences.** So.', 'So.') })).toEqual([
      'no paragraph starts with **Consequences.**',
    ]);
    expect(shapeProblems({ ...input, text: good.replace('Amended by decision 3', 'Accepted (mostly)') })).toHaveLength(
      1,
    );
    expect(shapeProblems({ ...input, text: good.replace('decision 3', 'decision 9') })).toHaveLength(1);
    expect(shapeProblems({ ...input, text: good.replace('# 7.', '# 8.') })).toHaveLength(1);
    expect(shapeProblems({ ...input, text: good.replace('Area:** Feed', 'Area:** Elsewhere') })).toHaveLength(1);
    expect(
      shapeProblems({ ...input, text: good.replace('**Context.** Why.', 'Intro.\n\n**Context.** Why.') }),
    ).toHaveLength(1);
  });

  it('tells a measurement from a target or a bound', () => {
    const measured = [
      'The route missed its p99 at p99 26 ms.',
      'Send to event p50 6.1 and 5.0 ms against 8.3 and 7.2 ms.',
      'It ran at 2,888 req/s, 50 µs a request.',
      'The script went from 138 KB to 117 KB.',
      'The largest paint took 3.0–3.3 s.',
      'Reactions were 62% of everything.',
      'Its chunk is about 10 KB compressed.',
      'A web stream per client cost about 30 KB each.',
    ];
    const stated = [
      'The chat p50 is still short of its target (< 5 ms).',
      'A photo at most 10 MB; a push at most 100 rows.',
      'The wait ends after 15 s; it is polled every 2 s.',
      'One 25 MB file and its form, 26 MB.',
      'Refusals, 401s and 413s; a task over about 12.5 ms.',
      'The script stays under 150 KB.',
    ];
    expect(measured.map((text) => measurementProblems(text).length > 0)).toEqual(measured.map(() => true));
    expect(stated.flatMap(measurementProblems)).toEqual([]);
  });

  it('names every record NNN-short-title.md', () => {
    expect(records.length).toBeGreaterThan(100);
    expect(records.map(({ name }) => name).filter((name) => !FILE_NAME.test(name))).toEqual([]);
  });

  it('gives every record its title and Status/Date/Area bullets', () => {
    const problems = records.flatMap(({ name, text }) =>
      headerProblems({ number: Number(name.slice(0, 3)), text, areas, numbers }).map(
        (problem) => `${name}: ${problem}`,
      ),
    );
    expect(problems).toEqual([]);
  });

  it('keeps the figures of runs out of every record', () => {
    const problems = records.flatMap(({ name, text }) =>
      measurementProblems(text).map((problem) => `${name}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('gives every record its Context, Decision and Consequences paragraphs', () => {
    const problems = records.flatMap(({ name, text }) =>
      paragraphProblems(text).map((problem) => `${name}: ${problem}`),
    );
    expect(problems).toEqual([]);
  });

  it('has a row in the index for every record, under its area and with its status', () => {
    const byFile = new Map(rows.map((row) => [row.file, row]));
    const problems = records.flatMap(({ name, text }) => {
      const row = byFile.get(name);
      if (!row) return [`${name}: no row in the index`];
      const status = /^- \*\*Status:\*\* (.+)$/m.exec(text)?.[1];
      const area = /^- \*\*Area:\*\* (.+)$/m.exec(text)?.[1];
      return [
        ...(row.number === Number(name.slice(0, 3)) ? [] : [`${name}: the row's number is ${row.number}`]),
        ...(row.status === status
          ? []
          : [`${name}: the row's status "${row.status}" is not the record's "${status ?? ''}"`]),
        ...(row.area === area ? [] : [`${name}: the row is under "${row.area}", the record's area is "${area ?? ''}"`]),
      ];
    });
    expect(problems).toEqual([]);
  });

  it('has no index row for a missing file, and one row per record', () => {
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.filter(({ file }) => !existsSync(join(DIR, file))).map(({ file }) => file)).toEqual([]);
    const files = rows.map(({ file }) => file);
    expect(files.filter((file, index) => files.indexOf(file) !== index)).toEqual([]);
  });
});
