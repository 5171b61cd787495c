import { and, eq, lte, sql } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client';
import { settings, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

/** A server-wide value kept across restarts (the settings table). */
export async function findSettingValue(db: Db, key: string): Promise<string | undefined> {
  return (await db.select().from(settings).where(eq(settings.key, key)).get())?.value;
}

/**
 * Sets a value unless it already holds it; true when this call changed it: of two servers setting it at once, one
 * wins and acts on it.
 */
export async function claimSetting(db: Db, key: string, value: string): Promise<boolean> {
  const result = await db
    .insert(settings)
    .values({ key, value })
    .onConflictDoUpdate({ target: settings.key, set: { value }, setWhere: sql`${settings.value} <> ${value}` })
    .run();
  return result.changes === 1;
}

/**
 * Deactivates an account whose access end has come (decision 145); false when it is no longer active and due: of two
 * servers ending it at once, one goes on to act on it.
 */
export async function claimAccessEnded(db: Db, id: string, at: number): Promise<boolean> {
  return transaction(db, async (db) => {
    const result = await db
      .update(users)
      .set({ isActive: false, updatedAt: at, serverSeq: await nextSeq(db) })
      .where(and(eq(users.id, id), eq(users.isActive, true), lte(users.accessEndsAt, at)))
      .run();
    return result.changes === 1;
  });
}
