import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { settings } from '../../db/tables';

/** A server-wide value kept across restarts (the settings table). */
export async function findSettingValue(db: Db, key: string): Promise<string | undefined> {
  return (await db.select().from(settings).where(eq(settings.key, key)).get())?.value;
}

export async function upsertSetting(db: Db, key: string, value: string): Promise<void> {
  await db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } }).run();
}
