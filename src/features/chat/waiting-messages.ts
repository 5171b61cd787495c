import type { EntityTable } from 'dexie';
import { from, startWith, Subject, switchMap, type Observable } from 'rxjs';
import type { UploadView } from '../../../schema/uploads';
import type { MessageLocal } from '../../db/collections';
import type { WaitingMessageRecord } from '../../db/pending-files-db';
import { pendingFilesAccess } from '../../db/pending-files-access';
import { api, ApiError, NetworkError } from '../../lib/api';
import { copyOfFile, UnreadableFileError } from '../../lib/file-copy';
import { foldRuns } from '../../lib/fold-runs';

/** A photo or file chosen for a message, kept in IndexedDB until the server has it. */
export interface WaitingFile {
  name: string;
  type: string;
  size: number;
  blob: Blob;
  /** The server's record once uploaded, so a retry never uploads it twice. */
  uploaded: UploadView | null;
}

/**
 * A message written with photos or files (decision 150). It waits here, not in RxDB, until every file is uploaded for
 * its conversation, as a post with files does (decision 40): replication must never push a message whose files the
 * server does not have. The conversation shows it as "Waiting to upload".
 */
export interface WaitingMessage extends WaitingMessageRecord {
  /** When the sender wrote it, by the device's clock. */
  writtenAt: number;
  content: string;
  mentions: string[];
  files: WaitingFile[];
  /** The server refused a file (type, content, size, a conversation left): the message waits for the user. */
  error: string | null;
}

const access = pendingFilesAccess();
const changed$ = new Subject<void>();

/** Tests run on fake-indexeddb. */
export function setWaitingMessagesEnvironment(env: { indexedDB: IDBFactory; IDBKeyRange: typeof IDBKeyRange }): void {
  access.setEnvironment(env);
}

/** The waiting messages' table, typed with what this module keeps in it. */
async function table() {
  // One database holds every kind of waiting work; this module alone writes its messages.
  return (await access.db()).messages as unknown as EntityTable<WaitingMessage, 'id'>;
}

/** Keeps a message and its files until they can be uploaded. */
export async function saveWaitingMessage(message: WaitingMessage): Promise<void> {
  await (await table()).put(message);
  changed$.next();
}

/** Removes a waiting message and its files (the user gave up on it). */
export async function discardWaitingMessage(id: string): Promise<void> {
  await (await table()).delete(id);
  changed$.next();
}

/** A user's waiting messages of one conversation, oldest first, following every change. */
export function waitingMessages$(userId: string, conversationId: string): Observable<WaitingMessage[]> {
  return changed$.pipe(
    startWith(undefined),
    switchMap(() => from(listWaiting(userId, conversationId))),
  );
}

async function listWaiting(userId: string, conversationId: string): Promise<WaitingMessage[]> {
  if (!(await access.exists())) return [];
  const all = await (await table()).where('conversationId').equals(conversationId).sortBy('createdAt');
  return all.filter((message) => message.userId === userId);
}

export interface SendFilesDeps {
  userId: string;
  upload: (file: Blob, name: string, conversationId: string) => Promise<UploadView>;
  /** Puts the finished message into the local database, from where replication carries it. */
  insertMessage: (doc: MessageLocal) => Promise<void>;
}

type Outcome = 'done' | 'refused' | 'stop';

/** The message as the local store keeps it, once its files are the server's. */
export function messageWithFiles(message: WaitingMessage, uploads: UploadView[]): MessageLocal {
  const file = (upload: UploadView) => ({
    id: upload.id,
    url: upload.url,
    originalName: upload.originalName,
    fileType: upload.fileType,
    fileSize: upload.fileSize,
  });
  return {
    id: message.id,
    conversationId: message.conversationId,
    senderId: message.userId,
    content: message.content,
    createdAt: message.createdAt,
    writtenAt: message.writtenAt,
    mentions: message.mentions,
    images: uploads.filter((upload) => upload.kind === 'image').map((upload) => upload.url),
    attachments: uploads.filter((upload) => upload.kind === 'file').map(file),
    localPending: true,
  };
}

async function sendOne(message: WaitingMessage, deps: SendFilesDeps): Promise<Outcome> {
  const messages = await table();
  for (const file of message.files) {
    if (file.uploaded) continue;
    try {
      file.uploaded = await deps.upload(file.blob, file.name, message.conversationId);
    } catch (error) {
      // Offline, a signed-out session or a server fault: try again later, keeping what went up.
      if (error instanceof NetworkError) return 'stop';
      if (error instanceof ApiError && (error.status === 401 || error.status >= 500)) return 'stop';
      const text = error instanceof ApiError && error.serverMessage ? error.serverMessage : String(error);
      await messages.update(message.id, {
        error: error instanceof UnreadableFileError ? error.message : `${file.name}: ${text}`,
      });
      changed$.next();
      return 'refused';
    }
    await messages.update(message.id, { files: message.files });
    changed$.next();
  }
  const uploads = message.files.map((f) => f.uploaded).filter((u): u is UploadView => u !== null);
  await deps.insertMessage(messageWithFiles(message, uploads));
  await messages.delete(message.id);
  changed$.next();
  return 'done';
}

async function processAll(deps: SendFilesDeps): Promise<void> {
  if (!(await access.exists())) return;
  const messages = await table();
  // Waiting messages of anyone else never go up under this session; they are removed.
  if (await messages.where('userId').notEqual(deps.userId).delete()) changed$.next();
  const waiting = await messages.where('userId').equals(deps.userId).sortBy('createdAt');
  for (const message of waiting) {
    if (message.error) continue;
    if ((await sendOne(message, deps)) === 'stop') return;
  }
}

/**
 * Uploads the files of the user's waiting messages, oldest first, then moves each message into the local database,
 * sent once as any message is. Calls while a run is going are folded into one more run after it.
 */
export const sendWaitingMessages = foldRuns(processAll, 'Could not send waiting messages');

/** POST /api/uploads of one file for a conversation: only its members may read it (decision 150). */
export async function uploadChatFile(file: Blob, name: string, conversationId: string): Promise<UploadView> {
  const form = new FormData();
  form.append('conversationId', conversationId);
  // Sent from a copy: a chosen file changed on the device meanwhile fails to read here, not as a lost connection.
  form.append('file', await copyOfFile(file, name), name);
  // The answer's schema loads first (decision 113): if its code cannot be fetched, nothing has been stored yet.
  const { UploadViewSchema } = await import('../../../schema/uploads');
  return UploadViewSchema.parse(await api.post('/api/uploads', form));
}
