import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { generateSQLiteDrizzleJson, generateSQLiteMigration, type DrizzleSQLiteSnapshotJSON } from 'drizzle-kit/api';
import { describe, expect, it } from 'vitest';
import * as tables from './tables';

const FOLDERS = {
  SQLite: path.join('server', 'db', 'migrations'),
  PostgreSQL: path.join('server', 'db', 'pg', 'migrations'),
};

/** drizzle-kit's journal of a migrations folder. */
function journalOf(folder: string) {
  return JSON.parse(readFileSync(path.join(folder, 'meta', '_journal.json'), 'utf8')) as {
    entries: { idx: number; when: number; tag: string }[];
  };
}

describe('the migrations journals', () => {
  it.each(Object.entries(FOLDERS))(
    '%s: each migration is later than the one before, and its file exists',
    (_, folder) => {
      const { entries } = journalOf(folder);
      entries.forEach((entry, i) => {
        expect(entry.idx).toBe(i);
        expect(existsSync(path.join(folder, `${entry.tag}.sql`))).toBe(true);
        // drizzle's migrator applies only migrations created after the last one a database ran: an earlier time is skipped.
        if (i > 0) expect(entry.when).toBeGreaterThan(entries[i - 1].when);
      });
    },
  );

  it('SQLite: the migrations are generated from the current tables.ts (run npm run db:generate after changing it)', async () => {
    const { entries } = journalOf(FOLDERS.SQLite);
    const last = entries.at(-1)!;
    const file = path.join(FOLDERS.SQLite, 'meta', `${String(last.idx).padStart(4, '0')}_snapshot.json`);
    // Written by drizzle-kit generate.
    const snapshot = JSON.parse(readFileSync(file, 'utf8')) as DrizzleSQLiteSnapshotJSON;
    expect(await generateSQLiteMigration(snapshot, await generateSQLiteDrizzleJson(tables))).toEqual([]);
  });
});
