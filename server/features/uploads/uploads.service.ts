import { randomBytes, randomUUID } from 'node:crypto';
import { CHAT_MESSAGES } from '../../../schema/chat-rules';
import type { Attachment } from '../../../schema/posts';
import { uploadIdFromUrl, uploadUrl, type UploadView } from '../../../schema/uploads';
import { exclusive, inTransaction } from '../../db/client';
import type { AppDeps, SessionUser } from '../../lib/context';
import { badRequest, notFound } from '../../lib/errors';
import { checkUploadedFile, type CheckedFile } from '../../lib/files';
import { fileStorage, storageKey, type FileStorage, type StoredFile } from '../../lib/storage';
import {
  deleteUploadRows,
  findProfilePictureUploads,
  findUpload,
  findUploads,
  insertUpload,
  listStoredNames,
  listUnattachedUploads,
  type UploadRow,
} from './uploads.queries';

/** How long an upload may wait for the post that uses it before the sweep removes it (decision 126). */
export const UNATTACHED_UPLOAD_MS = 24 * 60 * 60 * 1000;
/** How often the server process sweeps. */
export const UPLOAD_SWEEP_EVERY_MS = 60 * 60 * 1000;

/** Uploaded files live in the storage's `uploads` area under random names (decision 153). */
function storageOf(deps: AppDeps): FileStorage {
  return fileStorage(deps.config);
}

const uploadKey = (name: string) => storageKey('uploads', name);

/** The file of a picture's card variant, beside the picture (`<name>.card.<ext>`); absent for small pictures. */
function cardFileName(storedName: string): string {
  const dot = storedName.lastIndexOf('.');
  return `${storedName.slice(0, dot)}.card${storedName.slice(dot)}`;
}

/** Removes an upload's files (the picture's card variant with it). */
function removeStoredFiles(deps: AppDeps, storedName: string): Promise<unknown> {
  const storage = storageOf(deps);
  return Promise.all([storedName, cardFileName(storedName)].map((name) => storage.delete(uploadKey(name))));
}

export function toUploadView(row: UploadRow): UploadView {
  return {
    id: row.id,
    url: uploadUrl(row.id),
    originalName: row.originalName,
    fileType: row.mime,
    fileSize: row.size,
    kind: row.kind,
  };
}

/** Checks every file first (nothing is written if one fails), then stores them all. */
export async function checkFiles(files: File[]): Promise<CheckedFile[]> {
  const checked: CheckedFile[] = [];
  for (const file of files) checked.push(await checkUploadedFile(file));
  return checked;
}

/**
 * Writes checked files under random names and records them as the actor's. If anything fails, what was
 * written is removed again, so a refused request leaves nothing on disk or in the database.
 */
export async function saveFiles(
  deps: AppDeps,
  actor: SessionUser,
  files: CheckedFile[],
  conversationId: string | null = null,
): Promise<UploadView[]> {
  const storage = storageOf(deps);
  const rows: UploadRow[] = [];
  const written: string[] = [];
  try {
    for (const file of files) {
      const storedName = `${randomBytes(16).toString('hex')}.${file.ext}`;
      written.push(storedName);
      await storage.put(uploadKey(storedName), file.bytes);
      if (file.card) await storage.put(uploadKey(cardFileName(storedName)), file.card);
      rows.push({
        id: randomUUID(),
        ownerId: actor.id,
        originalName: file.originalName,
        storedName,
        mime: file.mime,
        size: file.bytes.length,
        kind: file.kind,
        createdAt: deps.now(),
        conversationId,
      });
    }
    await inTransaction(deps, async (deps) => {
      for (const row of rows) await insertUpload(deps.db, row);
    });
  } catch (error) {
    await Promise.all(written.map((name) => removeStoredFiles(deps, name)));
    throw error;
  }
  return rows.map(toUploadView);
}

/**
 * POST /api/uploads: one file, checked and stored (pictures re-encoded without metadata). With a conversation (whose
 * membership the caller checked) only its members may read it (decision 150).
 */
export async function uploadFile(
  deps: AppDeps,
  actor: SessionUser,
  file: File,
  conversationId: string | null = null,
): Promise<UploadView> {
  const [view] = await saveFiles(deps, actor, await checkFiles([file]), conversationId);
  return view;
}

