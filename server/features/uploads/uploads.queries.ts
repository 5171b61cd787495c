import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { uploads } from '../../db/tables';

export type UploadRow = typeof uploads.$inferSelect;

export function insertUpload(db: Db, row: UploadRow): void {
  db.insert(uploads).values(row).run();
}

export function findUpload(db: Db, id: string): UploadRow | undefined {
  return db.select().from(uploads).where(eq(uploads.id, id)).get();
}

export function findUploads(db: Db, ids: string[]): UploadRow[] {
  if (ids.length === 0) return [];
  return db.select().from(uploads).where(inArray(uploads.id, ids)).all();
}

export function deleteUploadRows(db: Db, ids: string[]): void {
  if (ids.length) db.delete(uploads).where(inArray(uploads.id, ids)).run();
}
