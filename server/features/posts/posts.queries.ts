import { and, asc, desc, eq, inArray, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { jsonValues, preparedFor, statement, type Db, type Statement, transaction } from '../../db/client';
import { comments, posts, reactions, syncDeviceStates, users } from '../../db/tables';
import { reactionId } from '../../../schema/sync';
import { nextSeq } from '../../lib/seq.queries';

export type PostRow = typeof posts.$inferSelect;
/** `writtenAt` is required: its column's default (0) is only for the rows stored before it existed. */
export type NewPostRow = Omit<typeof posts.$inferInsert, 'serverSeq' | 'writtenAt'> & { writtenAt: number };

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

/** Who edited a post when not its author (decision 126); all null once that account is deleted. */
export interface EditorRow {
  id: string | null;
  firstName: string | null;
  lastName: string | null;
}

export interface PostWithAuthor {
  post: PostRow;
  author: AuthorRow | null;
  editor: EditorRow | null;
}

const editors = alias(users, 'editor');
const editorColumns = { id: editors.id, firstName: editors.firstName, lastName: editors.lastName };

/** Read for every pushed post (its master), so prepared once per database (decision 78). */
const findPostQuery = preparedFor((db) =>
  db
    .select()
    .from(posts)
    .where(eq(posts.id, sql.placeholder('id')))
    .prepare(),
);

export async function findPost(db: Db, id: string): Promise<PostRow | undefined> {
  return await findPostQuery(db).get({ id });
}

const insertPostQuery = preparedFor((db) =>
  db
    .insert(posts)
    .values({
      id: sql.placeholder('id'),
      authorId: sql.placeholder('authorId'),
      content: sql.placeholder('content'),
      category: sql.placeholder('category'),
      isUrgent: sql.placeholder('isUrgent'),
      houseTags: sql.placeholder('houseTags'),
      audienceHouses: sql.placeholder('audienceHouses'),
      images: sql.placeholder('images'),
      attachments: sql.placeholder('attachments'),
      createdAt: sql.placeholder('createdAt'),
      writtenAt: sql.placeholder('writtenAt'),
      updatedAt: sql.placeholder('updatedAt'),
      editedBy: sql.placeholder('editedBy'),
      requiresConfirmation: sql.placeholder('requiresConfirmation'),
      confirmBy: sql.placeholder('confirmBy'),
      mentions: sql.placeholder('mentions'),
      deleted: sql.placeholder('deleted'),
      serverSeq: sql.placeholder('serverSeq'),
    })
    .prepare(),
);

/** A new post at the next sequence; prepared, as a push of offline posts inserts many in a row. */
export async function insertPost(db: Db, row: NewPostRow): Promise<void> {
  await transaction(db, async (db) => {
    await insertPostQuery(db).run({
      authorId: null,
      audienceHouses: '[]',
      houseTags: '[]',
      images: '[]',
      attachments: '[]',
      editedBy: null,
      requiresConfirmation: false,
      confirmBy: null,
      mentions: '[]',
      deleted: false,
      ...row,
      serverSeq: await nextSeq(db),
    });
  });
}

export async function updatePost(
  db: Db,
  id: string,
  changes: Pick<
    PostRow,
    | 'content'
    | 'category'
    | 'isUrgent'
    | 'houseTags'
    | 'audienceHouses'
    | 'updatedAt'
    | 'editedBy'
    | 'requiresConfirmation'
    | 'confirmBy'
    | 'mentions'
  >,
): Promise<void> {
  await transaction(db, async (db) => {
    await db
      .update(posts)
      .set({ ...changes, serverSeq: await nextSeq(db) })
      .where(eq(posts.id, id))
      .run();
  });
}

/**
 * Tombstones a post with its comments and reactions, in one transaction at one sequence. What was written is
 * erased, not only hidden: the tombstone keeps its id, author and times, and the states devices last pushed of
 * it go too (decision 126).
 */
export async function markPostDeleted(db: Db, id: string, at: number): Promise<void> {
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    await db
      .update(posts)
      .set({
        deleted: true,
        updatedAt: at,
        serverSeq,
        content: '',
        houseTags: '[]',
        audienceHouses: '[]',
        images: '[]',
        attachments: '[]',
        mentions: '[]',
      })
      .where(eq(posts.id, id))
      .run();
    await db
      .delete(syncDeviceStates)
      .where(and(eq(syncDeviceStates.collection, 'posts'), eq(syncDeviceStates.docId, id)))
      .run();
    await db
      .update(comments)
      .set({ deleted: true, updatedAt: at, serverSeq, content: '' })
      .where(and(eq(comments.postId, id), eq(comments.deleted, false)))
      .run();
    await db
      .update(reactions)
      .set({ deleted: true, updatedAt: at, serverSeq })
      .where(and(eq(reactions.postId, id), eq(reactions.deleted, false)))
      .run();
  });
}

