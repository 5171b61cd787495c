import { randomUUID } from 'node:crypto';
import { listHouses } from '../../../schema/constants';
import { CONFIRM_MESSAGES } from '../../../schema/confirmations';
import { canEditPost, canRequireConfirmation } from '../../../schema/permissions';
import {
  categoryValues,
  DELETED_AUTHOR,
  keptAudienceHouses,
  keptHouseTags,
  POST_MESSAGES,
  REACTION_TYPES,
  type Attachment,
  type CreatePostBody,
  type ListPostsQuery,
  type PostAuthor,
  type PostView,
  type ReactionType,
  type ScheduledPostView,
  type UpdatePostBody,
  SCHEDULE_AHEAD_MAX_DAYS,
} from '../../../schema/posts';
import { LIMITS } from '../../../schema/constants';
import type { PostDoc, PostReactions } from '../../../schema/sync';
import { UPLOAD_MESSAGES } from '../../../schema/uploads';
import { uploadIdFromUrl } from '../../../schema/upload-rules';
import { inTransaction } from '../../db/client';
import type { AppDeps, RequestMeta, SessionUser } from '../../lib/context';
import { badRequest, conflict, forbidden, notFound } from '../../lib/errors';
import { currentSeq } from '../../lib/seq.queries';
import { boundWrittenAt } from '../../lib/written-at';
import { announcePost, syncAlertAudience } from '../alerts/alerts.service';
import { recordAudit, textFingerprint } from '../audit/audit.service';
import { viewerConfirmations } from '../confirmations/confirmations.service';
import { accountCreatedAt } from '../users/users.service';
import { keptMentions, notifyMentions, withdrawMentions } from '../mentions/mentions.service';
import {
  checkFiles,
  discardUploads,
  forgetUploads,
  removeForgottenFiles,
  resolvePostFiles,
  saveFiles,
} from '../uploads/uploads.service';
import {
  countComments,
  countReactions,
  findPost,
  findViewerReactions,
  findPostWithAuthor,
  insertPost,
  listFilesOfOtherPosts,
  listLiveReactions,
  listPostPage,
  listPostsSince,
  listPostsBefore,
  markPostDeleted,
  releaseAuthor,
  updatePost,
  type AuthorRow,
  type EditorRow,
  type PostRow,
  type PostWithAuthor,
} from './posts.queries';
import {
  deleteScheduledPost,
  findScheduledPost,
  findScheduledPostWithAuthor,
  insertScheduledPost,
  listFilesOfOtherScheduledPosts,
  publishScheduledPostRow,
  updateScheduledPost,
  type ScheduledPostRow,
  type ScheduledPostWithAuthor,
} from './scheduled-posts.queries';

