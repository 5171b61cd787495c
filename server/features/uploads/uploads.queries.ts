import { eq, inArray } from 'drizzle-orm';
import { dialectOf, statement, type Db } from '../../db/client';
import { uploads, users } from '../../db/tables';
import { uploadUrl } from '../../../schema/upload-rules';

export type UploadRow = typeof uploads.$inferSelect;

export async function insertUpload(db: Db, row: UploadRow): Promise<void> {
  await db.insert(uploads).values(row).run();
}

export async function findUpload(db: Db, id: string): Promise<UploadRow | undefined> {
  return await db.select().from(uploads).where(eq(uploads.id, id)).get();
}

export async function findUploads(db: Db, ids: string[]): Promise<UploadRow[]> {
  if (ids.length === 0) return [];
  return await db.select().from(uploads).where(inArray(uploads.id, ids)).all();
}

export async function deleteUploadRows(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db.delete(uploads).where(inArray(uploads.id, ids)).run();
}

/** Which of these uploads are someone's profile picture. */
export async function findProfilePictureUploads(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const urls = ids.map(uploadUrl);
  const rows = await db
    .select({ url: users.profileImageUrl })
    .from(users)
    .where(inArray(users.profileImageUrl, urls))
    .all();
  return new Set(rows.map((row) => row.url?.slice(uploadUrl('').length) ?? ''));
}

/**
 * Uploads stored before `before` that nothing refers to: no post of their owner, published or scheduled (a deleted
 * post's lists are empty), no message of their conversation (decision 150), and no profile picture. Their owner's
 * posts are read along the author index, their conversation's messages along its index.
 */
export async function listUnattachedUploads(db: Db, before: number): Promise<Pick<UploadRow, 'id' | 'storedName'>[]> {
  const postgres = dialectOf(db) === 'postgres';
  // Whether a JSON list of ids holds the upload's: SQLite's instr, PostgreSQL's strpos.
  const holds = (list: string) => (postgres ? `strpos(${list}, u.id) > 0` : `instr(${list}, u.id) > 0`);
  // The owner's rows, a deleted owner's (null) included: SQLite reads `IS` along the index, PostgreSQL only `=`.
  const ofOwner = (author: string) =>
    postgres ? `(${author} = u.owner_id OR (${author} IS NULL AND u.owner_id IS NULL))` : `${author} IS u.owner_id`;
  return statement<[number], Pick<UploadRow, 'id' | 'storedName'>>(
    db,
    `SELECT u.id, u.stored_name AS "storedName" FROM uploads u
       WHERE u.created_at < ?
         AND NOT EXISTS (SELECT 1 FROM users WHERE profile_image_url = '${uploadUrl('')}' || u.id)
         AND NOT EXISTS (SELECT 1 FROM posts p WHERE ${ofOwner('p.author_id')}
                           AND (${holds('p.images')} OR ${holds('p.attachments')}))
         AND NOT EXISTS (SELECT 1 FROM scheduled_posts s WHERE ${ofOwner('s.author_id')}
                           AND (${holds('s.images')} OR ${holds('s.attachments')}))
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = u.conversation_id
                           AND (${holds('m.images')} OR ${holds('m.attachments')}))`,
  ).all([before]);
}

/** The stored names of every upload, to tell the files in the folder that have no record. */
export async function listStoredNames(db: Db): Promise<Set<string>> {
  return new Set((await db.select({ name: uploads.storedName }).from(uploads).all()).map((row) => row.name));
}
