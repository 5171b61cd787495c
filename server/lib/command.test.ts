import { describe, expect, it } from 'vitest';
import { isCommand } from './command';

describe('which command this process runs', () => {
  it('knows a command from its source and from its build, and not from another command that holds its code', () => {
    expect(isCommand('backup', '/opt/staff-portal/server/backup.ts')).toBe(true);
    expect(isCommand('backup', '/opt/staff-portal/dist-server/backup.js')).toBe(true);
    expect(isCommand('backup', '/opt/staff-portal/dist-server/restore.js')).toBe(false);
    expect(isCommand('backup', '/opt/staff-portal/node_modules/vitest/vitest.mjs')).toBe(false);
    expect(isCommand('backup', undefined)).toBe(false);
  });
});
