import { getTableColumns, getTableName } from 'drizzle-orm';
import { getTableConfig, pgTable, text, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { compareFigures, inForeignKeyOrder, tablesToCopy, type Figures } from './copy-from-sqlite';
import * as pgTables from './tables';

const figures = (rows: [string, number][], seq: number, maxServerSeq: [string, number][] = []): Figures => ({
  rows: new Map(rows),
  seq,
  maxServerSeq: new Map(maxServerSeq),
});

describe('what migrate-to-postgres copies, derived from the tables', () => {
  it('lists every derived table once, each after every table its foreign keys point to', () => {
    const plan = tablesToCopy();
    const derived = Object.values(pgTables).map((table) => getTableName(table));
    expect(plan.map((table) => table.name).sort()).toEqual(derived.sort());
    const position = new Map(plan.map((table, i) => [table.name, i]));
    for (const table of Object.values(pgTables)) {
      for (const key of getTableConfig(table).foreignKeys) {
        const target = getTableName(key.reference().foreignTable);
        expect(position.get(target)!, `${getTableName(table)} -> ${target}`).toBeLessThan(
          position.get(getTableName(table))!,
        );
      }
    }
  });

  it("knows every derived column's kind, and which tables have an identity and a server_seq", () => {
    const plan = tablesToCopy();
    const byName = new Map(plan.map((table) => [table.name, table]));
    expect(byName.get('users')!.columns.find((c) => c.name === 'is_active')!.kind).toBe('boolean');
    expect(byName.get('users')!.columns.find((c) => c.name === 'created_at')!.kind).toBe('integer');
    expect(byName.get('audit_log')!.identity).toBe('id');
    expect(byName.get('users')!.identity).toBeNull();
    expect(byName.get('posts')!.hasServerSeq).toBe(true);
    for (const table of plan)
      expect(table.columns.length, table.name).toBe(Object.keys(getTableColumns(pgTables[keyOf(table.name)])).length);
  });

  it('refuses foreign keys that form a cycle, naming the tables', () => {
    const a = pgTable('a', { id: text('id').primaryKey(), b: text('b').references((): AnyPgColumn => b.id) });
    const b = pgTable('b', { id: text('id').primaryKey(), a: text('a').references((): AnyPgColumn => a.id) });
    const c = pgTable('c', { id: text('id').primaryKey() });
    expect(() => inForeignKeyOrder([c, a, b])).toThrow('The foreign keys of a, b form a cycle');
  });

  it('tells every difference between the two sides, and a server_seq past the counter', () => {
    const sqlite = figures(
      [
        ['users', 3],
        ['posts', 2],
      ],
      9,
      [['posts', 9]],
    );
    expect(
      compareFigures(
        sqlite,
        figures(
          [
            ['users', 3],
            ['posts', 2],
          ],
          9,
          [['posts', 9]],
        ),
      ),
    ).toEqual([]);
    expect(
      compareFigures(
        sqlite,
        figures(
          [
            ['users', 3],
            ['posts', 1],
          ],
          8,
          [['posts', 7]],
        ),
      ),
    ).toEqual([
      'posts: 2 rows in SQLite, 1 in PostgreSQL',
      'sync_counter.seq: 9 in SQLite, 8 in PostgreSQL',
      'posts.server_seq: greatest 9 in SQLite, 7 in PostgreSQL',
    ]);
    const ahead = figures([['posts', 2]], 5, [['posts', 6]]);
    expect(compareFigures(ahead, ahead)).toEqual(['posts.server_seq reaches 6, past sync_counter.seq 5']);
  });
});

function keyOf(name: string): keyof typeof pgTables {
  const entry = Object.entries(pgTables).find(([, table]) => getTableName(table) === name);
  return entry![0] as keyof typeof pgTables; // an export of that module, found by its table's name
}
