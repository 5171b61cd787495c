import type { UploadView } from '../../../schema/uploads';
import type { UserDatabase } from '../../db/database';
import { ApiError, NetworkError } from '../../lib/api';
import { copyOfFile, UnreadableFileError } from '../../lib/file-copy';
import { savePendingPost, type PendingFile } from './pending-files';
import { buildPostDoc, type PostDraft } from './post-draft';
import { uploadFile } from './upload-file';

/** posted: in the local database (synced now or later); waiting: kept with its files until they upload. */
export type CreatePostOutcome = 'posted' | 'waiting';

/** The server refused a file or the post could not be stored: nothing was saved. */
export class CreatePostError extends Error {
  override readonly name = 'CreatePostError';
  constructor(
    /** A message safe to show beside the form (the server's reason for refusing a file), if any. */
    readonly reason: string | null,
    cause: unknown,
  ) {
    super(reason ?? 'The post could not be saved', { cause });
  }
}

/** A failure worth trying again later rather than giving up: no connection or a server fault. */
function isTransient(error: unknown): boolean {
  return error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
}

/** What to tell the user beside the form: the server's reason for refusing a file, or the file the device lost. */
function refusalOf(error: unknown): string | null {
  if (error instanceof UnreadableFileError) return error.message;
  return error instanceof ApiError && error.serverMessage ? error.serverMessage : null;
}

export interface CreatePostInput {
  db: UserDatabase;
  userId: string;
  draft: PostDraft;
  files: readonly File[];
  /** Called before each upload with the 1-based number of the file going up. */
  onUpload?: (index: number, total: number) => void;
}

/**
 * Creates a post (docs/behaviour.md, "Posts and categories"). Online, each file is uploaded first (POST /api/uploads)
 * and the post goes into the local database with the returned URLs; replication pushes it. Offline, or when the
 * connection drops on the way, the post and its files wait in IndexedDB and go up on reconnect.
 */
export async function createPost({ db, userId, draft, files, onUpload }: CreatePostInput): Promise<CreatePostOutcome> {
  const id = crypto.randomUUID();
  const createdAt = Date.now();
  const uploads: UploadView[] = [];
  let offline = !navigator.onLine;

  if (!offline) {
    for (const [index, file] of files.entries()) {
      onUpload?.(index + 1, files.length);
      try {
        uploads.push(await uploadFile(file, file.name));
      } catch (error) {
        if (!isTransient(error)) {
          throw new CreatePostError(refusalOf(error), error);
        }
        offline = true;
        break;
      }
    }
  }

  try {
    if (offline && files.length > 0) {
      const pending: PendingFile[] = await Promise.all(
        files.map(async (file, index) => ({
          name: file.name,
          type: file.type,
          size: file.size,
          blob: await copyOfFile(file, file.name),
          uploaded: uploads[index] ?? null,
        })),
      );
      await savePendingPost({ ...draft, id, userId, createdAt, files: pending, error: null });
      return 'waiting';
    }
    await db.posts.insert(buildPostDoc(id, userId, draft, uploads, createdAt));
    return 'posted';
  } catch (error) {
    throw new CreatePostError(refusalOf(error), error);
  }
}
