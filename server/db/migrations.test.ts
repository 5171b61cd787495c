import { existsSync, readdirSync, readFileSync } from 'node:fs';
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

/**
 * What a running server of the release before could not live with: docs/deploy.md upgrades several servers one after
 * another, so the old ones keep writing to a database the new one has migrated.
 */
const NOT_ADDITIVE: [RegExp, string][] = [
  [/\bDROP\s+(TABLE|COLUMN|VIEW|FUNCTION)\b/i, 'drops what the old servers read'],
  [/\bRENAME\b/i, 'renames what the old servers name'],
  [/\bALTER\s+COLUMN\b[^;]*\b(TYPE|SET\s+NOT\s+NULL)\b/i, 'changes a column the old servers write'],
  [/\bADD\s+COLUMN\b(?![^;]*\bDEFAULT\b)[^;]*\bNOT\s+NULL\b/i, 'adds a required column the old servers leave out'],
];

describe('PostgreSQL migrations, for servers upgraded one after another', () => {
  it('only add: no drop, rename or stricter column that a server of the release before would trip on', () => {
    const files = readdirSync(FOLDERS.PostgreSQL).filter((name) => name.endsWith('.sql'));
    expect(files.length).toBeGreaterThan(0);
    const found = files.flatMap((file) =>
      readFileSync(path.join(FOLDERS.PostgreSQL, file), 'utf8')
        .split('--> statement-breakpoint')
        .flatMap((text) => NOT_ADDITIVE.filter(([pattern]) => pattern.test(text)).map(([, why]) => `${file}: ${why}`)),
    );
    expect(found).toEqual([]);
  });

  it('would catch a migration that is not additive', () => {
    const caught = (text: string) => NOT_ADDITIVE.some(([pattern]) => pattern.test(text));
    expect(caught('ALTER TABLE "posts" DROP COLUMN "content";')).toBe(true);
    expect(caught('ALTER TABLE "posts" RENAME COLUMN "content" TO "body";')).toBe(true);
    expect(caught('ALTER TABLE "posts" ALTER COLUMN "content" SET NOT NULL;')).toBe(true);
    expect(caught('ALTER TABLE "posts" ADD COLUMN "mood" text NOT NULL;')).toBe(true);
    expect(caught('ALTER TABLE "posts" ADD COLUMN "mood" text DEFAULT \'calm\' NOT NULL;')).toBe(false);
    expect(caught('CREATE TABLE "moods" ("id" text PRIMARY KEY NOT NULL);')).toBe(false);
  });
});
