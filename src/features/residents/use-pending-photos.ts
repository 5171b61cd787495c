import { useMemo } from 'react';
import type { LocalStore } from '../../db/local-store-state';
import { recordMerges } from '../../db/merge-notices';
import { useWhileOnline } from '../../lib/use-while-online';
import { copyOfFile, UnreadableFileError } from '../../lib/file-copy';
import { withTimeout } from '../../lib/with-timeout';
import { useObservable } from '../../lib/use-observable';
import type { ResidentLocal } from '../../db/collections';
import { pendingPhoto, pendingPhotos$, savePendingPhoto, sendPendingPhotos, type PendingPhoto } from './pending-photos';

const NONE: PendingPhoto[] = [];
/** How long the edit form waits for a photo's answer before saying it waits on the device. */
const ANSWER_WAIT_MS = 8_000;

/** The signed-in user's residents' photos waiting to be sent, oldest first. */
export function useWaitingPhotos(userId: string | null): PendingPhoto[] {
  const waiting$ = useMemo(() => (userId ? pendingPhotos$(userId) : null), [userId]);
  return useObservable(waiting$, NONE).value;
}

/** Sends the user's waiting photos now; a merge with someone else's change is told on the Residents page. */
export function sendWaitingPhotos(store: LocalStore): Promise<void> {
  return sendPendingPhotos({
    userId: store.userId,
    // The REST client and its schemas load only when there is a photo to send (decision 113).
    send: async (photo) => (await import('./residents-api')).sendResidentPhoto(photo),
    onMerge: (residentId, merge) => recordMerges(store.db.name, 'residents', { [residentId]: merge }),
  });
}

/** Sends waiting photos whenever the device is online (at start, on reconnect, then every 15 s), on any screen. */
export function useSendWaitingPhotos(store: LocalStore | null): void {
  const run = useMemo(() => store && (() => void sendWaitingPhotos(store)), [store]);
  useWhileOnline(run);
}

/** Where a photo saved with an edit stands: on the server, waiting on the device, or refused with the reason. */
export type PhotoState = 'sent' | 'waiting' | { refused: string };

/**
 * Keeps the photo chosen in the edit form on the device, for the profile as the form showed it, and sends it at once
 * if the server can be reached (decision 123).
 */
export async function keepAndSendPhoto(store: LocalStore, shown: ResidentLocal, file: File): Promise<PhotoState> {
  let blob: Blob;
  try {
    blob = await copyOfFile(file, file.name);
  } catch (error) {
    if (error instanceof UnreadableFileError) return { refused: error.message };
    throw error;
  }
  const kept = await savePendingPhoto({
    residentId: shown.id,
    userId: store.userId,
    baseUpdatedAt: shown.updatedAt,
    name: file.name,
    blob,
  });
  // The form waits a little for the answer; on a link that hangs the photo simply goes on waiting on the device.
  await withTimeout(sendWaitingPhotos(store), ANSWER_WAIT_MS);
  const left = await pendingPhoto(kept.id);
  if (!left) return 'sent';
  return left.error ? { refused: left.error } : 'waiting';
}
