import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { comments, posts, reactions, users } from '../../db/tables';
import { nextSeq } from '../../lib/seq.queries';

export type PostRow = typeof posts.$inferSelect;
export type NewPostRow = Omit<typeof posts.$inferInsert, 'serverSeq'>;

/** The author columns a post or comment shows; all null once the account is deleted. */
export const authorColumns = {
  id: users.id,
  firstName: users.firstName,
  lastName: users.lastName,
  role: users.role,
  profileImageUrl: users.profileImageUrl,
};

export interface AuthorRow {
  id: string | null;
  firstName: string | null;
  lastName: string | null;
  role: 'staff' | 'admin' | 'system_admin' | null;
  profileImageUrl: string | null;
}

export interface PostWithAuthor {
  post: PostRow;
  author: AuthorRow | null;
}

export function findPost(db: Db, id: string): PostRow | undefined {
  return db.select().from(posts).where(eq(posts.id, id)).get();
}

export function insertPost(db: Db, row: NewPostRow): void {
  db.transaction(() => {
    db.insert(posts)
      .values({ ...row, serverSeq: nextSeq(db) })
      .run();
  });
}

export function updatePost(
  db: Db,
  id: string,
  changes: Pick<PostRow, 'content' | 'category' | 'isUrgent' | 'houseTags' | 'updatedAt'>,
): void {
  db.transaction(() => {
    db.update(posts)
      .set({ ...changes, serverSeq: nextSeq(db) })
      .where(eq(posts.id, id))
      .run();
  });
}

/** Tombstones a post with its comments and reactions, in one transaction at one sequence. */
export function markPostDeleted(db: Db, id: string, at: number): void {
  db.transaction(() => {
    const serverSeq = nextSeq(db);
    db.update(posts).set({ deleted: true, updatedAt: at, serverSeq }).where(eq(posts.id, id)).run();
    db.update(comments)
      .set({ deleted: true, updatedAt: at, serverSeq })
      .where(and(eq(comments.postId, id), eq(comments.deleted, false)))
      .run();
    db.update(reactions)
      .set({ deleted: true, updatedAt: at, serverSeq })
      .where(and(eq(reactions.postId, id), eq(reactions.deleted, false)))
      .run();
  });
}

/**
 * Before an account is deleted: its posts and comments move up the change feed (their author becomes null by
 * the foreign key) and its reactions become tombstones, so every client learns of both.
 */
export function releaseAuthor(db: Db, userId: string, at: number): void {
  db.transaction(() => {
    const serverSeq = nextSeq(db);
    db.update(posts).set({ serverSeq }).where(eq(posts.authorId, userId)).run();
    db.update(comments).set({ serverSeq }).where(eq(comments.authorId, userId)).run();
    db.update(reactions)
      .set({ deleted: true, updatedAt: at, serverSeq })
      .where(and(eq(reactions.userId, userId), eq(reactions.deleted, false)))
      .run();
  });
}

/**
 * One page of live posts, newest first, with their authors; `before` is the last post of the previous page.
 * With categories, each stored value is read along its own index in order (one query per value, at most two:
 * a category and its legacy alias) and the pages merged, rather than sorting every post of the category.
 */
export function listPostPage(
  db: Db,
  options: { limit: number; before?: { createdAt: number; id: string }; categories?: string[] },
): PostWithAuthor[] {
  const page = (category?: string) => {
    const where: SQL[] = [eq(posts.deleted, false)];
    if (category !== undefined) where.push(eq(posts.category, category));
    if (options.before) {
      where.push(sql`(${posts.createdAt}, ${posts.id}) < (${options.before.createdAt}, ${options.before.id})`);
    }
    return db
      .select({ post: posts, author: authorColumns })
      .from(posts)
      .leftJoin(users, eq(users.id, posts.authorId))
      .where(and(...where))
      .orderBy(desc(posts.createdAt), desc(posts.id))
      .limit(options.limit)
      .all();
  };
  if (!options.categories) return page();
  const newestFirst = (a: PostWithAuthor, b: PostWithAuthor) =>
    b.post.createdAt - a.post.createdAt || (a.post.id < b.post.id ? 1 : a.post.id > b.post.id ? -1 : 0);
  return options.categories
    .flatMap((category) => page(category))
    .sort(newestFirst)
    .slice(0, options.limit);
}

export function findPostWithAuthor(db: Db, id: string): PostWithAuthor | undefined {
  return db
    .select({ post: posts, author: authorColumns })
    .from(posts)
    .leftJoin(users, eq(users.id, posts.authorId))
    .where(eq(posts.id, id))
    .get();
}

/** Live reaction counts per post and type, with whether the viewer is among them: one grouped query. */
export function countReactions(db: Db, postIds: string[], viewerId: string) {
  if (postIds.length === 0) return [];
  return db
    .select({
      postId: reactions.postId,
      type: reactions.type,
      n: sql<number>`count(*)`,
      mine: sql<number>`max(${reactions.userId} = ${viewerId})`,
    })
    .from(reactions)
    .where(and(inArray(reactions.postId, postIds), eq(reactions.deleted, false)))
    .groupBy(reactions.postId, reactions.type)
    .all();
}

/** Live comment counts per post: one grouped query. */
export function countComments(db: Db, postIds: string[]) {
  if (postIds.length === 0) return [];
  return db
    .select({ postId: comments.postId, n: sql<number>`count(*)` })
    .from(comments)
    .where(and(inArray(comments.postId, postIds), eq(comments.deleted, false)))
    .groupBy(comments.postId)
    .all();
}

/** Posts (live and tombstones) changed after a checkpoint, in change-feed order. */
export function listPostsSince(db: Db, seq: number, id: string, limit: number): PostRow[] {
  return db
    .select()
    .from(posts)
    .where(sql`(${posts.serverSeq}, ${posts.id}) > (${seq}, ${id})`)
    .orderBy(asc(posts.serverSeq), asc(posts.id))
    .limit(limit)
    .all();
}

/** Live posts at or below `until`, newest change first, before a backfill position (docs/sync.md). */
export function listPostsBefore(
  db: Db,
  until: number,
  before: { seq: number; id: string } | undefined,
  limit: number,
): PostRow[] {
  const position = before ? sql`(${posts.serverSeq}, ${posts.id}) < (${before.seq}, ${before.id})` : sql`1 = 1`;
  return db
    .select()
    .from(posts)
    .where(and(sql`${posts.serverSeq} <= ${until}`, position, eq(posts.deleted, false)))
    .orderBy(desc(posts.serverSeq), desc(posts.id))
    .limit(limit)
    .all();
}
