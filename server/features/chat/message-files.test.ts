import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAT_MESSAGES, MESSAGE_FILES_MAX, type MessageView } from '../../../schema/chat';
import type { MessageDoc, PullResponse } from '../../../schema/sync';
import { UPLOAD_MESSAGES, type UploadView } from '../../../schema/uploads';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

const path_ = (id: string) => `/api/conversations/${encodeURIComponent(id)}`;
const FIXTURES = path.join(import.meta.dirname, '../../test/fixtures');

const picture = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();

/** POST /api/uploads of one file, for a conversation when one is named. */
async function upload(client: TestClient, name: string, bytes: BlobPart, conversationId?: string) {
  const form = new FormData();
  if (conversationId !== undefined) form.append('conversationId', conversationId);
  form.append('file', new File([bytes], name));
  return client.postForm('/api/uploads', form);
}

async function uploaded(client: TestClient, name: string, bytes: BlobPart, conversationId?: string) {
  const res = await upload(client, name, bytes, conversationId);
  expect(res.status).toBe(201);
  return res.body as unknown as UploadView;
}

/** A group of three started by the first. */
async function group() {
  const people = [];
  for (const firstName of ['Ann', 'Ben', 'Cat']) people.push(await t.signedIn({ firstName }));
  const res = await people[0].client.post('/api/conversations', {
    memberIds: people.slice(1).map((p) => p.user.id),
    name: 'Photos',
  });
  expect(res.status).toBe(201);
  return { people, id: String(res.body.id) };
}

describe('photos and files in chat', () => {
  it('are sent with a message and read by its members only: not by others, not by a member once removed', async () => {
    const { people, id } = await group();
    const [ann, ben, cat] = people;
    const outsider = await t.signedIn();
    const photo = await uploaded(ann.client, 'garden.png', new Uint8Array(await picture()), id);
    const rota = await uploaded(ann.client, 'rota.txt', 'Mon: Ann', id);
    expect(photo.kind).toBe('image');

    const res = await ann.client.post(`${path_(id)}/messages`, {
      content: '',
      images: [photo.url],
      attachments: [{ id: rota.id, originalName: 'renamed-by-client.exe', fileSize: 1 }],
    });
    expect(res.status).toBe(201);
    const message = res.body as unknown as MessageView;
    expect(message.content).toBe('');
    expect(message.images).toEqual([photo.url]);
    // Names, types and sizes are the server's record, never the client's.
    expect(message.attachments).toEqual([
      { id: rota.id, url: rota.url, originalName: 'rota.txt', fileType: rota.fileType, fileSize: rota.fileSize },
    ]);
    const pulled = (await ben.client.get('/api/sync/messages/pull?limit=1000'))
      .body as unknown as PullResponse<MessageDoc>;
    expect(pulled.documents.find((doc) => doc.id === message.id)).toMatchObject({
      images: [photo.url],
      attachments: [expect.objectContaining({ id: rota.id, originalName: 'rota.txt' })],
    });

    for (const member of [ann, ben, cat]) {
      expect((await member.client.get(photo.url)).status).toBe(200);
      expect((await member.client.get(`${photo.url}?variant=card`)).status).toBe(200);
      expect((await member.client.get(rota.url)).status).toBe(200);
    }
    for (const url of [photo.url, rota.url]) {
      const refused = await outsider.client.get(url);
      expect(refused.status).toBe(404);
      expect(refused.body).toEqual({ code: 'not_found', message: 'File not found' });
    }

    // Removed from the group, Cat reads none of its files any more.
    expect((await ann.client.delete(`${path_(id)}/members/${cat.user.id}`)).status).toBe(204);
    expect((await cat.client.get(photo.url)).status).toBe(404);
    expect((await cat.client.get(rota.url)).status).toBe(404);
    expect((await ben.client.get(photo.url)).status).toBe(200);
    // Nor may she upload into it.
    expect((await upload(cat.client, 'late.txt', 'x', id)).status).toBe(404);
  });

  it('refuses a file not uploaded for this conversation, or someone else’s, with a clear message', async () => {
    const { people, id } = await group();
    const [ann, ben, cat] = people;
    const second = await ann.client.post('/api/conversations', {
      memberIds: [ben.user.id, cat.user.id],
      name: 'Second',
    });
    const plain = await uploaded(ann.client, 'plain.txt', 'for a post');
    const elsewhere = await uploaded(ann.client, 'other.txt', 'for another chat', String(second.body.id));
    // A conversation she is not in takes no upload from her.
    const notHers = await group();
    expect((await upload(ann.client, 'x.txt', 'x', notHers.id)).status).toBe(404);
    const bens = await uploaded(ben.client, 'bens.txt', 'Ben’s', id);
    for (const attachments of [[{ id: plain.id }], [{ id: elsewhere.id }], [{ id: bens.id }]]) {
      const res = await ann.client.post(`${path_(id)}/messages`, { content: 'See this', attachments });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(CHAT_MESSAGES.fileNotFound);
    }
    // A file as a picture is refused too.
    const text = await uploaded(ann.client, 'note.txt', 'not a picture', id);
    const asImage = await ann.client.post(`${path_(id)}/messages`, { content: 'x', images: [text.url] });
    expect(asImage.status).toBe(400);
    // A chat's file never goes into a post.
    const post = await ann.client.post('/api/posts', {
      content: 'From the chat',
      category: 'shifts_lifts',
      attachments: [{ id: text.id }],
    });
    expect(post.status).toBe(400);
  });

  it('keeps the limits and picture checks of a post: at most 20 files, an image bomb refused, nothing empty', async () => {
    const { people, id } = await group();
    const [ann] = people;
    const many = Array.from({ length: MESSAGE_FILES_MAX + 1 }, (_, i) => ({ id: `file-${i}` }));
    const tooMany = await ann.client.post(`${path_(id)}/messages`, { content: 'Lots', attachments: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.details).toEqual([expect.objectContaining({ message: CHAT_MESSAGES.tooManyFiles })]);

    const bomb = zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, 'bomb-16000x16000.png.gz')));
    const refused = await upload(ann.client, 'bomb.png', new Uint8Array(bomb), id);
    expect(refused.status).toBe(413);
    expect(refused.body.message).toBe(UPLOAD_MESSAGES.tooManyPixels);

    const empty = await ann.client.post(`${path_(id)}/messages`, { content: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.body.details).toEqual([expect.objectContaining({ message: CHAT_MESSAGES.messageRequired })]);
  });

  it('stay while a message holds them; one never sent is swept after a day like any unused upload', async () => {
    const { people, id } = await group();
    const [ann] = people;
    const sent = await uploaded(ann.client, 'sent.txt', 'in a message', id);
    const unsent = await uploaded(ann.client, 'unsent.txt', 'never sent', id);
    expect(
      (await ann.client.post(`${path_(id)}/messages`, { content: 'File', attachments: [{ id: sent.id }] })).status,
    ).toBe(201);
    t.advance(25 * 60 * 60 * 1000);
    await t.server.uploadSweeps.sweep();
    const exists = async (uploadId: string) =>
      (await statement(t.db, 'SELECT count(*) AS n FROM uploads WHERE id = ?').get([uploadId])) as { n: number };
    expect(await exists(sent.id)).toEqual({ n: 1 });
    expect(await exists(unsent.id)).toEqual({ n: 0 });
  });
});
