import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROFILE_PICTURE_MESSAGES } from '../../../schema/profile-picture';
import type { DirectoryUserDoc } from '../../../schema/sync';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { statement } from '../../db/client';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

/** A phone photo: landscape, with camera and GPS metadata. */
function phonePhoto(width = 60, height = 30) {
  return sharp({ create: { width, height, channels: 3, background: '#884422' } })
    .withExif({
      IFD0: { Make: 'PhoneCo', Model: 'Snapper 9' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' },
    })
    .jpeg()
    .toBuffer();
}

function pictureForm(bytes: BlobPart, name = 'me.jpg', type = 'image/jpeg', field = 'profilePicture') {
  const form = new FormData();
  form.append(field, new File([bytes], name, { type }));
  return form;
}

const uploadRows = async () => ((await statement(t.db, 'SELECT count(*) AS n FROM uploads').get()) as { n: number }).n;
const uploadFiles = () => {
  const dir = path.join(t.dataDir, 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

async function pullDirectory(client: TestClient): Promise<DirectoryUserDoc[]> {
  const res = await client.get('/api/sync/users/pull?limit=1000');
  return (res.body as unknown as { documents: DirectoryUserDoc[] }).documents;
}

describe('POST /api/auth/profile-picture', () => {
  it('stores a square picture without metadata, answers the new profileImageUrl and audits the change', async () => {
    const { user, client } = await t.signedIn();
    const res = await client.postForm('/api/auth/profile-picture', pictureForm(await phonePhoto()));
    expect(res.status).toBe(200);
    const url = res.body.profileImageUrl as string;
    expect(url).toMatch(/^\/api\/uploads\/[\w-]+$/);
    expect(res.body).toMatchObject({ id: user.id, email: user.email });

    const served = await client.download(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    const meta = await sharp(served.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([30, 30]);
    expect(meta.exif).toBeUndefined();
    expect(served.bytes.includes(Buffer.from('Snapper'))).toBe(false);

    expect((await client.get('/api/auth/user')).body.profileImageUrl).toBe(url);
    const audit = (await statement(
      t.db,
      "SELECT count(*) AS n FROM audit_log WHERE action = 'auth.profile_picture_changed' AND actor_id = ?",
    ).get([user.id])) as { n: number };
    expect(audit.n).toBe(1);
  });

  it('crops a large picture to 512 x 512, turned upright first', async () => {
    const { client } = await t.signedIn();
    const tall = await sharp({ create: { width: 1200, height: 800, channels: 3, background: '#123456' } })
      .withMetadata({ orientation: 6 })
      .png()
      .toBuffer();
    const res = await client.postForm('/api/auth/profile-picture', pictureForm(tall, 'big.png', 'image/png'));
    expect(res.status).toBe(200);
    const served = await client.download(res.body.profileImageUrl as string);
    const meta = await sharp(served.bytes).metadata();
    expect([meta.format, meta.width, meta.height, meta.orientation]).toEqual(['png', 512, 512, undefined]);
  });

  it('reaches colleagues through the synced staff directory, and only the newest picture is kept', async () => {
    const { user, client } = await t.signedIn();
    const colleague = (await t.signedIn()).client;
    const first = await client.postForm('/api/auth/profile-picture', pictureForm(await phonePhoto()));
    const firstUrl = first.body.profileImageUrl as string;
    expect((await pullDirectory(colleague)).find((u) => u.id === user.id)?.profileImageUrl).toBe(firstUrl);
    const seqBefore = (
      (await statement(t.db, 'SELECT server_seq AS s FROM users WHERE id = ?').get([user.id])) as { s: number }
    ).s;

    const second = await client.postForm('/api/auth/profile-picture', pictureForm(await phonePhoto(40, 40)));
    const secondUrl = second.body.profileImageUrl as string;
    expect(secondUrl).not.toBe(firstUrl);
    const seqAfter = (
      (await statement(t.db, 'SELECT server_seq AS s FROM users WHERE id = ?').get([user.id])) as { s: number }
    ).s;
    expect(seqAfter).toBeGreaterThan(seqBefore);
    expect((await pullDirectory(colleague)).find((u) => u.id === user.id)?.profileImageUrl).toBe(secondUrl);
    expect((await colleague.download(firstUrl)).status).toBe(404);
    expect((await colleague.download(secondUrl)).status).toBe(200);
  });

  it('serves the picture to signed-in users only', async () => {
    const { client } = await t.signedIn();
    const res = await client.postForm('/api/auth/profile-picture', pictureForm(await phonePhoto()));
    expect((await t.client().download(res.body.profileImageUrl as string)).status).toBe(401);
  });

  it('refuses a 6 MB picture with 413 and “Please select an image smaller than 5MB.”, storing nothing', async () => {
    const { client } = await t.signedIn();
    const [rows, files] = [await uploadRows(), uploadFiles().length];
    const big = new Uint8Array(6 * 1024 * 1024).fill(0xff);
    const res = await client.postForm('/api/auth/profile-picture', pictureForm(big, 'huge.jpg'));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 'payload_too_large', message: PROFILE_PICTURE_MESSAGES.tooLarge });
    expect([await uploadRows(), uploadFiles().length]).toEqual([rows, files]);
  });

  it('refuses a picture just over 5 MB with the same message', async () => {
    const { client } = await t.signedIn();
    const justOver = new Uint8Array(5 * 1024 * 1024 + 1).fill(0xff);
    const res = await client.postForm('/api/auth/profile-picture', pictureForm(justOver, 'over.jpg'));
    expect(res.status).toBe(413);
    expect(res.body.message).toBe(PROFILE_PICTURE_MESSAGES.tooLarge);
  });

  it.each([
    ['a text file', 'hello there', 'notes.txt', 'text/plain'],
    ['HTML named as a picture', '<html><script>alert(1)</script></html>', 'me.png', 'image/png'],
    ['a PDF', '%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n', 'me.pdf', 'application/pdf'],
  ])('refuses %s with 400 "Please select an image file."', async (_name, content, name, type) => {
    const { client } = await t.signedIn();
    const rows = await uploadRows();
    const res = await client.postForm('/api/auth/profile-picture', pictureForm(content, name, type));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(PROFILE_PICTURE_MESSAGES.notImage);
    expect(await uploadRows()).toBe(rows);
  });

  it('refuses a form without the profilePicture field with 400', async () => {
    const { client } = await t.signedIn();
    const res = await client.postForm(
      '/api/auth/profile-picture',
      pictureForm(await phonePhoto(), 'me.jpg', 'image/jpeg', 'file'),
    );
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(PROFILE_PICTURE_MESSAGES.missing);
  });

  it('answers 401 when signed out', async () => {
    const res = await t.client().postForm('/api/auth/profile-picture', pictureForm(await phonePhoto()));
    expect(res.status).toBe(401);
  });
});
