import { describe, expect, it } from 'vitest';
import { iso, rememberingIso } from './iso';

describe('times as the API writes them', () => {
  it('writes ISO 8601 in UTC, and the remembering form answers the same text for the same time', () => {
    expect(iso(Date.UTC(2026, 10, 26, 9, 30))).toBe('2026-11-26T09:30:00.000Z');
    const at = rememberingIso();
    const first = at(0);
    expect(first).toBe('1970-01-01T00:00:00.000Z');
    expect(at(0)).toBe(first);
    expect(at(1_000)).toBe('1970-01-01T00:00:01.000Z');
  });
});
