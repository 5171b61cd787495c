import { afterEach, describe, expect, it, vi } from 'vitest';
import { findSessionWithUser } from '../features/auth/auth.queries';
import { countReactions, listPostPage } from '../features/posts/posts.queries';
import { currentSeq, nextSeq } from '../lib/seq.queries';
import { closeDb, openDb, preparedFor, sqliteOf, type Db } from './client';

const open: Db[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((db) => closeDb(db)));
});

function database(): { db: Db; prepared: () => number } {
  const db = openDb(':memory:');
  open.push(db);
  const prepare = vi.spyOn(sqliteOf(db), 'prepare');
  return { db, prepared: () => prepare.mock.calls.length };
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
    const { db, prepared } = database();
    await hotPaths(db);
    const first = prepared();
    expect(first).toBeGreaterThan(0);
    await hotPaths(db);
    await hotPaths(db);
    expect(prepared()).toBe(first);
  });

  it('are prepared again for another database, never shared between two', async () => {
    const one = database();
    const two = database();
    await hotPaths(one.db);
    await hotPaths(two.db);
    expect(two.prepared()).toBe(one.prepared());
    expect(await currentSeq(two.db)).toBe(1);
    await nextSeq(one.db);
    expect([await currentSeq(one.db), await currentSeq(two.db)]).toEqual([2, 1]);
  });

  it('builds once per database whatever it builds', () => {
    const build = vi.fn((db: Db) => ({ name: sqliteOf(db).name }));
    const of = preparedFor(build);
    const { db } = database();
    expect(of(db)).toBe(of(db));
    expect(build).toHaveBeenCalledTimes(1);
  });
});
