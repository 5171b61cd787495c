import { describe, expect, it } from 'vitest';
import { sameJson } from './same-json';

describe('sameJson', () => {
  it('compares scalars, null and arrays by value and order', () => {
    expect(sameJson('a', 'a')).toBe(true);
    expect(sameJson(1, '1')).toBe(false);
    expect(sameJson(null, null)).toBe(true);
    expect(sameJson(null, {})).toBe(false);
    expect(sameJson(['a', 'b'], ['a', 'b'])).toBe(true);
    expect(sameJson(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(sameJson(['a'], ['a', 'b'])).toBe(false);
    expect(sameJson([], {})).toBe(false);
  });

  it('ignores the order of keys, so a document read back from storage equals the one written', () => {
    expect(sameJson({ a: 1, b: [{ x: 1, y: 2 }] }, { b: [{ y: 2, x: 1 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: 2 }, { a: 1, b: 3 })).toBe(false);
  });

  it('counts a key holding undefined as absent, as JSON does', () => {
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: null }, { a: 1 })).toBe(false);
  });
});
