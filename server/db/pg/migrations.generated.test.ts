import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generateDrizzleJson, generateMigration, type DrizzleSnapshotJSON } from 'drizzle-kit/api';
import { describe, expect, it } from 'vitest';
import * as pgTables from './tables';

const MIGRATIONS = path.join('server', 'db', 'pg', 'migrations');

/** The snapshot drizzle-kit wrote with the last PostgreSQL migration. */
function lastSnapshot(): DrizzleSnapshotJSON {
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number; tag: string }[];
  }; // drizzle-kit's journal file
  const last = journal.entries.at(-1);
  if (!last) throw new Error('The PostgreSQL migrations journal is empty.');
  const file = path.join(MIGRATIONS, 'meta', `${String(last.idx).padStart(4, '0')}_snapshot.json`);
  return JSON.parse(readFileSync(file, 'utf8')) as DrizzleSnapshotJSON; // written by drizzle-kit generate
}

describe('the PostgreSQL migrations', () => {
  it('are generated from the current tables.ts (run npm run db:generate:pg after changing it)', async () => {
    const current = generateDrizzleJson(pgTables);
    expect(await generateMigration(lastSnapshot(), current)).toEqual([]);
  });
});