/** A JSON list column; anything unreadable counts as empty. */
export function parseList<T>(text: string): T[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

/** The author as shown; a deleted account is "Deleted user" (decision 9). */
export function toAuthor(row: AuthorRow | null): PostAuthor {
  if (!row?.id) return { id: null, ...DELETED_AUTHOR, role: null, profileImageUrl: null };
  return {
    id: row.id,
    firstName: row.firstName ?? '',
    lastName: row.lastName ?? '',
    role: row.role,
    profileImageUrl: row.profileImageUrl ?? null,
  };
}

/** Who edited a post when not its author, as the card names them; a deleted account names no one. */
function toEditor(row: EditorRow | null): PostView['editedBy'] {
  return row?.id ? { id: row.id, firstName: row.firstName ?? '', lastName: row.lastName ?? '' } : null;
}

/** The live post with this id, or 404. */
export async function requirePost(deps: AppDeps, id: string): Promise<PostRow> {
  const post = await findPost(deps.db, id);
  return post && !post.deleted ? post : notFound(POST_MESSAGES.postNotFound);
}

/** Turns posts with authors into PostViews with counts, in two more queries whatever the number of posts. */
async function toViews(deps: AppDeps, viewerId: string, rows: PostWithAuthor[]): Promise<PostView[]> {
  const ids = rows.map((r) => r.post.id);
  const counts = new Map<string, { reactionCounts: PostView['reactionCounts']; userReaction: ReactionType | null }>();
  for (const row of await countReactions(deps.db, ids, viewerId)) {
    const entry = counts.get(row.postId) ?? { reactionCounts: {}, userReaction: null };
    const type = row.type as ReactionType;
    if ((REACTION_TYPES as readonly string[]).includes(type)) entry.reactionCounts[type] = row.n;
    if (row.mine) entry.userReaction = type;
    counts.set(row.postId, entry);
  }
  const comments = new Map((await countComments(deps.db, ids)).map((row) => [row.postId, row.n]));
  const confirmed = await viewerConfirmations(
    deps,
    viewerId,
    rows.filter((r) => r.post.requiresConfirmation).map((r) => r.post.id),
  );
  return rows.map((row) => ({
    ...postFieldsOf(row),
    confirmedAt: confirmed.get(row.post.id) ?? null,
    reactionCounts: counts.get(row.post.id)?.reactionCounts ?? {},
    userReaction: counts.get(row.post.id)?.userReaction ?? null,
    commentCount: comments.get(row.post.id) ?? 0,
  }));
}

/** What a PostView says of the post itself, the same for a published and a scheduled one; the viewer's part apart. */
function postFieldsOf({ post, author, editor }: PostWithAuthor | ScheduledPostWithAuthor) {
  return {
    id: post.id,
    content: post.content,
    category: post.category,
    isUrgent: post.isUrgent,
    houseTags: parseList<string>(post.houseTags),
    audienceHouses: parseList<string>(post.audienceHouses),
    images: parseList<string>(post.images),
    attachments: parseList<Attachment>(post.attachments),
    requiresConfirmation: post.requiresConfirmation,
    confirmBy: post.confirmBy,
    createdAt: new Date(post.createdAt).toISOString(),
    writtenAt: new Date(post.writtenAt).toISOString(),
    author: toAuthor(author),
    editedBy: toEditor(editor),
    mentions: parseList<string>(post.mentions),
  };
}

/** One post as the viewer sees it. */
export async function loadPostView(deps: AppDeps, id: string, viewerId: string): Promise<PostView> {
  const row = await findPostWithAuthor(deps.db, id);
  if (!row || row.post.deleted) return notFound(POST_MESSAGES.postNotFound);
  return (await toViews(deps, viewerId, [row]))[0];
}

/** Whether the stored post requires confirmation (decision 136). */
export async function requiresConfirmation(deps: AppDeps, id: string): Promise<boolean> {
  return (await findPost(deps.db, id))?.requiresConfirmation ?? false;
}

/** The cursor is opaque to clients: the (createdAt, id) of the last post of the page, base64url JSON. */
function encodeCursor(post: PostRow): string {
  return Buffer.from(JSON.stringify([post.createdAt, post.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && Number.isInteger(value[0]) && typeof value[1] === 'string') {
      return { createdAt: value[0] as number, id: value[1] };
    }
  } catch {
    // falls through to the 400 below
  }
  return badRequest(POST_MESSAGES.invalidCursor);
}

/**
 * GET /api/posts: live posts newest first, a page at a time, optionally one category (legacy values
 * included). Three queries per page, whatever its size: posts with authors, reaction counts, comment counts.
 */
export async function listPosts(
  deps: AppDeps,
  viewer: SessionUser,
  query: ListPostsQuery,
): Promise<{ posts: PostView[]; nextCursor: string | null }> {
  return await postPage(deps, viewer.id, query);
}

async function postPage(deps: AppDeps, viewerId: string, query: ListPostsQuery) {
  const rows = await listPostPage(deps.db, {
    limit: query.limit + 1,
    before: query.cursor ? decodeCursor(query.cursor) : undefined,
    categories: query.category ? categoryValues(query.category) : undefined,
  });
  const page = rows.slice(0, query.limit);
  const nextCursor = rows.length > query.limit ? encodeCursor(page[page.length - 1].post) : null;
  return { posts: await toViews(deps, viewerId, page), nextCursor };
}

/**
 * A feed page as every viewer shares it: each post's JSON without its closing brace, to add the viewer's own
 * `confirmedAt` and `userReaction`.
 */
interface SharedPage {
  ids: string[];
  /** The page's posts that require confirmation: only those can carry the viewer's `confirmedAt`. */
  confirmIds: Set<string>;
  parts: string[];
  nextCursor: string | null;
  /** Finished answers by viewer id, encoded: a reader asking again before the next write costs no query. */
  answers: Map<string, Uint8Array<ArrayBuffer>>;
}

const utf8 = new TextEncoder();

/** Finished answers kept per page, at most (dropped together when full, and all on the next write). */
const ANSWERS_PER_PAGE_MAX = 500;

/**
 * Pages kept per database, and the bytes they may hold with their answers; all dropped as soon as anything is
 * written (the sync sequence moves), or when either bound is reached. Any cursor makes a page, so without the
 * byte bound one reader asking for made-up cursors could fill the server's memory.
 */
const PAGE_CACHE_MAX = 200;
const PAGE_CACHE_MAX_BYTES = 32 * 1024 * 1024;

interface PageCache {
  seq: number;
  pages: Map<string, SharedPage>;
  bytes: number;
}
const pageCaches = new WeakMap<AppDeps['db'], PageCache>();

/** Counts `bytes` more against the cache, dropping every page first when they would not fit. */
function spend(cache: PageCache, bytes: number): void {
  if (cache.bytes + bytes > PAGE_CACHE_MAX_BYTES) {
    cache.pages.clear();
    cache.bytes = 0;
  }
  cache.bytes += bytes;
}

/** What the feed's page cache holds now, in bytes, counted page by page (for tests). */
export function feedCacheBytes(deps: AppDeps): number {
  let bytes = 0;
  for (const page of pageCaches.get(deps.db)?.pages.values() ?? []) {
    for (const part of page.parts) bytes += Buffer.byteLength(part);
    for (const answer of page.answers.values()) bytes += answer.byteLength;
  }
  return bytes;
}

async function sharedPage(deps: AppDeps, query: ListPostsQuery): Promise<{ cache: PageCache; page: SharedPage }> {
  const seq = await currentSeq(deps.db);
  let cache = pageCaches.get(deps.db);
  if (!cache || cache.seq !== seq) pageCaches.set(deps.db, (cache = { seq, pages: new Map(), bytes: 0 }));
  const key = `${query.category ?? ''}|${query.cursor ?? ''}|${query.limit}`;
  let page = cache.pages.get(key);
  if (!page) {
    // An id no user has: nobody's reaction is "mine" in the shared part.
    const { posts, nextCursor } = await postPage(deps, '', query);
    page = {
      ids: posts.map((post) => post.id),
      confirmIds: new Set(posts.filter((post) => post.requiresConfirmation).map((post) => post.id)),
      parts: posts.map(({ userReaction: _, confirmedAt: __, ...shared }) => JSON.stringify(shared).slice(0, -1)),
      nextCursor,
      answers: new Map(),
    };
    if (cache.pages.size >= PAGE_CACHE_MAX) cache.pages.clear();
    spend(
      cache,
      page.parts.reduce((sum, part) => sum + Buffer.byteLength(part), 0),
    );
    cache.pages.set(key, page);
  }
  return { cache, page };
}

/**
 * GET /api/posts as its JSON body. Every viewer sees the same page but for `confirmedAt` and `userReaction`, so the page is
 * built and encoded once per change of the data (every write that a reader could see takes a new sync
 * sequence number, docs/sync.md) and each request adds only the viewer's own reactions, read by primary key
 * (decision 43). The finished answer is kept per viewer until that next write too. Same answer as
 * `JSON.stringify(listPosts(...).posts)`, `confirmedAt` and `userReaction` moved last.
 */
export async function listPostsJson(
  deps: AppDeps,
  viewer: SessionUser,
  query: ListPostsQuery,
): Promise<{ body: Uint8Array<ArrayBuffer>; nextCursor: string | null }> {
  const { cache, page } = await sharedPage(deps, query);
  let body = page.answers.get(viewer.id);
  if (!body) {
    const mine = new Map((await findViewerReactions(deps.db, page.ids, viewer.id)).map((r) => [r.postId, r.type]));
    const confirmed = await viewerConfirmations(deps, viewer.id, [...page.confirmIds]);
    const posts = page.parts.map((part, i) => {
      const type = mine.get(page.ids[i]);
      const confirmedAt = confirmed.get(page.ids[i]);
      return `${part},"confirmedAt":${confirmedAt === undefined ? 'null' : JSON.stringify(confirmedAt)},"userReaction":${type === undefined ? 'null' : JSON.stringify(type)}}`;
    });
    body = utf8.encode(`[${posts.join(',')}]`);
    if (page.answers.size >= ANSWERS_PER_PAGE_MAX) page.answers.clear();
    spend(cache, body.byteLength);
    page.answers.set(viewer.id, body);
  }
  return { body, nextCursor: page.nextCursor };
}

function checkHouses(deps: AppDeps, houseTags: string[]): void {
  const houses = listHouses(deps.config.orgName);
  const unknown = houseTags.find((tag) => !houses.includes(tag));
  if (unknown !== undefined) badRequest(`Unknown house: ${unknown}`);
}

/** Whether a post with this client id exists: the same author's re-send gets it back, anyone else a 409. */
async function existingPost(deps: AppDeps, actor: SessionUser, id: string | undefined): Promise<boolean> {
  if (!id) return false;
  const existing = (await findPost(deps.db, id)) ?? (await findScheduledPost(deps.db, id));
  if (!existing) return false;
  if (!('deleted' in existing)) {
    if (existing.authorId !== actor.id) conflict('A post with this id already exists');
    return true;
  }
  if (existing.authorId !== actor.id || existing.deleted) conflict('A post with this id already exists');
  return true;
}

/**
 * Creates a post by the signed-in user at the server's time, with the device's time of writing bounded by it and
 * by the author's account (decision 119), and answers its id. A client id lets a post written offline keep its id;
 * sending the same post again returns it instead of making a second one. Pictures and attachments must be the
 * author's own uploads. Sync calls this directly: it sends no view back.
 */
export async function writePost(deps: AppDeps, actor: SessionUser, body: CreatePostBody): Promise<string> {
  // One transaction from the id check to the insert: the same item sent twice at once is stored once.
  return await inTransaction(deps, async (deps) => {
    if (body.id && (await existingPost(deps, actor, body.id))) return body.id;
    if (body.requiresConfirmation && !canRequireConfirmation(actor)) forbidden(CONFIRM_MESSAGES.adminsOnly);
    checkHouses(deps, body.houseTags);
    checkHouses(deps, body.audienceHouses);
    const at = deps.now();
    const publishAt = publishTimeOf(body.publishAt, at);
    const files = await resolvePostFiles(deps, actor, body);
    const id = body.id ?? randomUUID();
    const row = {
      id,
      authorId: actor.id,
      content: body.content,
      category: body.category,
      isUrgent: body.isUrgent,
      houseTags: JSON.stringify(body.houseTags),
      audienceHouses: JSON.stringify(body.audienceHouses),
      images: JSON.stringify(files.images),
      attachments: JSON.stringify(files.attachments),
      mentions: JSON.stringify(await keptMentions(deps, body.mentions)),
      requiresConfirmation: body.requiresConfirmation,
      confirmBy: body.confirmBy,
      createdAt: at,
      writtenAt: boundWrittenAt(body.writtenAt, await accountCreatedAt(deps, actor.id), at),
      updatedAt: at,
    };
    if (publishAt !== null) {
      await insertScheduledPost(deps.db, { ...row, publishAt });
      // In no pull, list or event until published (decision 141): nothing to tell anyone yet.
      return id;
    }
    await insertPost(deps.db, { ...row, deleted: false });
    deps.hub.notify('posts');
    // An urgent post alerts its audience, a Company Announcement is pushed (after this task has finished).
    await announcePost(deps, id);
    await notifyPostMentions(deps, id, []);
    return id;
  });
}

/**
 * A publish time in milliseconds when it is still ahead of `now`, else null: a missing time or one already past
 * (a post written offline and sent late) publishes at once (decision 141).
 */
function publishTimeOf(publishAt: string | null | undefined, now: number): number | null {
  if (publishAt === null || publishAt === undefined) return null;
  const at = Date.parse(publishAt);
  if (Number.isNaN(at)) return badRequest(POST_MESSAGES.invalidPublishAt);
  if (at > now + SCHEDULE_AHEAD_MAX_DAYS * 86_400_000) badRequest(POST_MESSAGES.publishAtTooFar);
  return at > now ? at : null;
}

/** POST /api/posts: writePost, answering the post as its author sees it (a scheduled one with its time). */
export async function createPost(
  deps: AppDeps,
  actor: SessionUser,
  body: CreatePostBody,
): Promise<PostView | ScheduledPostView> {
  return await loadAnyPostView(deps, await writePost(deps, actor, body), actor.id);
}

/** A published post as the viewer sees it, or a scheduled one as its author and admins see it. */
async function loadAnyPostView(deps: AppDeps, id: string, viewerId: string): Promise<PostView | ScheduledPostView> {
  const scheduled = await findScheduledPostWithAuthor(deps.db, id);
  return scheduled ? toScheduledView(scheduled) : loadPostView(deps, id, viewerId);
}

/** A scheduled post as its author and admins see it: nobody has reacted, commented or confirmed yet. */
export function toScheduledView(row: ScheduledPostWithAuthor): ScheduledPostView {
  return {
    ...postFieldsOf(row),
    confirmedAt: null,
    reactionCounts: {},
    userReaction: null,
    commentCount: 0,
    publishAt: new Date(row.post.publishAt).toISOString(),
  };
}

/**
 * Publishes a scheduled post now: it enters the feed with its sequence and today's `createdAt`, and the work of a new
 * post follows (alert, confirmation rows, pushes). False when it was no longer scheduled (decision 141).
 */
export async function publishScheduledPost(deps: AppDeps, id: string): Promise<boolean> {
  if (!(await publishScheduledPostRow(deps.db, id, deps.now()))) return false;
  deps.hub.notify('posts');
  await announcePost(deps, id);
  await notifyPostMentions(deps, id, []);
  return true;
}

/**
 * Tells the people a published post newly mentions (those `before` did not), as its author names them; a scheduled
 * post tells nobody until it is published (decision 144).
 */
async function notifyPostMentions(deps: AppDeps, id: string, before: string[]): Promise<void> {
  const row = await findPostWithAuthor(deps.db, id);
  if (!row || row.post.deleted) return;
  const { post, author } = row;
  const source = {
    postId: id,
    commentId: null,
    authorId: post.authorId,
    authorFirstName: toAuthor(author).firstName,
    audienceHouses: parseList<string>(post.audienceHouses),
  };
  await notifyMentions(deps, source, parseList<string>(post.mentions), before);
}

/** What a comment's mentions need of its post: who may see it (decision 144). */
export async function postAudienceOf(deps: AppDeps, id: string): Promise<string[]> {
  return parseList<string>((await requirePost(deps, id)).audienceHouses);
}

/**
 * POST /api/posts as a multipart form: the files come in the same request. All files are checked before any
 * is stored, and stored files are removed again if the post is then refused.
 */
export async function createPostWithFiles(
  deps: AppDeps,
  actor: SessionUser,
  body: CreatePostBody,
  files: { images: File[]; attachments: File[] },
): Promise<PostView> {
  if (body.id && (await existingPost(deps, actor, body.id))) return await loadAnyPostView(deps, body.id, actor.id);
  if (body.requiresConfirmation && !canRequireConfirmation(actor)) forbidden(CONFIRM_MESSAGES.adminsOnly);
  const total = body.images.length + body.attachments.length + files.images.length + files.attachments.length;
  if (total > LIMITS.postUploaderFiles) badRequest(UPLOAD_MESSAGES.tooManyFiles);
  checkHouses(deps, body.houseTags);
  checkHouses(deps, body.audienceHouses);
  const images = await checkFiles(files.images);
  const attachments = await checkFiles(files.attachments);
  // A file sent as a picture that is not one is kept as an attachment.
  const saved = await saveFiles(deps, actor, [...images, ...attachments]);
  try {
    // Awaited here, so a refusal reaches the catch below and the saved files go.
    return await createPost(deps, actor, {
      ...body,
      images: [...body.images, ...saved.filter((f) => f.kind === 'image').map((f) => f.url)],
      attachments: [...body.attachments, ...saved.filter((f) => f.kind !== 'image')],
    });
  } catch (error) {
    await discardUploads(
      deps,
      saved.map((f) => f.id),
    );
    throw error;
  }
}

/** The fields of a post an edit may change, as an audit entry shows them: the text only by its fingerprint. */
function auditedFields(
  post: Pick<
    PostRow,
    'content' | 'category' | 'isUrgent' | 'houseTags' | 'audienceHouses' | 'requiresConfirmation' | 'confirmBy'
  >,
) {
  return {
    content: textFingerprint(post.content),
    category: post.category,
    isUrgent: post.isUrgent,
    houseTags: parseList<string>(post.houseTags),
    audienceHouses: parseList<string>(post.audienceHouses),
    requiresConfirmation: post.requiresConfirmation,
    confirmBy: post.confirmBy,
  };
}

type AuditedFields = ReturnType<typeof auditedFields>;

/** The fields that differ between two states, each state with only those fields. */
function changedFields(before: AuditedFields, after: AuditedFields) {
  const changed = (Object.keys(before) as (keyof AuditedFields)[]).filter(
    (key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
  const pick = (state: AuditedFields) => Object.fromEntries(changed.map((key) => [key, state[key]]));
  return { changed, before: pick(before), after: pick(after) };
}

/** What a post's fields become after an edit, checked: the rules of docs/api-feed.md and decision 136. */
async function editedFields(deps: AppDeps, actor: SessionUser, post: EditablePost, body: UpdatePostBody) {
  const category = body.category ?? post.category;
  const isUrgent = body.isUrgent ?? post.isUrgent;
  const requiresConfirmation = body.requiresConfirmation ?? post.requiresConfirmation;
  const confirmBy = requiresConfirmation ? (body.confirmBy === undefined ? post.confirmBy : body.confirmBy) : null;
  if (requiresConfirmation !== post.requiresConfirmation || confirmBy !== post.confirmBy) {
    if (!canRequireConfirmation(actor)) forbidden(CONFIRM_MESSAGES.adminsOnly);
  }
  const houseTags = keptHouseTags(category, body.houseTags ?? parseList<string>(post.houseTags));
  const audienceHouses = keptAudienceHouses(
    isUrgent || requiresConfirmation,
    body.audienceHouses ?? parseList<string>(post.audienceHouses),
  );
  checkHouses(deps, houseTags);
  checkHouses(deps, audienceHouses);
  const mentions =
    body.mentions === undefined ? post.mentions : JSON.stringify(await keptMentions(deps, body.mentions));
  const next = {
    mentions,
    content: body.content,
    category,
    isUrgent,
    houseTags: JSON.stringify(houseTags),
    audienceHouses: JSON.stringify(audienceHouses),
    requiresConfirmation,
    confirmBy,
  };
  return { next, change: changedFields(auditedFields(post), auditedFields(next)) };
}

type EditablePost = Pick<
  PostRow,
  | 'authorId'
  | 'content'
  | 'category'
  | 'isUrgent'
  | 'houseTags'
  | 'audienceHouses'
  | 'requiresConfirmation'
  | 'confirmBy'
  | 'editedBy'
  | 'updatedAt'
  | 'mentions'
>;

/**
 * Edits content, category and urgency (and house tags, the audience, and whether confirmation is required: admins
 * only); only the author or an admin may (docs/api-feed.md). The alert and confirmation rows follow (decision 136). A change by anyone but the
 * author names them on the post (`editedBy`, the card's "Edited by …") and is audited with what it changed, before
 * and after (decision 126). A scheduled post may also get a new time; a published one cannot be scheduled (decision 141).
 */
export async function editPost(
  deps: AppDeps,
  actor: SessionUser,
  id: string,
  body: UpdatePostBody,
  meta: RequestMeta,
): Promise<PostView | ScheduledPostView> {
  const scheduled = await findScheduledPost(deps.db, id);
  if (scheduled) return editScheduledPost(deps, actor, scheduled, body, meta);
  const post = await requirePost(deps, id);
  if (!canEditPost(actor, post)) forbidden(POST_MESSAGES.cannotEditPost);
  if (body.publishAt) badRequest(POST_MESSAGES.alreadyPublished);
  const { next, change } = await editedFields(deps, actor, post, body);
  const byOther = post.authorId !== actor.id && change.changed.length > 0;
  const at = deps.now();
  await inTransaction(deps, async (deps) => {
    await updatePost(deps.db, id, {
      ...next,
      editedBy: byOther ? actor.id : post.editedBy,
      // Grows with every edit even if the clock stands still or steps back: sync orders states by it (decision 69).
      updatedAt: Math.max(at, post.updatedAt + 1),
    });
    if (byOther) {
      const { before, after } = change;
      const details = { authorId: post.authorId, fields: change.changed, before, after };
      await recordAudit(deps.db, {
        actor,
        action: 'post.update',
        ip: meta.ip,
        target: { type: 'post', id },
        details,
        at,
      });
    }
  });
  deps.hub.notify('posts');
  await syncAlertAudience(deps, id);
  // Only people newly mentioned are told; one already mentioned is not told again (decision 144).
  await notifyPostMentions(deps, id, parseList<string>(post.mentions));
  return loadPostView(deps, id, actor.id);
}

/**
 * Edits a scheduled post, and its time (null: now); a time already past publishes it at once. Nobody else sees it
 * yet, so nothing is told; an admin's change is audited as any edit by another (decision 141).
 */
async function editScheduledPost(
  deps: AppDeps,
  actor: SessionUser,
  post: ScheduledPostRow,
  body: UpdatePostBody,
  meta: RequestMeta,
): Promise<PostView | ScheduledPostView> {
  if (!canEditPost(actor, post)) forbidden(POST_MESSAGES.cannotEditPost);
  const at = deps.now();
  const publishAt = body.publishAt === undefined ? post.publishAt : (publishTimeOf(body.publishAt, at) ?? at);
  const { next, change } = await editedFields(deps, actor, post, body);
  const moved = publishAt !== post.publishAt;
  const byOther = post.authorId !== actor.id && (change.changed.length > 0 || moved);
  await inTransaction(deps, async (deps) => {
    await updateScheduledPost(deps.db, post.id, {
      ...next,
      publishAt,
      editedBy: byOther ? actor.id : post.editedBy,
      updatedAt: Math.max(at, post.updatedAt + 1),
    });
    if (byOther) {
      const iso = (ms: number) => new Date(ms).toISOString();
      const details = {
        authorId: post.authorId,
        fields: moved ? [...change.changed, 'publishAt'] : change.changed,
        before: moved ? { ...change.before, publishAt: iso(post.publishAt) } : change.before,
        after: moved ? { ...change.after, publishAt: iso(publishAt) } : change.after,
      };
      const target = { type: 'post', id: post.id };
      await recordAudit(deps.db, { actor, action: 'post.update', ip: meta.ip, target, details, at });
    }
  });
  if (publishAt <= at) await publishScheduledPost(deps, post.id);
  return loadAnyPostView(deps, post.id, actor.id);
}

/** The ids of a post's uploads that no other live post of its author uses. */
async function uploadsOnlyIn(
  deps: AppDeps,
  post: Pick<PostRow, 'id' | 'authorId' | 'images' | 'attachments'>,
): Promise<string[]> {
  const idsOf = (row: Pick<PostRow, 'images' | 'attachments'>) => [
    ...parseList<string>(row.images).map((url) => uploadIdFromUrl(url) ?? ''),
    ...parseList<Attachment>(row.attachments).map((attachment) => attachment.id),
  ];
  const mine = idsOf(post).filter((id) => id !== '');
  if (mine.length === 0 || !post.authorId) return mine;
  const others = [
    ...(await listFilesOfOtherPosts(deps.db, post.authorId, post.id)),
    ...(await listFilesOfOtherScheduledPosts(deps.db, post.authorId, post.id)),
  ];
  const used = new Set(others.flatMap(idsOf));
  return mine.filter((id) => !used.has(id));
}

/**
 * Deletes a post with its comments and reactions; only the author or an admin may. The tombstone keeps no content
 * and the post's files go (decision 126); a delete by anyone but the author is audited with what the post was.
 */
export async function deletePost(deps: AppDeps, actor: SessionUser, id: string, meta: RequestMeta): Promise<void> {
  const scheduled = await findScheduledPost(deps.db, id);
  if (scheduled) return cancelScheduledPost(deps, actor, scheduled, meta);
  const post = await requirePost(deps, id);
  if (!canEditPost(actor, post)) forbidden(POST_MESSAGES.cannotDeletePost);
  const at = deps.now();
  const forgotten = await inTransaction(deps, async (deps) => {
    const files = await uploadsOnlyIn(deps, post);
    await markPostDeleted(deps.db, id, at);
    const forgotten = await forgetUploads(deps, files);
    if (post.authorId !== actor.id) {
      const { requiresConfirmation, confirmBy, ...fields } = auditedFields(post);
      const before = {
        ...fields,
        // Named only on a post that required confirmation: the entries of every other post stay as they were.
        ...(requiresConfirmation ? { requiresConfirmation, confirmBy } : {}),
        images: parseList<string>(post.images).length,
        attachments: parseList<Attachment>(post.attachments).length,
      };
      const details = { authorId: post.authorId, before };
      await recordAudit(deps.db, {
        actor,
        action: 'post.delete',
        ip: meta.ip,
        target: { type: 'post', id },
        details,
        at,
      });
    }
    return forgotten;
  });
  // Its files once the rows' removal has committed (decision 126).
  removeForgottenFiles(deps, forgotten);
  deps.hub.notify('posts');
  deps.hub.notify('comments');
  deps.hub.notify('reactions');
  // Withdraws the alert from those who have not acknowledged it, and the mentions from the bells.
  await syncAlertAudience(deps, id);
  await withdrawMentions(deps, { postId: id });
}

/** Cancels a scheduled post with its files; only the author or an admin may, and an admin's cancel is audited. */
async function cancelScheduledPost(
  deps: AppDeps,
  actor: SessionUser,
  post: ScheduledPostRow,
  meta: RequestMeta,
): Promise<void> {
  if (!canEditPost(actor, post)) forbidden(POST_MESSAGES.cannotDeletePost);
  const at = deps.now();
  const forgotten = await inTransaction(deps, async (deps) => {
    const files = await uploadsOnlyIn(deps, post);
    await deleteScheduledPost(deps.db, post.id);
    const forgotten = await forgetUploads(deps, files);
    if (post.authorId !== actor.id) {
      const before = { ...auditedFields(post), publishAt: new Date(post.publishAt).toISOString() };
      const details = { authorId: post.authorId, before };
      const target = { type: 'post', id: post.id };
      await recordAudit(deps.db, { actor, action: 'post.delete', ip: meta.ip, target, details, at });
    }
    return forgotten;
  });
  removeForgottenFiles(deps, forgotten);
}

/** Before an account is deleted: its posts and comments stay as "Deleted user", its reactions go. */
export async function releaseAuthorContent(deps: AppDeps, userId: string): Promise<void> {
  await releaseAuthor(deps.db, userId, deps.now());
  deps.hub.notify('posts');
  deps.hub.notify('comments');
  deps.hub.notify('reactions');
}

/**
 * Everyone's live reactions to these posts as the post documents carry them: per type, the user ids in the
 * order they were chosen (docs/sync.md).
 */
async function reactionsByPost(deps: AppDeps, postIds: string[]): Promise<Map<string, PostReactions>> {
  const byPost = new Map<string, PostReactions>();
  for (const row of await listLiveReactions(deps.db, postIds)) {
    if (!(REACTION_TYPES as readonly string[]).includes(row.type)) continue;
    const lists = byPost.get(row.postId) ?? {};
    (lists[row.type as ReactionType] ??= []).push(row.userId);
    byPost.set(row.postId, lists);
  }
  return byPost;
}

/** Posts as replication sends them, with their reactions read in one query. */
async function toPostDocs(deps: AppDeps, rows: PostRow[]): Promise<{ seq: number; doc: PostDoc }[]> {
  const reactions = await reactionsByPost(
    deps,
    rows.filter((row) => !row.deleted).map((row) => row.id),
  );
  return rows.map((row) => ({ seq: row.serverSeq, doc: toPostDoc(row, reactions.get(row.id) ?? {}) }));
}

/** A post as replication sends it; a tombstone carries no content and no reactions. */
export function toPostDoc(row: PostRow, reactions: PostReactions): PostDoc {
  const live = !row.deleted;
  return {
    id: row.id,
    authorId: row.authorId,
    content: live ? row.content : '',
    category: row.category,
    isUrgent: row.isUrgent,
    houseTags: live ? parseList<string>(row.houseTags) : [],
    audienceHouses: live ? parseList<string>(row.audienceHouses) : [],
    requiresConfirmation: live && row.requiresConfirmation,
    confirmBy: live ? row.confirmBy : null,
    images: live ? parseList<string>(row.images) : [],
    attachments: live ? parseList<Attachment>(row.attachments) : [],
    reactions: live ? reactions : {},
    mentions: live ? parseList<string>(row.mentions) : [],
    createdAt: row.createdAt,
    writtenAt: row.writtenAt,
    updatedAt: row.updatedAt,
    editedBy: live ? row.editedBy : null,
    _deleted: row.deleted,
  };
}

/**
 * The stored post as replication sends it, or null. A scheduled post is the master only for its author and admins
 * (a push of theirs edits or cancels it); anyone else's push of its id is a new post (decision 141).
 */
export async function findPostDoc(deps: AppDeps, id: string, actor?: SessionUser): Promise<PostDoc | null> {
  const row = await findPost(deps.db, id);
  if (row) return (await toPostDocs(deps, [row]))[0].doc;
  const scheduled = actor ? await findScheduledPost(deps.db, id) : undefined;
  return actor && scheduled && canEditPost(actor, scheduled) ? toScheduledPostDoc(scheduled) : null;
}

/** A scheduled post as its author's device holds it: with its time, and no reactions yet. */
function toScheduledPostDoc(row: ScheduledPostRow): PostDoc {
  const { publishAt, ...post } = row;
  return { ...toPostDoc({ ...post, deleted: false, serverSeq: 0 }, {}), publishAt: new Date(publishAt).toISOString() };
}

/** Posts changed after a checkpoint (every signed-in user sees every post). */
export async function listPostDocsSince(deps: AppDeps, seq: number, id: string, limit: number) {
  return toPostDocs(deps, await listPostsSince(deps.db, seq, id, limit));
}

/** Sync backfill of a first sync: live posts newest first, so the newest are on screen first. */
export async function listPostDocsBefore(
  deps: AppDeps,
  until: number,
  before: { seq: number; id: string } | undefined,
  limit: number,
) {
  return toPostDocs(deps, await listPostsBefore(deps.db, until, before, limit));
}
