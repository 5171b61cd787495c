import { describe, expect, it } from 'vitest';

describe('zod-config', () => {
  it('makes zod jitless without importing it', async () => {
    await import('./zod-config');
    const { z } = await import('zod');
    expect(z.config().jitless).toBe(true);
    // The same object zod's core reads before every parse.
    const { globalConfig } = await import('zod/v4/core');
    expect(globalConfig.jitless).toBe(true);
  });
});
