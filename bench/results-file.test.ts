import { describe, expect, it } from 'vitest';
import { mergeRun, parseResults, toMarkdown, type ResultRow, type ResultsFile } from './results-file';

const row = (bench: string, figure: string, measured: string, pass: boolean | null = true): ResultRow => ({
  ...{ bench, figure, target: '< 100 ms', measured, baseline: 'polling | 2 s', ratio: '0.5' },
  pass,
});

const first: ResultsFile = {
  machine: '2 cores (AMD EPYC), Node v20.20.2',
  runs: [{ benches: ['delivery', 'posts-api'], when: '2026-11-23T19:56Z, load average 2.5 at the start' }],
  rows: [row('delivery', 'Urgent post held', '380 ms'), row('posts-api', 'GET /api/posts p99', '7 ms', null)],
  after: '## Browser journeys: suite time\n\nKept as it was.',
};

describe('bench/RESULTS.md', () => {
  it('reads back what it writes, a cell holding a bar included', () => {
    expect(parseResults(toMarkdown(first))).toEqual(first);
  });

  it("replaces only the measured benches' rows and run line, keeping the others and the text after the table", () => {
    const again = mergeRun(parseResults(toMarkdown(first)), {
      benches: ['delivery'],
      when: '2026-11-26T10:40Z, load average 0.4 at the start',
      machine: first.machine,
      rows: [row('delivery', 'Urgent post held', '254 ms'), row('delivery', 'Chat held', '9 ms', false)],
      whole: false,
    });
    expect(again.rows.map((r) => `${r.bench} ${r.figure} ${r.measured}`)).toEqual([
      'delivery Urgent post held 254 ms',
      'delivery Chat held 9 ms',
      'posts-api GET /api/posts p99 7 ms',
    ]);
    expect(again.runs).toEqual([
      { benches: ['posts-api'], when: '2026-11-23T19:56Z, load average 2.5 at the start' },
      { benches: ['delivery'], when: '2026-11-26T10:40Z, load average 0.4 at the start' },
    ]);
    expect(again.after).toBe(first.after);
    const whole = mergeRun(again, { ...{ benches: ['posts-api'], when: 'now', machine: 'm', rows: [] }, whole: true });
    expect(whole.rows).toEqual([]);
    expect(whole.runs).toEqual([{ benches: ['posts-api'], when: 'now' }]);
  });
});
