import { from, startWith, Subject, switchMap, type Observable } from 'rxjs';
import type { UploadView } from '../../../schema/uploads';
import type { PostLocal } from '../../db/collections';
import { ApiError, NetworkError } from '../../lib/api';
import { UnreadableFileError } from '../../lib/file-copy';
import { pendingFilesAccess } from '../../db/pending-files-access';
import { foldRuns } from '../../lib/fold-runs';
import { buildPostDoc, type PostDraft } from './post-draft';

/** A file picked for a post, kept in IndexedDB until the server has it. */
export interface PendingFile {
  name: string;
  type: string;
  size: number;
  blob: Blob;
  /** The server's record once uploaded, so a retry never uploads it twice. */
  uploaded: UploadView | null;
}

/**
 * A post written while its files could not be uploaded (offline, or the connection dropped). It stays here,
 * not in RxDB, until every file is uploaded: replication must never push a post whose pictures do not
 * exist on the server yet. The feed shows it as "Waiting to upload".
 */
export interface PendingPost extends PostDraft {
  id: string;
  /** Whose post it is: only that user's session ever uploads it. */
  userId: string;
  createdAt: number;
  files: PendingFile[];
  /** The server refused a file (type, content, size): the post waits for the user to decide. */
  error: { fileIndex: number; message: string } | null;
}

const access = pendingFilesAccess<PendingPost>();
const db = access.db;
const exists = access.exists;
/** Every write goes through this module, which says so here (Dexie's liveQuery needs a browser). */
const changed$ = new Subject<void>();

/** Tests run on fake-indexeddb. */
export function setPendingFilesEnvironment(env: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }): void {
  access.setEnvironment(env);
}

/** Keeps a post and its files until they can be uploaded. */
export async function savePendingPost(post: PendingPost): Promise<void> {
  await (await db()).posts.put(post);
  changed$.next();
}

/** Removes a waiting post and its files (the user gave up on it). */
export async function discardPendingPost(id: string): Promise<void> {
  await (await db()).posts.delete(id);
  changed$.next();
}

/** Posts without the file the server refused, so the rest can go. */
export async function dropRefusedFile(id: string): Promise<void> {
  await (
    await db()
  ).posts
    .where('id')
    .equals(id)
    .modify((post) => {
      if (!post.error) return;
      post.files.splice(post.error.fileIndex, 1);
      post.error = null;
    });
  changed$.next();
}

/** A user's waiting posts, newest first, following every change. */
export function pendingPosts$(userId: string): Observable<PendingPost[]> {
  return changed$.pipe(
    startWith(undefined),
    switchMap(() => from(listPendingPosts(userId))),
  );
}

async function listPendingPosts(userId: string): Promise<PendingPost[]> {
  if (!(await exists())) return [];
  return (await (await db()).posts.where('userId').equals(userId).sortBy('createdAt')).reverse();
}

/** Sign-out: remove every waiting post and file of every user from this browser. */
export async function wipePendingFiles(): Promise<void> {
  await access.remove();
  changed$.next();
}

export interface UploadDeps {
  userId: string;
  upload: (file: Blob, name: string) => Promise<UploadView>;
  /** Puts the finished post into the local database (from where replication carries it). */
  insertPost: (doc: PostLocal) => Promise<void>;
}

type Outcome = 'done' | 'refused' | 'stop';

async function uploadOne(post: PendingPost, deps: UploadDeps): Promise<Outcome> {
  for (const [index, file] of post.files.entries()) {
    if (file.uploaded) continue;
    try {
      file.uploaded = await deps.upload(file.blob, file.name);
    } catch (error) {
      // Offline, a signed-out session or a server fault: try again later, keeping what went up.
      if (error instanceof NetworkError) return 'stop';
      if (error instanceof ApiError && (error.status === 401 || error.status >= 500)) return 'stop';
      const message =
        error instanceof ApiError && error.serverMessage
          ? error.serverMessage
          : error instanceof UnreadableFileError
            ? error.message
            : String(error);
      await (await db()).posts.update(post.id, { error: { fileIndex: index, message } });
      changed$.next();
      return 'refused';
    }
    await (await db()).posts.update(post.id, { files: post.files });
    changed$.next();
  }
  const uploads = post.files.map((f) => f.uploaded).filter((u): u is UploadView => u !== null);
  await deps.insertPost(buildPostDoc(post.id, post.userId, post, uploads, post.createdAt));
  await (await db()).posts.delete(post.id);
  changed$.next();
  return 'done';
}

async function processAll(deps: UploadDeps): Promise<void> {
  if (!(await exists())) return;
  // Pending posts of anyone else never go up under this session; they are removed.
  if (await (await db()).posts.where('userId').notEqual(deps.userId).delete()) changed$.next();
  const posts = await (await db()).posts.where('userId').equals(deps.userId).sortBy('createdAt');
  for (const post of posts) {
    if (post.error) continue;
    if ((await uploadOne(post, deps)) === 'stop') return;
  }
}

/**
 * Uploads the files of the user's waiting posts, oldest first, then moves each post into the local
 * database. Calls while a run is going are folded into one more run after it.
 */
export const uploadPendingPosts = foldRuns(processAll, 'Could not upload waiting posts');