/**
 * Before an account is deleted: its posts and comments move up the change feed (their author becomes null by
 * the foreign key) and its reactions become tombstones, so every client learns of both; so do the posts it
 * reacted to, which carry its reactions.
 */
export async function releaseAuthor(db: Db, userId: string, at: number): Promise<void> {
  await transaction(db, async (db) => {
    const serverSeq = await nextSeq(db);
    // Posts they edited name them as editor (decision 126): the foreign key forgets them, so those move up too.
    await db
      .update(posts)
      .set({ serverSeq })
      .where(or(eq(posts.authorId, userId), eq(posts.editedBy, userId)))
      .run();
    // The posts they reacted to carry their reactions (docs/sync.md): those move up the feed too.
    await db
      .update(posts)
      .set({ serverSeq })
      .where(
        inArray(
          posts.id,
          db
            .select({ postId: reactions.postId })
            .from(reactions)
            .where(and(eq(reactions.userId, userId), eq(reactions.deleted, false))),
        ),
      )
      .run();
    await db.update(comments).set({ serverSeq }).where(eq(comments.authorId, userId)).run();
    await db
      .update(reactions)
      .set({ deleted: true, updatedAt: at, serverSeq })
      .where(and(eq(reactions.userId, userId), eq(reactions.deleted, false)))
      .run();
  });
}

/**
 * The feed page's queries (GET /api/posts, the busiest call), prepared once per database and read without the
 * query builder: building the SQL, compiling it and mapping rows on every request cost more than running it
 * (bench/posts-api.ts: 1.9 ms down to 0.8 ms of CPU per page of 50 on 100k posts). Lists of post ids are bound
 * as one JSON array, so one statement serves any page size.
 */
function prepareFeedQueries(db: Db) {
  const ids = `(SELECT value FROM ${jsonValues(db, '?')})`;
  const page = (withCategory: boolean, withCursor: boolean) =>
    statement<Record<string, unknown>, FeedPageRow>(
      db,
      `SELECT p.id, p.author_id, p.content, p.category, p.is_urgent, p.house_tags, p.images, p.attachments,
                p.created_at, p.updated_at, p.deleted, p.server_seq,
                u.id AS user_id, u.first_name, u.last_name, u.role, u.profile_image_url, p.audience_houses,
                p.written_at, p.edited_by, e.first_name, e.last_name, p.requires_confirmation, p.confirm_by,
                p.mentions
         FROM posts p LEFT JOIN users u ON u.id = p.author_id LEFT JOIN users e ON e.id = p.edited_by
         WHERE p.deleted = FALSE ${withCategory ? 'AND p.category = @category' : ''}
           ${withCursor ? 'AND (p.created_at, p.id) < (@createdAt, @id)' : ''}
         ORDER BY p.created_at DESC, p.id DESC LIMIT @limit`,
    );
  return {
    pages: [page(false, false), page(false, true), page(true, false), page(true, true)],
    reactionCounts: statement<[string, string], { postId: string; type: string; n: number; mine: number }>(
      db,
      `SELECT post_id AS "postId", type, count(*) AS n, max(CASE WHEN user_id = ? THEN 1 ELSE 0 END) AS mine
       FROM reactions WHERE post_id IN ${ids} AND deleted = FALSE GROUP BY post_id, type`,
    ),
    /** By primary key, one statement per page size: bound ids are cheaper here than a JSON list to parse. */
    viewerReactions: new Map<number, Statement<string[], { postId: string; type: string }>>(),
    liveReactions: statement<[string], { postId: string; userId: string; type: string }>(
      db,
      `SELECT post_id AS "postId", user_id AS "userId", type FROM reactions
       WHERE post_id IN ${ids} AND deleted = FALSE AND user_id IS NOT NULL
       ORDER BY created_at, id`,
    ),
    commentCounts: statement<[string], { postId: string; n: number }>(
      db,
      `SELECT post_id AS "postId", count(*) AS n FROM comments
       WHERE post_id IN ${ids} AND deleted = FALSE GROUP BY post_id`,
    ),
  };
}

