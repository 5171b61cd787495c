import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { settings } from '../../db/tables';

/** A server-wide value kept across restarts (the settings table). */
export function findSettingValue(db: Db, key: string): string | undefined {
  return db.select().from(settings).where(eq(settings.key, key)).get()?.value;
}

export function upsertSetting(db: Db, key: string, value: string): void {
  db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } }).run();
}
