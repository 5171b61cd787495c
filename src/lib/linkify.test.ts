import { describe, expect, it } from 'vitest';
import { linkify } from './linkify';

describe('linkify', () => {
  it('keeps plain text as one run', () => {
    expect(linkify('Hello\nteam')).toEqual([{ kind: 'text', text: 'Hello\nteam' }]);
  });

  it('turns http and https addresses into links and leaves the rest as text', () => {
    expect(linkify('See https://example.org/rota?week=2 and http://a.b today')).toEqual([
      { kind: 'text', text: 'See ' },
      { kind: 'link', text: 'https://example.org/rota?week=2', href: 'https://example.org/rota?week=2' },
      { kind: 'text', text: ' and ' },
      { kind: 'link', text: 'http://a.b', href: 'http://a.b' },
      { kind: 'text', text: ' today' },
    ]);
  });

  it('gives www. addresses an https link', () => {
    expect(linkify('www.nhs.uk')).toEqual([{ kind: 'link', text: 'www.nhs.uk', href: 'https://www.nhs.uk' }]);
  });

  it('leaves sentence punctuation after an address out of the link', () => {
    expect(linkify('Read https://example.org/a.')).toEqual([
      { kind: 'text', text: 'Read ' },
      { kind: 'link', text: 'https://example.org/a', href: 'https://example.org/a' },
      { kind: 'text', text: '.' },
    ]);
    expect(linkify('(https://example.org/b)')[1]).toEqual({
      kind: 'link',
      text: 'https://example.org/b',
      href: 'https://example.org/b',
    });
  });

  it('never links other schemes and keeps markup as text', () => {
    const text = 'javascript:alert(1) <script>alert(1)</script> <img src=x onerror=alert(1)>';
    expect(linkify(text)).toEqual([{ kind: 'text', text }]);
  });
});

/** The fastest of several runs, in milliseconds: the least disturbed by other work on the machine. */
function fastest(run: () => void, times = 5): number {
  let best = Infinity;
  for (let i = 0; i < times; i += 1) {
    const start = performance.now();
    run();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

describe('linkify on long posts', () => {
  const shapes: [string, (length: number) => string][] = [
    ['an address with a long run of dots inside', (n) => `https://${'.'.repeat(n)}a`],
    ['an address with a long run of brackets inside', (n) => `https://x.org/(${')'.repeat(n)}a`],
    ['many short addresses', (n) => 'https://a.b/c. '.repeat(n / 15)],
    [
      'prose with links',
      (n) => 'See https://example.org/a?b=c). and www.nhs.uk, then (https://x.y/(z)) '.repeat(n / 72),
    ],
  ];

  it.each(shapes)('takes time in proportion to the length: %s', (_name, make) => {
    const short = make(2_500);
    const long = make(40_000);
    // Sixteen short texts hold as many characters as the long one: in one pass both take about as long,
    // whereas work that grows with the square of the length makes the long one sixteen times slower.
    const shortTime = fastest(() => {
      for (let i = 0; i < 16; i += 1) linkify(short);
    });
    const longTime = fastest(() => linkify(long));
    expect(longTime).toBeLessThan(4 * shortTime + 1);
  });

  it('finds the addresses of a long text and leaves the punctuation after them out', () => {
    const text = 'Rota: https://example.org/rota?week=2. Map (https://en.wikipedia.org/wiki/Ward_(hospital)). '.repeat(
      1_000,
    );
    const links = linkify(text).filter((part) => part.kind === 'link');
    expect(links).toHaveLength(2_000);
    expect(links[0].text).toBe('https://example.org/rota?week=2');
    expect(links[1].text).toBe('https://en.wikipedia.org/wiki/Ward_(hospital)');
    expect(
      linkify(text)
        .map((part) => part.text)
        .join(''),
    ).toBe(text);
  });

  it('links an address whose inside is a long run of punctuation, up to its last letter', () => {
    const url = `https://example.org/${'.'.repeat(50_000)}a`;
    expect(linkify(`${url}!!!`)).toEqual([
      { kind: 'link', text: url, href: url },
      { kind: 'text', text: '!!!' },
    ]);
  });
});
