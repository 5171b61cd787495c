import { preparedFor, readAfterWriters, statement, type Db } from '../db/client';

/**
 * Takes the next value of the global sync sequence (docs/sync.md). Call it inside the transaction that writes
 * the synced row, so the row and the counter commit together and pulls never skip a change.
 */
export async function nextSeq(db: Db): Promise<number> {
  return (await takeSeq(db).get())!.seq; // the upsert always returns its row
}

/** Every synced write takes a sequence number: prepared once per database (decision 78). */
const takeSeq = preparedFor((db) =>
  statement<[], { seq: number }>(
    db,
    'INSERT INTO sync_counter (id, seq) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET seq = sync_counter.seq + 1 RETURNING seq',
  ),
);

/** Prepared once per database: the feed page cache asks on every GET /api/posts. */
const readSeq = preparedFor((db) => statement<[], { seq: number }>(db, 'SELECT seq FROM sync_counter WHERE id = 1'));

/** The last value handed out; everything written so far has a server_seq at or below it. */
export async function currentSeq(db: Db): Promise<number> {
  return (await readSeq(db).get())?.seq ?? 0;
}

/**
 * The sequence up to which every change has committed: read once every writing transaction now running has ended,
 * so a change a service told of from inside its transaction is there to read with everything numbered before it.
 */
export async function committedSeq(db: Db): Promise<number> {
  return (await readAfterWriters<{ seq: number }>(db, 'SELECT seq FROM sync_counter WHERE id = 1'))[0]?.seq ?? 0;
}

/** The tables of the collections a client pushes to, by collection (openings of both kinds: decision 142). */
const PUSHED_TABLES = {
  posts: ['posts'],
  comments: ['comments'],
  reactions: ['reactions'],
  conversations: ['conversations'],
  messages: ['messages'],
  acknowledgements: ['acknowledgements'],
  residents: ['residents'],
  residentViews: ['resident_views', 'handover_views'],
  handovers: ['handovers'],
} as const;

/**
 * Gives a synced row the next sequence without changing it, so pulls bring it again. For a push that changed
 * nothing (a retry, the same value again): the pusher still needs the stored version (docs/sync.md, Push).
 */
export async function touchRow(db: Db, collection: keyof typeof PUSHED_TABLES, id: string): Promise<void> {
  // The user's mention entries travel in the acknowledgements collection from their own table (decision 144).
  const tables =
    collection === 'acknowledgements' && id.startsWith('mention:') ? ['mention_entries'] : PUSHED_TABLES[collection];
  const seq = await nextSeq(db);
  for (const table of tables) {
    await statement(db, `UPDATE ${table} SET server_seq = ? WHERE id = ?`).run([seq, id]);
  }
}
