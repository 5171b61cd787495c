import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './test/cli';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-backup-pg-'));
// Never reached: both commands refuse before connecting.
const env = { DATA_DIR: scratch, DATABASE_URL: 'postgres://portal@127.0.0.1:1/portal' };

afterAll(() => {
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('npm run backup and restore on a PostgreSQL deployment', () => {
  it('refuse, pointing at PostgreSQL’s own tools, even with an SQLite file left in the data folder', async () => {
    fs.writeFileSync(path.join(scratch, 'staff-portal.db'), '');
    const backup = await runCli('server/backup.ts', ['--to', path.join(scratch, 'backups')], env);
    expect(backup.code).toBe(1);
    expect(backup.stderr).toContain('keeps its data in PostgreSQL');
    expect(backup.stderr).toContain('pg_dump');
    expect(fs.existsSync(path.join(scratch, 'backups'))).toBe(false);
    const restore = await runCli('server/restore.ts', [path.join(scratch, 'backups', 'any')], env);
    expect(restore.code).toBe(1);
    expect(restore.stderr).toContain('pgBackRest');
  });
});