/** A feed page row in raw (array) mode, the columns in the SELECT's order: cheaper than one object per row. */
type FeedPageRow = [
  id: string,
  authorId: string | null,
  content: string,
  category: string,
  isUrgent: number,
  houseTags: string,
  images: string,
  attachments: string,
  createdAt: number,
  updatedAt: number,
  deleted: number,
  serverSeq: number,
  userId: string | null,
  firstName: string | null,
  lastName: string | null,
  role: AuthorRow['role'],
  profileImageUrl: string | null,
  audienceHouses: string,
  writtenAt: number,
  editedBy: string | null,
  editorFirstName: string | null,
  editorLastName: string | null,
  requiresConfirmation: number,
  confirmBy: string | null,
  mentions: string,
];

function toPostWithAuthor(r: FeedPageRow): PostWithAuthor {
  return {
    post: {
      id: r[0],
      authorId: r[1],
      content: r[2],
      category: r[3],
      isUrgent: r[4] === 1,
      houseTags: r[5],
      audienceHouses: r[17],
      images: r[6],
      attachments: r[7],
      createdAt: r[8],
      writtenAt: r[18],
      updatedAt: r[9],
      editedBy: r[19],
      requiresConfirmation: r[22] === 1,
      confirmBy: r[23],
      mentions: r[24],
      deleted: r[10] === 1,
      serverSeq: r[11],
    },
    author:
      r[12] === null ? null : { id: r[12], firstName: r[13], lastName: r[14], role: r[15], profileImageUrl: r[16] },
    editor: r[19] === null ? null : { id: r[19], firstName: r[20], lastName: r[21] },
  };
}

const feedQueriesOf = preparedFor(prepareFeedQueries);

/**
 * One page of live posts, newest first, with their authors; `before` is the last post of the previous page.
 * With categories, each stored value is read along its own index in order (one query per value, at most two:
 * a category and its legacy alias) and the pages merged, rather than sorting every post of the category.
 */
export async function listPostPage(
  db: Db,
  options: { limit: number; before?: { createdAt: number; id: string }; categories?: string[] },
): Promise<PostWithAuthor[]> {
  const { pages } = feedQueriesOf(db);
  const { before, limit } = options;
  const page = async (category?: string): Promise<PostWithAuthor[]> => {
    const query = pages[(category === undefined ? 0 : 2) + (before ? 1 : 0)];
    // better-sqlite3 refuses named parameters that the statement does not use.
    const params: Record<string, unknown> = { limit };
    if (category !== undefined) params.category = category;
    if (before) Object.assign(params, before);
    return ((await query.rows(params)) as FeedPageRow[]).map(toPostWithAuthor);
  };
  if (!options.categories) return page();
  const newestFirst = (a: PostWithAuthor, b: PostWithAuthor) =>
    b.post.createdAt - a.post.createdAt || (a.post.id < b.post.id ? 1 : a.post.id > b.post.id ? -1 : 0);
  return (await Promise.all(options.categories.map((category) => page(category))))
    .flat()
    .sort(newestFirst)
    .slice(0, limit);
}

