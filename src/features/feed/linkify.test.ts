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
