import { describe, expect, it } from 'vitest';
import { seededRandom } from './seeded-random';

describe('seededRandom', () => {
  it('gives mulberry32’s numbers, so the demo and the bench build the same data as before', () => {
    const one = seededRandom(1);
    expect([one(), one()]).toEqual([0.6270739405881613, 0.002735721180215478]);
    const demo = seededRandom(2026);
    expect([demo(), demo(), demo()]).toEqual([0.45540769933722913, 0.30849614599719644, 0.6611574492417276]);
  });

  it('repeats a sequence for the same seed and stays within [0, 1)', () => {
    const a = seededRandom(0x5bd1e995);
    const b = seededRandom(0x5bd1e995);
    const values = Array.from({ length: 1000 }, () => a());
    expect(values).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
  });
});
