import { and, asc, eq, lte, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { transaction, type Db } from '../../db/client';
import { scheduledPosts, users } from '../../db/tables';
import { authorColumns, insertPost, type AuthorRow, type EditorRow } from './posts.queries';

export type ScheduledPostRow = typeof scheduledPosts.$inferSelect;
export type NewScheduledPostRow = typeof scheduledPosts.$inferInsert;

export interface ScheduledPostWithAuthor {
  post: ScheduledPostRow;
  author: AuthorRow | null;
  editor: EditorRow | null;
}

const editors = alias(users, 'editor');
const editorColumns = { id: editors.id, firstName: editors.firstName, lastName: editors.lastName };

export async function findScheduledPost(db: Db, id: string): Promise<ScheduledPostRow | undefined> {
  return await db.select().from(scheduledPosts).where(eq(scheduledPosts.id, id)).get();
}

export async function findScheduledPostWithAuthor(db: Db, id: string): Promise<ScheduledPostWithAuthor | undefined> {
  return await db
    .select({ post: scheduledPosts, author: authorColumns, editor: editorColumns })
    .from(scheduledPosts)
    .leftJoin(users, eq(users.id, scheduledPosts.authorId))
    .leftJoin(editors, eq(editors.id, scheduledPosts.editedBy))
    .where(eq(scheduledPosts.id, id))
    .get();
}

export async function insertScheduledPost(db: Db, row: NewScheduledPostRow): Promise<void> {
  await db.insert(scheduledPosts).values(row).run();
}

export async function updateScheduledPost(
  db: Db,
  id: string,
  changes: Partial<Omit<ScheduledPostRow, 'id' | 'authorId' | 'createdAt' | 'writtenAt'>>,
): Promise<void> {
  await db.update(scheduledPosts).set(changes).where(eq(scheduledPosts.id, id)).run();
}

/** Removes a scheduled post; false when there was none (already published or cancelled). */
export async function deleteScheduledPost(db: Db, id: string): Promise<boolean> {
  return (await db.delete(scheduledPosts).where(eq(scheduledPosts.id, id)).run()).changes === 1;
}

/** Scheduled posts with their authors, soonest first: one author's, or everyone's when `authorId` is null. */
export async function listScheduledPosts(db: Db, authorId: string | null): Promise<ScheduledPostWithAuthor[]> {
  return await db
    .select({ post: scheduledPosts, author: authorColumns, editor: editorColumns })
    .from(scheduledPosts)
    .leftJoin(users, eq(users.id, scheduledPosts.authorId))
    .leftJoin(editors, eq(editors.id, scheduledPosts.editedBy))
    .where(authorId === null ? sql`1 = 1` : eq(scheduledPosts.authorId, authorId))
    .orderBy(asc(scheduledPosts.publishAt), asc(scheduledPosts.id))
    .all();
}

/** The ids of scheduled posts whose time has come, soonest first. */
export async function listDueScheduledPosts(db: Db, now: number, limit: number): Promise<string[]> {
  return (
    await db
      .select({ id: scheduledPosts.id })
      .from(scheduledPosts)
      .where(lte(scheduledPosts.publishAt, now))
      .orderBy(asc(scheduledPosts.publishAt), asc(scheduledPosts.id))
      .limit(limit)
      .all()
  ).map((row) => row.id);
}

/**
 * Moves a scheduled post into the feed at `at`, in one transaction: it takes the next sequence and `at` as its
 * `createdAt`. False when it is no longer scheduled, so a post is published once however the checks overlap.
 */
export async function publishScheduledPostRow(db: Db, id: string, at: number): Promise<boolean> {
  return await transaction(db, async (db) => {
    const row = await findScheduledPost(db, id);
    if (!row || !(await deleteScheduledPost(db, id))) return false;
    const { publishAt: _, ...post } = row;
    await insertPost(db, {
      ...post,
      createdAt: at,
      writtenAt: Math.min(row.writtenAt, at),
      updatedAt: at,
      deleted: false,
    });
    return true;
  });
}

/** The picture and attachment lists of an author's other scheduled posts: files of theirs still in use. */
export function listFilesOfOtherScheduledPosts(db: Db, authorId: string, exceptId: string) {
  return db
    .select({ images: scheduledPosts.images, attachments: scheduledPosts.attachments })
    .from(scheduledPosts)
    .where(and(eq(scheduledPosts.authorId, authorId), sql`${scheduledPosts.id} <> ${exceptId}`))
    .all();
}
