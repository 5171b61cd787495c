import { IDBFactory, IDBKeyRange } from 'fake-indexeddb';
import { firstValueFrom } from 'rxjs';
import { beforeEach, describe, expect, it } from 'vitest';
import type { UploadView } from '../../../schema/uploads';
import type { PostLocal } from '../../db/collections';
import { ApiError, NetworkError } from '../../lib/api';
import { UnreadableFileError } from '../../lib/file-copy';
import {
  dropRefusedFile,
  pendingPosts$,
  savePendingPost,
  setPendingFilesEnvironment,
  uploadPendingPosts,
  wipePendingFiles,
  type PendingPost,
  type UploadDeps,
} from './pending-files';

function pendingPost(id: string, userId: string, names: string[], createdAt = 1000): PendingPost {
  return {
    id,
    userId,
    createdAt,
    content: ` Post ${id} `,
    category: 'company_announcement',
    isUrgent: false,
    houseTags: [],
    audienceHouses: [],
    error: null,
    files: names.map((name) => ({ name, type: 'image/png', size: 3, blob: new Blob(['abc']), uploaded: null })),
  };
}

function fakeServer(refuse: string[] = []) {
  const uploaded: string[] = [];
  const inserted: PostLocal[] = [];
  let offline = false;
  const deps: UploadDeps = {
    userId: 'me',
    async upload(_blob, name) {
      if (offline) throw new NetworkError(new TypeError('Failed to fetch'));
      if (refuse.includes(name)) throw new ApiError(415, 'Unsupported', 'no', 'This file type is not allowed.', 'x');
      uploaded.push(name);
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
    async insertPost(doc) {
      inserted.push(doc);
    },
  };
  return {
    deps,
    uploaded,
    inserted,
    setOffline: (value: boolean) => {
      offline = value;
    },
  };
}

const waiting = (userId = 'me') => firstValueFrom(pendingPosts$(userId));

describe('pending files', () => {
  beforeEach(async () => {
    setPendingFilesEnvironment({ indexedDB: new IDBFactory(), IDBKeyRange });
    await wipePendingFiles();
  });

  it('uploads the files of a waiting post, then inserts the post with their URLs and removes it', async () => {
    const server = fakeServer();
    await savePendingPost(pendingPost('p1', 'me', ['a.png', 'b.pdf']));
    expect(await waiting()).toHaveLength(1);

    await uploadPendingPosts(server.deps);

    expect(server.uploaded).toEqual(['a.png', 'b.pdf']);
    expect(server.inserted).toHaveLength(1);
    const [doc] = server.inserted;
    expect(doc).toMatchObject({
      id: 'p1',
      authorId: 'me',
      content: 'Post p1',
      images: ['/api/uploads/u-a.png'],
      attachments: [{ id: 'u-b.pdf', originalName: 'b.pdf', url: '/api/uploads/u-b.pdf' }],
      localPending: true,
    });
    expect(doc.attachments[0]).not.toHaveProperty('kind');
    expect(await waiting()).toEqual([]);
  });

  it('keeps the post while offline and never uploads a file twice', async () => {
    const server = fakeServer();
    await savePendingPost(pendingPost('p1', 'me', ['a.png', 'b.png']));
    let calls = 0;
    const flaky: UploadDeps = {
      ...server.deps,
      upload: async (blob, name) => {
        calls += 1;
        if (calls === 2) throw new NetworkError(new TypeError('Failed to fetch'));
        return server.deps.upload(blob, name);
      },
    };
    await uploadPendingPosts(flaky);
    expect(server.inserted).toEqual([]);
    const [kept] = await waiting();
    expect(kept.files.map((f) => f.uploaded?.id ?? null)).toEqual(['u-a.png', null]);

    await uploadPendingPosts(server.deps);
    expect(server.uploaded).toEqual(['a.png', 'b.png']);
    expect(server.inserted.map((d) => d.images)).toEqual([['/api/uploads/u-a.png', '/api/uploads/u-b.png']]);
  });

  it('holds a post whose file the server refuses until the user drops that file', async () => {
    const server = fakeServer(['bad.png']);
    await savePendingPost(pendingPost('p1', 'me', ['bad.png', 'good.png']));
    await uploadPendingPosts(server.deps);
    const [held] = await waiting();
    expect(held.error).toEqual({ fileIndex: 0, message: 'This file type is not allowed.' });
    expect(server.inserted).toEqual([]);

    await dropRefusedFile('p1');
    await uploadPendingPosts(server.deps);
    expect(server.inserted.map((d) => d.images)).toEqual([['/api/uploads/u-good.png']]);
  });

  it('holds a post whose file the device can no longer read with that reason, instead of trying for ever', async () => {
    const server = fakeServer();
    await savePendingPost(pendingPost('p1', 'me', ['gone.png', 'good.png']));
    // What uploadFile throws when a file kept by reference changed on the device (src/lib/file-copy.test.ts).
    const reading: UploadDeps = {
      ...server.deps,
      upload: async (blob, name) => {
        if (name === 'gone.png') throw new UnreadableFileError(name, new DOMException('', 'NotReadableError'));
        return server.deps.upload(blob, name);
      },
    };
    await uploadPendingPosts(reading);
    const [held] = await waiting();
    expect(held.error).toEqual({
      fileIndex: 0,
      message: '"gone.png" can no longer be read on this device. Remove it and choose it again.',
    });
    expect(server.inserted).toEqual([]);

    await dropRefusedFile('p1');
    await uploadPendingPosts(reading);
    expect(server.inserted.map((d) => d.images)).toEqual([['/api/uploads/u-good.png']]);
  });

  it("never uploads another user's waiting posts and removes them", async () => {
    const server = fakeServer();
    await savePendingPost(pendingPost('theirs', 'someone-else', ['x.png']));
    await savePendingPost(pendingPost('mine', 'me', []));
    await uploadPendingPosts(server.deps);
    expect(server.uploaded).toEqual([]);
    expect(server.inserted.map((d) => d.id)).toEqual(['mine']);
    expect(await waiting('someone-else')).toEqual([]);
  });

  it('creates no database until a post has to wait', async () => {
    const factory = new IDBFactory();
    setPendingFilesEnvironment({ indexedDB: factory, IDBKeyRange });
    expect(await waiting()).toEqual([]);
    await uploadPendingPosts(fakeServer().deps);
    expect(await factory.databases()).toEqual([]);
    await savePendingPost(pendingPost('p1', 'me', []));
    expect((await factory.databases()).map((d) => d.name)).toEqual(['sp_pending_files']);
    await wipePendingFiles();
    expect(await factory.databases()).toEqual([]);
  });

  it('lists waiting posts newest first and forgets them all at sign-out', async () => {
    await savePendingPost(pendingPost('old', 'me', [], 1));
    await savePendingPost(pendingPost('new', 'me', [], 2));
    expect((await waiting()).map((p) => p.id)).toEqual(['new', 'old']);
    await wipePendingFiles();
    expect(await waiting()).toEqual([]);
  });
});
