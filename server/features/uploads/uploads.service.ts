import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Attachment } from '../../../schema/posts';
import { uploadIdFromUrl, uploadUrl, type UploadView } from '../../../schema/uploads';
import type { AppDeps, SessionUser } from '../../lib/context';
import { badRequest, notFound } from '../../lib/errors';
import { checkUploadedFile, type CheckedFile } from '../../lib/files';
import { deleteUploadRows, findUpload, findUploads, insertUpload, type UploadRow } from './uploads.queries';

/** Uploaded files live in DATA_DIR/uploads/ under random names. */
export function uploadsDir(deps: AppDeps): string {
  return path.join(deps.config.dataDir, 'uploads');
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
export async function saveFiles(deps: AppDeps, actor: SessionUser, files: CheckedFile[]): Promise<UploadView[]> {
  const dir = uploadsDir(deps);
  await fs.promises.mkdir(dir, { recursive: true });
  const rows: UploadRow[] = [];
  try {
    for (const file of files) {
      const storedName = `${randomBytes(16).toString('hex')}.${file.ext}`;
      await fs.promises.writeFile(path.join(dir, storedName), file.bytes, { flag: 'wx', mode: 0o640 });
      rows.push({
        id: randomUUID(),
        ownerId: actor.id,
        originalName: file.originalName,
        storedName,
        mime: file.mime,
        size: file.bytes.length,
        kind: file.kind,
        createdAt: deps.now(),
      });
    }
    deps.db.transaction(() => rows.forEach((row) => insertUpload(deps.db, row)));
  } catch (error) {
    await Promise.all(rows.map((row) => fs.promises.rm(path.join(dir, row.storedName), { force: true })));
    throw error;
  }
  return rows.map(toUploadView);
}

/** POST /api/uploads: one file, checked and stored (pictures re-encoded without metadata). */
export async function uploadFile(deps: AppDeps, actor: SessionUser, file: File): Promise<UploadView> {
  const [view] = await saveFiles(deps, actor, await checkFiles([file]));
  return view;
}

/** Removes stored uploads (a post that used them was refused after they were written). */
export async function discardUploads(deps: AppDeps, ids: string[]): Promise<void> {
  const rows = findUploads(deps.db, ids);
  deleteUploadRows(deps.db, ids);
  await Promise.all(rows.map((row) => fs.promises.rm(path.join(uploadsDir(deps), row.storedName), { force: true })));
}

/** Removes one of the actor's own uploads (a profile picture that was replaced); others' are left alone. */
export async function discardOwnUpload(deps: AppDeps, actor: SessionUser, id: string): Promise<void> {
  const row = findUpload(deps.db, id);
  if (row && row.ownerId === actor.id) await discardUploads(deps, [id]);
}

const MISSING_IMAGE = 'A picture of this post was not found. Please upload it again.';
const MISSING_FILE = 'An attached file of this post was not found. Please upload it again.';

/**
 * The uploads a post refers to, checked: each must exist and belong to the author, and pictures must be
 * pictures. Names, types and sizes come from the server's record, never from the client.
 */
export function resolvePostFiles(
  deps: AppDeps,
  actor: SessionUser,
  input: { images: string[]; attachments: { id: string }[] },
): { images: string[]; attachments: Attachment[] } {
  const imageIds = input.images.map((url) => uploadIdFromUrl(url) ?? badRequest(MISSING_IMAGE));
  const attachmentIds = input.attachments.map((a) => a.id);
  const rows = new Map(findUploads(deps.db, [...imageIds, ...attachmentIds]).map((row) => [row.id, row]));
  const own = (id: string) => {
    const row = rows.get(id);
    return row && row.ownerId === actor.id ? row : undefined;
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

/** The record and path of an upload, for GET /api/uploads/{id}. */
export function openUpload(deps: AppDeps, id: string): { row: UploadRow; file: string } {
  const row = findUpload(deps.db, id) ?? notFound('File not found');
  const file = path.join(uploadsDir(deps), row.storedName);
  if (!fs.existsSync(file)) notFound('File not found');
  return { row, file };
}
