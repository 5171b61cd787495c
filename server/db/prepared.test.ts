import { afterEach, describe, expect, it, vi } from 'vitest';
import { findSessionWithUser } from '../features/auth/auth.queries';
import { countReactions, listPostPage } from '../features/posts/posts.queries';
import { currentSeq, nextSeq } from '../lib/seq.queries';
import { testDatabase } from '../test/postgres-suite';
import { closeDb, dialectOf, openDb, openPostgres, preparedFor, sqliteOf, type Db } from './client';
import { PostgresEngine } from './engine';

const open: { db: Db; drop?: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const { db, drop } of open.splice(0)) {
    await closeDb(db);
    await drop?.();
  }
});

/**
 * A fresh database, in memory or on the PostgreSQL pass a database of its own (decision 157), and how many
 * statements have been prepared on it: SQLite's prepares, or the names PostgreSQL is asked to prepare (decision 164).
 */
async function database(): Promise<{ db: Db; prepared: () => number }> {
  const postgres = await testDatabase();
  if (!postgres) {
    const db = openDb(':memory:');
    open.push({ db });
    const prepare = vi.spyOn(sqliteOf(db), 'prepare');
    return { db, prepared: () => prepare.mock.calls.length };
  }
  const db = await openPostgres(postgres.url);
  open.push({ db, drop: postgres.drop });
  const engine = db.$conn.engine;
  if (!(engine instanceof PostgresEngine)) throw new Error('openPostgres opened another engine');
  // Statements outside a transaction, as the hot paths here run, go through the pool's query.
  const query = vi.spyOn(engine.pool, 'query');
  return { db, prepared: () => new Set(query.mock.calls.map(([config]) => config.name).filter(Boolean)).size };
}

/** The hot paths of docs/architecture.md ("Queries"): every signed-in request, every feed page, every synced write. */
async function hotPaths(db: Db): Promise<void> {
  await nextSeq(db);
  await currentSeq(db);
  await findSessionWithUser(db, 'no-such-token');
  await listPostPage(db, { limit: 20 });
  await countReactions(db, ['p1'], 'u1');
}

describe('statements of the hot paths, prepared with preparedFor (decision 134)', () => {
  it('are prepared on first use and never again for the same database', async () => {
    const { db, prepared } = await database();
    await hotPaths(db);
    const first = prepared();
    expect(first).toBeGreaterThan(0);
    await hotPaths(db);
    await hotPaths(db);
    expect(prepared()).toBe(first);
  });

  it('are prepared again for another database, never shared between two', async () => {
    const one = await database();
    const two = await database();
    await hotPaths(one.db);
    await hotPaths(two.db);
    expect(two.prepared()).toBe(one.prepared());
    expect(await currentSeq(two.db)).toBe(1);
    await nextSeq(one.db);
    expect([await currentSeq(one.db), await currentSeq(two.db)]).toEqual([2, 1]);
  });

  it('builds once per database whatever it builds', async () => {
    const build = vi.fn((db: Db) => ({ dialect: dialectOf(db) }));
    const of = preparedFor(build);
    const { db } = await database();
    expect(of(db)).toBe(of(db));
    expect(build).toHaveBeenCalledTimes(1);
  });
});
