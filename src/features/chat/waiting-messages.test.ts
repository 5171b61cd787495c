import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { firstValueFrom } from 'rxjs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { UploadView } from '../../../schema/uploads';
import type { MessageLocal } from '../../db/collections';
import { ApiError, NetworkError } from '../../lib/api';
import {
  saveWaitingMessage,
  sendWaitingMessages,
  setWaitingMessagesEnvironment,
  waitingMessages$,
  type SendFilesDeps,
  type WaitingMessage,
} from './waiting-messages';

function waitingMessage(id: string, names: string[], userId = 'me'): WaitingMessage {
  return {
    id,
    userId,
    conversationId: 'g1',
    createdAt: 1000,
    writtenAt: 900,
    content: 'From the garden',
    mentions: ['ann'],
    files: names.map((name) => ({ name, type: 'image/png', size: 3, blob: new Blob(['abc']), uploaded: null })),
    error: null,
  };
}

function fakeServer(refuse: string[] = []) {
  const uploads: string[] = [];
  const inserted: MessageLocal[] = [];
  let offline = true;
  const deps: SendFilesDeps = {
    userId: 'me',
    async upload(_blob, name, conversationId) {
      if (offline) throw new NetworkError(new TypeError('Failed to fetch'));
      if (refuse.includes(name)) throw new ApiError(404, 'Not Found', 'not_found', 'Conversation not found', 'x');
      uploads.push(`${conversationId}/${name}`);
      const kind = name.endsWith('.pdf') ? 'file' : 'image';
      const view: UploadView = {
        id: `u-${name}`,
        url: `/api/uploads/u-${name}`,
        originalName: name,
        fileType: kind === 'file' ? 'application/pdf' : 'image/png',
        fileSize: 3,
        kind,
      };
      return view;
    },
    async insertMessage(doc) {
      inserted.push(doc);
    },
  };
  return { deps, uploads, inserted, online: () => (offline = false) };
}

const waiting = (userId = 'me') => firstValueFrom(waitingMessages$(userId, 'g1'));

describe('a chat message with photos or files', () => {
  beforeEach(() => {
    setWaitingMessagesEnvironment({ indexedDB: new IDBFactory(), IDBKeyRange });
  });

  it('written offline waits with its files, and is sent once with them when back online', async () => {
    const server = fakeServer();
    await saveWaitingMessage(waitingMessage('m1', ['garden.png', 'rota.pdf']));
    await sendWaitingMessages(server.deps);
    expect(server.inserted).toEqual([]);
    const [kept] = await waiting();
    expect(kept.files.map((file) => file.name)).toEqual(['garden.png', 'rota.pdf']);
    expect(kept.files[0].blob).toBeInstanceOf(Blob);

    server.online();
    await Promise.all([sendWaitingMessages(server.deps), sendWaitingMessages(server.deps)]);
    await sendWaitingMessages(server.deps);
    // Each file goes up once, for its conversation, and the message goes into the store once, with them.
    expect(server.uploads).toEqual(['g1/garden.png', 'g1/rota.pdf']);
    expect(server.inserted).toEqual([
      {
        id: 'm1',
        conversationId: 'g1',
        senderId: 'me',
        content: 'From the garden',
        createdAt: 1000,
        writtenAt: 900,
        mentions: ['ann'],
        images: ['/api/uploads/u-garden.png'],
        attachments: [
          {
            id: 'u-rota.pdf',
            url: '/api/uploads/u-rota.pdf',
            originalName: 'rota.pdf',
            fileType: 'application/pdf',
            fileSize: 3,
          },
        ],
        localPending: true,
      },
    ]);
    expect(await waiting()).toEqual([]);
  });

  it('refused a file (its conversation left meanwhile) stays, saying why, and another user never sends it', async () => {
    const server = fakeServer(['late.png']);
    server.online();
    await saveWaitingMessage(waitingMessage('m2', ['late.png']));
    await saveWaitingMessage(waitingMessage('m3', ['theirs.png'], 'someone-else'));
    await sendWaitingMessages(server.deps);
    expect(server.inserted).toEqual([]);
    expect((await waiting()).map((message) => message.error)).toEqual(['late.png: Conversation not found']);
    expect(await waiting('someone-else')).toEqual([]);
  });
});
