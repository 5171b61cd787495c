import { describe, expect, it } from 'vitest';
import { FIXED_SEED, makeScript } from './script';

const restarts = (seed: number, ops: number) =>
  makeScript(seed, ops)
    .map((step, index) => [step.kind, index] as const)
    .filter(([kind]) => kind.startsWith('server'));

describe('the chaos script', () => {
  it('is the same for the same seed, and another for another', () => {
    expect(makeScript(FIXED_SEED, 300)).toEqual(makeScript(FIXED_SEED, 300));
    expect(makeScript(FIXED_SEED + 1, 300)).not.toEqual(makeScript(FIXED_SEED, 300));
  });

  it('restarts the server in order, the kill only once it is back, however short the script', () => {
    for (let seed = 1; seed <= 500; seed += 1) {
      for (const ops of [10, 30, 300]) {
        expect(restarts(seed, ops).map(([kind]) => kind)).toEqual([
          'serverStop',
          'serverStart',
          'serverKill',
          'serverStart',
        ]);
      }
    }
  });
});
