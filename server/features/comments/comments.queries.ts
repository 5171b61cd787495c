import { and, asc, eq, sql } from 'drizzle-orm';
import { preparedFor, type Db, transaction } from '../../db/client';
import { comments, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type CommentRow = typeof comments.$inferSelect;
/** `writtenAt` is required: its column's default (0) is only for the rows stored before it existed. */
export type NewCommentRow = Omit<typeof comments.$inferInsert, 'serverSeq' | 'writtenAt'> & { writtenAt: number };

const authorColumns = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  profileImageUrl: users.profileImageUrl,
};

/** Read for every pushed comment (its master), so prepared once per database (decision 78). */
const findCommentQuery = preparedFor((db) =>
  db
    .select()
    .from(comments)
    .where(eq(comments.id, sql.placeholder('id')))
    .prepare(),
);

export async function findComment(db: Db, id: string): Promise<CommentRow | undefined> {
  return await findCommentQuery(db).get({ id });
}

const insertCommentQuery = preparedFor((db) =>
  db
    .insert(comments)
    .values({
      id: sql.placeholder('id'),
      postId: sql.placeholder('postId'),
      authorId: sql.placeholder('authorId'),
      content: sql.placeholder('content'),
      createdAt: sql.placeholder('createdAt'),
      writtenAt: sql.placeholder('writtenAt'),
      updatedAt: sql.placeholder('updatedAt'),
      mentions: sql.placeholder('mentions'),
      deleted: sql.placeholder('deleted'),
      serverSeq: sql.placeholder('serverSeq'),
    })
    .prepare(),
);

/** A new comment at the next sequence; prepared, as a push of offline comments inserts many in a row. */
export async function insertComment(db: Db, row: NewCommentRow): Promise<void> {
  await transaction(db, async (db) => {
    await insertCommentQuery(db).run({
      authorId: null,
      mentions: '[]',
      deleted: false,
      ...row,
      serverSeq: await nextSeq(db),
    });
  });
}

/** Tombstones a comment; its words are erased, not only hidden (decision 126). */
export async function markCommentDeleted(db: Db, id: string, at: number): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .update(comments)
      .set({ deleted: true, updatedAt: at, serverSeq: await nextSeq(db), content: '', mentions: '[]' })
      .where(eq(comments.id, id))
      .run();
  });
}

/** A post's live comments, oldest first, with their authors. */
export function listCommentsOfPost(db: Db, postId: string) {
  return db
    .select({ comment: comments, author: authorColumns })
    .from(comments)
    .leftJoin(users, eq(users.id, comments.authorId))
    .where(and(eq(comments.postId, postId), eq(comments.deleted, false)))
    .orderBy(asc(comments.createdAt), asc(comments.id))
    .all();
}

export function findCommentWithAuthor(db: Db, id: string) {
  return db
    .select({ comment: comments, author: authorColumns })
    .from(comments)
    .leftJoin(users, eq(users.id, comments.authorId))
    .where(eq(comments.id, id))
    .get();
}

/** Comments (live and tombstones) changed after a checkpoint, in change-feed order. */
export async function listCommentsSince(db: Db, seq: number, id: string, limit: number): Promise<CommentRow[]> {
  return await db
    .select()
    .from(comments)
    .where(sql`(${comments.serverSeq}, ${comments.id}) > (${seq}, ${id})`)
    .orderBy(asc(comments.serverSeq), asc(comments.id))
    .limit(limit)
    .all();
}
