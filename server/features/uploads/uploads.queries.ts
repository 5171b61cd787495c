import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { uploads, users } from '../../db/tables';
import { uploadUrl } from '../../../schema/upload-rules';

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

/** Which of these uploads are someone's profile picture. */
export function findProfilePictureUploads(db: Db, ids: string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const urls = ids.map(uploadUrl);
  const rows = db.select({ url: users.profileImageUrl }).from(users).where(inArray(users.profileImageUrl, urls)).all();
  return new Set(rows.map((row) => row.url?.slice(uploadUrl('').length) ?? ''));
}