/** Removes stored uploads (a post that used them was refused after they were written). */
export async function discardUploads(deps: AppDeps, ids: string[]): Promise<void> {
  const rows = await findUploads(deps.db, ids);
  await deleteUploadRows(deps.db, ids);
  await Promise.all(rows.map((row) => removeStoredFiles(deps, row.storedName)));
}

/**
 * Forgets the uploads of a deleted post (decision 126): their rows go in the caller's transaction, so they answer
 * 404 at once; a profile picture is never removed this way. Answers the uploads whose files the caller removes with
 * removeForgottenFiles once that transaction has committed (the transaction's handle is closed by then).
 */
export async function forgetUploads(deps: AppDeps, ids: string[]): Promise<UploadRow[]> {
  const pictures = await findProfilePictureUploads(deps.db, ids);
  const rows = (await findUploads(deps.db, ids)).filter((row) => !pictures.has(row.id));
  if (rows.length === 0) return [];
  await deleteUploadRows(
    deps.db,
    rows.map((row) => row.id),
  );
  return rows;
}

/**
 * Removes the files of uploads forgetUploads forgot, in the background, after its transaction: `deps` are the app's,
 * not the transaction's. A file whose row is back (the transaction rolled back) is kept.
 */
export function removeForgottenFiles(deps: AppDeps, rows: UploadRow[]): void {
  if (rows.length === 0) return;
  setImmediate(() => {
    const remove = async () => {
      const gone: UploadRow[] = [];
      for (const row of rows) if (!(await findUpload(deps.db, row.id))) gone.push(row);
      await Promise.all(gone.map((row) => removeStoredFiles(deps, row.storedName)));
    };
    remove().catch((error: unknown) => deps.log.error('Removing the files of a deleted post failed', error));
  });
}

/** Removes one of the actor's own uploads (a profile picture that was replaced); others' are left alone. */
export async function discardOwnUpload(deps: AppDeps, actor: SessionUser, id: string): Promise<void> {
  const row = await findUpload(deps.db, id);
  if (row && row.ownerId === actor.id) await discardUploads(deps, [id]);
}

const MISSING_IMAGE = 'A picture of this post was not found. Please upload it again.';
const MISSING_FILE = 'An attached file of this post was not found. Please upload it again.';

/**
 * The uploads a post refers to, checked: each must exist and belong to the author, and pictures must be
 * pictures. Names, types and sizes come from the server's record, never from the client.
 */
export async function resolvePostFiles(
  deps: AppDeps,
  actor: SessionUser,
  input: { images: string[]; attachments: { id: string }[] },
): Promise<{ images: string[]; attachments: Attachment[] }> {
  const imageIds = input.images.map((url) => uploadIdFromUrl(url) ?? badRequest(MISSING_IMAGE));
  const attachmentIds = input.attachments.map((a) => a.id);
  const rows = new Map((await findUploads(deps.db, [...imageIds, ...attachmentIds])).map((row) => [row.id, row]));
  const own = (id: string) => {
    const row = rows.get(id);
    // A file sent in a chat stays there: a post never shows it (decision 150).
    return row && row.ownerId === actor.id && row.conversationId === null ? row : undefined;
  };
  const images = imageIds.map((id) => {
    const row = own(id);
    if (!row || row.kind !== 'image') badRequest(MISSING_IMAGE);
    return uploadUrl(id);
  });
  const attachments = attachmentIds.map((id) => {
    const { kind: _kind, ...attachment } = toUploadView(own(id) ?? badRequest(MISSING_FILE));
    return attachment;
  });
  return { images, attachments };
}

/**
 * The uploads a chat message refers to, checked: each must exist, be the sender's, and have been uploaded for this
 * conversation, so a file never moves into a conversation whose members may not read it (decision 150). Names, types
 * and sizes come from the server's record.
 */
