import { describe, expect, it } from 'vitest';
import { namesLine } from './reaction-names';

describe('namesLine', () => {
  it('lists up to five names', () => {
    expect(namesLine(['You'])).toBe('You');
    expect(namesLine(['A', 'B', 'C', 'D', 'E'])).toBe('A, B, C, D, E');
  });

  it('then says how many others', () => {
    expect(namesLine(['A', 'B', 'C', 'D', 'E', 'F'])).toBe('A, B, C, D, E and 1 other');
    expect(namesLine(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H'])).toBe('A, B, C, D, E and 3 others');
  });
});
