import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';

/**
 * Takes the next value of the global sync sequence (docs/sync.md). Call it inside the transaction that writes
 * the synced row, so the row and the counter commit together and pulls never skip a change.
 */
export function nextSeq(db: Db): number {
  const row = db.get<{ seq: number }>(
    sql`INSERT INTO sync_counter (id, seq) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET seq = seq + 1 RETURNING seq`,
  );
  return row.seq;
}

const readSeq = new WeakMap<Db, { get(): { seq: number } | undefined }>();

/**
 * The last value handed out; everything written so far has a server_seq at or below it. Prepared once per
 * database: the feed page cache asks on every GET /api/posts.
 */
export function currentSeq(db: Db): number {
  let statement = readSeq.get(db);
  if (!statement) readSeq.set(db, (statement = db.$client.prepare('SELECT seq FROM sync_counter WHERE id = 1')));
  return statement.get()?.seq ?? 0;
}