export async function resolveMessageFiles(
  deps: AppDeps,
  actor: SessionUser,
  conversationId: string,
  input: { images: string[]; attachments: { id: string }[] },
): Promise<{ images: string[]; attachments: Attachment[] }> {
  const ids = [...input.images.map((url) => uploadIdFromUrl(url) ?? ''), ...input.attachments.map((a) => a.id)];
  const rows = new Map((await findUploads(deps.db, ids.filter(Boolean))).map((row) => [row.id, row]));
  const usable = (id: string | null, kind?: 'image') => {
    const row = id ? rows.get(id) : undefined;
    const fits = row && row.ownerId === actor.id && row.conversationId === conversationId;
    return fits && (!kind || row.kind === kind) ? row : badRequest(CHAT_MESSAGES.fileNotFound);
  };
  const images = input.images.map((url) => uploadUrl(usable(uploadIdFromUrl(url), 'image').id));
  const attachments = input.attachments.map((a) => {
    const { kind: _kind, ...attachment } = toUploadView(usable(a.id));
    return attachment;
  });
  return { images, attachments };
}

/**
 * The record and the stored file of an upload, for GET /api/uploads/{id}. The card variant of a picture is its
 * smaller file where one was made (pictures stored before variants existed, and small ones, have none). A file sent
 * in a chat is read only by whom `mayRead` allows (its conversation's current members, decision 150); anyone else
 * gets the same 404 as for no file.
 */
export async function openUpload(
  deps: AppDeps,
  id: string,
  variant: 'full' | 'card' = 'full',
  mayRead: (conversationId: string) => Promise<boolean> = async () => false,
): Promise<{ row: UploadRow; file: StoredFile }> {
  const row = (await findUpload(deps.db, id)) ?? notFound('File not found');
  if (row.conversationId && !(await mayRead(row.conversationId))) notFound('File not found');
  const storage = storageOf(deps);
  if (variant === 'card' && row.kind === 'image') {
    const card = await storage.get(uploadKey(cardFileName(row.storedName)));
    if (card) return { row, file: card };
  }
  const full = (await storage.get(uploadKey(row.storedName))) ?? notFound('File not found');
  return { row, file: full };
}

/** The stored name a stored file belongs to: a picture's card variant belongs to the picture. */
const storedNameOf = (key: string) => key.slice('uploads/'.length).replace(/\.card(\.[a-z0-9]+)$/, '$1');

/**
 * Removes uploads that nothing has used for a day (UNATTACHED_UPLOAD_MS): their rows, then their files; and stored
 * files older than that with no row at all (left by a crash between the two). Answers how many uploads
 * and stray files went.
 */
export async function sweepUnattachedUploads(deps: AppDeps): Promise<number> {
  const before = deps.now() - UNATTACHED_UPLOAD_MS;
  const rows = await listUnattachedUploads(deps.db, before);
  await deleteUploadRows(
    deps.db,
    rows.map((row) => row.id),
  );
  await Promise.all(rows.map((row) => removeStoredFiles(deps, row.storedName)));
  const known = await listStoredNames(deps.db);
  const storage = storageOf(deps);
  let strays = 0;
  for await (const entry of storage.list('uploads')) {
    // A file is written before its row (saveFiles): only an old one without a row is a stray.
    if (known.has(storedNameOf(entry.key)) || entry.modifiedAt >= before) continue;
    await storage.delete(entry.key);
    strays += 1;
  }
  return rows.length + strays;
}

/**
 * The sweep of the server process: once at start, then every `everyMs`. `sweep` runs one at once (tests); `stop`
 * ends the timer and waits for a sweep under way, so the database is never closed beneath it.
 */
export function startUploadSweeps(
  deps: AppDeps,
  everyMs = UPLOAD_SWEEP_EVERY_MS,
): { sweep: () => Promise<number>; stop: () => Promise<void> } {
  let running: Promise<number> | null = null;
  let stopped = false;
  const sweep = () => {
    running ??= exclusive(deps.db, 'The sweep of unattached uploads', () => sweepUnattachedUploads(deps))
      .then((done) => done ?? 0)
      .catch((error: unknown) => {
        deps.log.error('The sweep of unattached uploads failed', error);
        return 0;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const tick = () => {
    if (!stopped) void sweep();
  };
  const first = setTimeout(tick, 0);
  const timer = setInterval(tick, everyMs);
  first.unref();
  timer.unref();
  return {
    sweep,
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
