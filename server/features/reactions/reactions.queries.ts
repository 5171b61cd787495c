import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { reactions, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type ReactionRow = typeof reactions.$inferSelect;

export function findReaction(db: Db, id: string): ReactionRow | undefined {
  return db.select().from(reactions).where(eq(reactions.id, id)).get();
}

/** Creates or replaces a user's reaction to a post (also bringing a tombstone back). */
export function upsertReaction(
  db: Db,
  row: Pick<ReactionRow, 'id' | 'postId' | 'userId' | 'type' | 'createdAt' | 'updatedAt'>,
): void {
  db.transaction(() => {
    const serverSeq = nextSeq(db);
    db.insert(reactions)
      .values({ ...row, deleted: false, serverSeq })
      .onConflictDoUpdate({
        target: reactions.id,
        set: { type: row.type, createdAt: row.createdAt, updatedAt: row.updatedAt, deleted: false, serverSeq },
      })
      .run();
  });
}

export function markReactionDeleted(db: Db, id: string, at: number): void {
  db.transaction(() => {
    db.update(reactions)
      .set({ deleted: true, updatedAt: at, serverSeq: nextSeq(db) })
      .where(eq(reactions.id, id))
      .run();
  });
}

/** Who chose which reaction on a post, in the order they chose it. */
export function listReactionUsers(db: Db, postId: string) {
  return db
    .select({ type: reactions.type, firstName: users.firstName, lastName: users.lastName })
    .from(reactions)
    .innerJoin(users, eq(users.id, reactions.userId))
    .where(and(eq(reactions.postId, postId), eq(reactions.deleted, false), isNotNull(reactions.userId)))
    .orderBy(asc(reactions.createdAt), asc(reactions.id))
    .all();
}

/** Reactions (live and tombstones) changed after a checkpoint, in change-feed order. */
export function listReactionsSince(db: Db, seq: number, id: string, limit: number): ReactionRow[] {
  return db
    .select()
    .from(reactions)
    .where(sql`(${reactions.serverSeq}, ${reactions.id}) > (${seq}, ${id})`)
    .orderBy(asc(reactions.serverSeq), asc(reactions.id))
    .limit(limit)
    .all();
}
