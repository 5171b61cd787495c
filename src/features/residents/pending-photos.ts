import { from, startWith, Subject, switchMap, type Observable } from 'rxjs';
import type { FieldMerge } from '../../../schema/sync';
import { pendingFilesAccess } from '../../db/pending-files-access';
import type { WaitingPhotoRecord } from '../../db/pending-files-db';
import { ApiError, NetworkError } from '../../lib/api';
import { UnreadableFileError } from '../../lib/file-copy';
import { foldRuns } from '../../lib/fold-runs';

/**
 * A resident's new photo chosen on the device, kept until the server has it (decision 123): like a post's files,
 * it waits here rather than in RxDB, because the server must check and re-encode a picture before anyone sees it.
 */
export type PendingPhoto = WaitingPhotoRecord;

const access = pendingFilesAccess();
/** Every write goes through this module, which says so here. */
const changed$ = new Subject<void>();

/** Tests run on fake-indexeddb. */
export function setPendingPhotosEnvironment(env: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }): void {
  access.setEnvironment(env);
}

/**
 * Keeps a photo until it can be sent; an earlier photo of the same resident from the same user, not yet sent, is
 * replaced: the last one chosen is the one the user wants.
 */
export async function savePendingPhoto(photo: Omit<PendingPhoto, 'id' | 'createdAt' | 'error'>): Promise<PendingPhoto> {
  const saved: PendingPhoto = { ...photo, id: crypto.randomUUID(), createdAt: Date.now(), error: null };
  const db = await access.db();
  await db.transaction('rw', db.residentPhotos, async () => {
    await db.residentPhotos
      .where('residentId')
      .equals(photo.residentId)
      .filter((earlier) => earlier.userId === photo.userId)
      .delete();
    await db.residentPhotos.put(saved);
  });
  changed$.next();
  return saved;
}

/** Removes a waiting photo (the user gave up on it, or it was sent). */
export async function discardPendingPhoto(id: string): Promise<void> {
  await (await access.db()).residentPhotos.delete(id);
  changed$.next();
}

/** One waiting photo, if it still waits. */
export async function pendingPhoto(id: string): Promise<PendingPhoto | undefined> {
  if (!(await access.exists())) return undefined;
  return (await access.db()).residentPhotos.get(id);
}

/** A user's waiting photos, oldest first, following every change. */
export function pendingPhotos$(userId: string): Observable<PendingPhoto[]> {
  return changed$.pipe(
    startWith(undefined),
    switchMap(() => from(listPendingPhotos(userId))),
  );
}

async function listPendingPhotos(userId: string): Promise<PendingPhoto[]> {
  if (!(await access.exists())) return [];
  return (await access.db()).residentPhotos.where('userId').equals(userId).sortBy('createdAt');
}

export interface PhotoSendDeps {
  userId: string;
  /** Sends one photo; answers how the server merged it when someone else had changed the profile meanwhile. */
  send: (photo: PendingPhoto) => Promise<FieldMerge | undefined>;
  /** Tells the user of such a merge (decision 120). */
  onMerge: (residentId: string, merge: FieldMerge) => void;
}

/** What to tell of a photo the server refused; the photo stays until the user dismisses it. */
function refusal(error: ApiError): string {
  if (error.status === 404) return 'This resident was archived, so the new photo could not be saved.';
  return error.serverMessage ?? 'The server refused the photo.';
}

/** Sends one photo; false when sending must stop for now (offline, signed out, a server fault). */
async function sendOne(photo: PendingPhoto, deps: PhotoSendDeps): Promise<boolean> {
  let merge: FieldMerge | undefined;
  try {
    merge = await deps.send(photo);
  } catch (error) {
    if (error instanceof NetworkError) return false;
    if (error instanceof UnreadableFileError) {
      await (await access.db()).residentPhotos.update(photo.id, { error: error.message });
      changed$.next();
      return true;
    }
    if (!(error instanceof ApiError) || error.status === 401 || error.status === 429 || error.status >= 500) {
      return false;
    }
    await (await access.db()).residentPhotos.update(photo.id, { error: refusal(error) });
    changed$.next();
    return true;
  }
  if (merge) deps.onMerge(photo.residentId, merge);
  await discardPendingPhoto(photo.id);
  return true;
}

async function sendAll(deps: PhotoSendDeps): Promise<void> {
  if (!(await access.exists())) return;
  // Only the user's own: another user's photos are sealed for them at this sign-in (decision 114), never sent here.
  for (const photo of await listPendingPhotos(deps.userId)) {
    if (photo.error) continue;
    if (!(await sendOne(photo, deps))) return;
  }
}

/**
 * Sends the user's waiting photos, oldest first, each with its key so a retry after a lost answer stores it once.
 * Calls while a run is going are folded into one more run after it.
 */
export const sendPendingPhotos = foldRuns(sendAll, 'Could not send waiting photos');
