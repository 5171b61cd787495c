import { afterEach, describe, expect, it, vi } from 'vitest';
import { findSessionWithUser } from '../features/auth/auth.queries';
import { countReactions, listPostPage } from '../features/posts/posts.queries';
import { currentSeq, nextSeq } from '../lib/seq.queries';
import { openDb, preparedFor, type Db } from './client';

const open: Db[] = [];
afterEach(() => open.splice(0).forEach((db) => db.$client.close()));

function database(): { db: Db; prepared: () => number } {
  const db = openDb(':memory:');
  open.push(db);
  const prepare = vi.spyOn(db.$client, 'prepare');
  return { db, prepared: () => prepare.mock.calls.length };
}

/** The hot paths of docs/architecture.md ("Queries"): every signed-in request, every feed page, every synced write. */
function hotPaths(db: Db): void {
  nextSeq(db);
  currentSeq(db);
  findSessionWithUser(db, 'no-such-token');
  listPostPage(db, { limit: 20 });
  countReactions(db, ['p1'], 'u1');
}

describe('statements of the hot paths, prepared with preparedFor (decision 134)', () => {
  it('are prepared on first use and never again for the same database', () => {
    const { db, prepared } = database();
    hotPaths(db);
    const first = prepared();
    expect(first).toBeGreaterThan(0);
    hotPaths(db);
    hotPaths(db);
    expect(prepared()).toBe(first);
  });

  it('are prepared again for another database, never shared between two', () => {
    const one = database();
    const two = database();
    hotPaths(one.db);
    hotPaths(two.db);
    expect(two.prepared()).toBe(one.prepared());
    expect(currentSeq(two.db)).toBe(1);
    nextSeq(one.db);
    expect([currentSeq(one.db), currentSeq(two.db)]).toEqual([2, 1]);
  });

  it('builds once per database whatever it builds', () => {
    const build = vi.fn((db: Db) => ({ name: db.$client.name }));
    const of = preparedFor(build);
    const { db } = database();
    expect(of(db)).toBe(of(db));
    expect(build).toHaveBeenCalledTimes(1);
  });
});
