import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { userHouses, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

/** The (user, house) pairs of these users, or of everyone. */
export function listUserHouses(db: Db, userIds?: string[]): { userId: string; house: string }[] {
  const query = db.select({ userId: userHouses.userId, house: userHouses.house }).from(userHouses);
  if (!userIds) return query.all();
  if (userIds.length === 0) return [];
  return query.where(inArray(userHouses.userId, userIds)).all();
}

/** Replaces a user's houses and moves them up the directory's change feed, in one transaction. */
export function replaceUserHouses(db: Db, userId: string, houses: string[], at: number): void {
  db.transaction(() => {
    db.delete(userHouses).where(eq(userHouses.userId, userId)).run();
    if (houses.length > 0)
      db.insert(userHouses)
        .values(houses.map((house) => ({ userId, house })))
        .run();
    db.update(users)
      .set({ updatedAt: at, serverSeq: nextSeq(db) })
      .where(eq(users.id, userId))
      .run();
  });
}
