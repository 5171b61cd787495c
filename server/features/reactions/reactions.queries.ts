import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import { preparedFor, type Db, transaction } from '../../db/client';
import { posts, reactions, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type ReactionRow = typeof reactions.$inferSelect;

export async function findReaction(db: Db, id: string): Promise<ReactionRow | undefined> {
  return await db.select().from(reactions).where(eq(reactions.id, id)).get();
}

/**
 * Creates or replaces a user's reaction to a post (also bringing a tombstone back). The post carries everyone's
 * reactions (docs/sync.md), so it takes the same sequence number and every client pulls it again.
 */
export async function upsertReaction(
  db: Db,
  row: Pick<ReactionRow, 'id' | 'postId' | 'userId' | 'type' | 'createdAt' | 'updatedAt'>,
): Promise<void> {
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    await db
      .insert(reactions)
      .values({ ...row, deleted: false, serverSeq })
      .onConflictDoUpdate({
        target: reactions.id,
        set: { type: row.type, createdAt: row.createdAt, updatedAt: row.updatedAt, deleted: false, serverSeq },
      })
      .run();
    await db.update(posts).set({ serverSeq }).where(eq(posts.id, row.postId)).run();
  });
}

/** Tombstones a reaction; its post moves up the change feed with it. */
export async function markReactionDeleted(db: Db, id: string, postId: string, at: number): Promise<void> {
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    await db.update(reactions).set({ deleted: true, updatedAt: at, serverSeq }).where(eq(reactions.id, id)).run();
    await db.update(posts).set({ serverSeq }).where(eq(posts.id, postId)).run();
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

const listUserReactionsSinceQuery = preparedFor((db) =>
  db
    .select()
    .from(reactions)
    .where(
      and(
        eq(reactions.userId, sql.placeholder('userId')),
        sql`(${reactions.serverSeq}, ${reactions.id}) > (${sql.placeholder('seq')}, ${sql.placeholder('id')})`,
      ),
    )
    .orderBy(asc(reactions.serverSeq), asc(reactions.id))
    .limit(sql.placeholder('limit'))
    .prepare(),
);

/**
 * One user's reactions (live and tombstones) changed after a checkpoint, in change-feed order. Prepared: deleting a
 * post reads it for every connected user's change event (decision 131).
 */
export async function listUserReactionsSince(
  db: Db,
  userId: string,
  seq: number,
  id: string,
  limit: number,
): Promise<ReactionRow[]> {
  return await listUserReactionsSinceQuery(db).all({ userId, seq, id, limit });
}