export async function findPostWithAuthor(db: Db, id: string): Promise<PostWithAuthor | undefined> {
  return await db
    .select({ post: posts, author: authorColumns, editor: editorColumns })
    .from(posts)
    .leftJoin(users, eq(users.id, posts.authorId))
    .leftJoin(editors, eq(editors.id, posts.editedBy))
    .where(eq(posts.id, id))
    .get();
}

/** Live reaction counts per post and type, with whether the viewer is among them: one grouped query. */
export async function countReactions(db: Db, postIds: string[], viewerId: string) {
  if (postIds.length === 0) return [];
  return feedQueriesOf(db).reactionCounts.all([viewerId, JSON.stringify(postIds)]);
}

/** The viewer's own live reactions to these posts, by primary key (`postId:userId`). */
export async function findViewerReactions(db: Db, postIds: string[], viewerId: string) {
  if (postIds.length === 0) return [];
  const { viewerReactions } = feedQueriesOf(db);
  let byIds = viewerReactions.get(postIds.length);
  if (!byIds) {
    const slots = postIds.map(() => '?').join(',');
    byIds = statement<string[], { postId: string; type: string }>(
      db,
      `SELECT post_id AS "postId", type FROM reactions WHERE id IN (${slots}) AND deleted = FALSE`,
    );
    viewerReactions.set(postIds.length, byIds);
  }
  return byIds.all(postIds.map((postId) => reactionId(postId, viewerId)));
}

/**
 * The live reactions to these posts, each post's in the order they were chosen: what the post documents carry
 * (docs/sync.md). One statement whatever the number of posts (the ids are bound as one JSON list).
 */
export async function listLiveReactions(db: Db, postIds: string[]) {
  if (postIds.length === 0) return [];
  return feedQueriesOf(db).liveReactions.all([JSON.stringify(postIds)]);
}

/** Live comment counts per post: one grouped query. */
export async function countComments(db: Db, postIds: string[]) {
  if (postIds.length === 0) return [];
  return feedQueriesOf(db).commentCounts.all([JSON.stringify(postIds)]);
}

/** Posts (live and tombstones) changed after a checkpoint, in change-feed order. */
export async function listPostsSince(db: Db, seq: number, id: string, limit: number): Promise<PostRow[]> {
  return await db
    .select()
    .from(posts)
    .where(sql`(${posts.serverSeq}, ${posts.id}) > (${seq}, ${id})`)
    .orderBy(asc(posts.serverSeq), asc(posts.id))
    .limit(limit)
    .all();
}

/** Live posts at or below `until`, newest change first, before a backfill position (docs/sync.md). */
export async function listPostsBefore(
  db: Db,
  until: number,
  before: { seq: number; id: string } | undefined,
  limit: number,
): Promise<PostRow[]> {
  const position = before ? sql`(${posts.serverSeq}, ${posts.id}) < (${before.seq}, ${before.id})` : sql`1 = 1`;
  return await db
    .select()
    .from(posts)
    .where(and(sql`${posts.serverSeq} <= ${until}`, position, eq(posts.deleted, false)))
    .orderBy(desc(posts.serverSeq), desc(posts.id))
    .limit(limit)
    .all();
}

/** The picture and attachment lists of an author's other live posts: files of theirs still in use. */
export function listFilesOfOtherPosts(db: Db, authorId: string, exceptId: string) {
  return db
    .select({ images: posts.images, attachments: posts.attachments })
    .from(posts)
    .where(and(eq(posts.authorId, authorId), eq(posts.deleted, false), sql`${posts.id} <> ${exceptId}`))
    .all();
}
