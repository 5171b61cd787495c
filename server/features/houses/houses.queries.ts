import { eq, inArray } from 'drizzle-orm';
import { Db, transaction } from '../../db/client';
import { userHouses, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

/** The (user, house) pairs of these users, or of everyone. */
export async function listUserHouses(db: Db, userIds?: string[]): Promise<{ userId: string; house: string }[]> {
  const query = db.select({ userId: userHouses.userId, house: userHouses.house }).from(userHouses);
  if (!userIds) return await query.all();
  if (userIds.length === 0) return [];
  return await query.where(inArray(userHouses.userId, userIds)).all();
}

/** Replaces a user's houses and moves them up the directory's change feed, in one transaction. */
export async function replaceUserHouses(db: Db, userId: string, houses: string[], at: number): Promise<void> {
  await transaction(db, async (db) => {
    await db.delete(userHouses).where(eq(userHouses.userId, userId)).run();
    if (houses.length > 0)
      await db
        .insert(userHouses)
        .values(houses.map((house) => ({ userId, house })))
        .run();
    await db
      .update(users)
      .set({ updatedAt: at, serverSeq: await nextSeq(db) })
      .where(eq(users.id, userId))
      .run();
  });
}
