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

/** The last value handed out; everything written so far has a server_seq at or below it. */
export function currentSeq(db: Db): number {
  return db.get<{ seq: number } | undefined>(sql`SELECT seq FROM sync_counter WHERE id = 1`)?.seq ?? 0;
}
