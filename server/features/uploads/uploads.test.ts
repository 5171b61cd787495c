import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostView } from '../../../schema/posts';
import { UPLOAD_MESSAGES, type UploadView } from '../../../schema/uploads';
import { startTestServer, type TestClient, type TestServer } from '../../test/test-server';
import { discardUploads } from './uploads.service';
import { statement } from '../../db/client';

let t: TestServer;
let client: TestClient;

beforeAll(async () => {
  t = await startTestServer();
  client = (await t.signedIn()).client;
});
afterAll(async () => {
  await t.close();
});

const GPS = {
  IFD0: { Make: 'PhoneCo', Model: 'Snapper 9' },
  IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' },
};

/** A small photo carrying camera and GPS metadata and an orientation, as a phone would send it. */
function photo(format: 'jpeg' | 'png') {
  const image = sharp({ create: { width: 40, height: 20, channels: 3, background: '#884422' } }).withExif(GPS);
  return (format === 'jpeg' ? image.jpeg() : image.png()).toBuffer();
}

function form(name: string, bytes: BlobPart, field = 'file') {
  const data = new FormData();
  data.append(field, new File([bytes], name));
  return data;
}

const uploadDirFiles = () => {
  const dir = path.join(t.dataDir, 'uploads');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};
const uploadRows = async () => (await statement(t.db, 'SELECT count(*) AS n FROM uploads').get()) as { n: number };

describe('POST /api/uploads and GET /api/uploads/{id}', () => {
  it.each(['jpeg', 'png'] as const)('re-encodes a %s photo without its GPS and camera metadata', async (format) => {
    const original = await photo(format);
    expect((await sharp(original).metadata()).exif).toBeDefined();
    const res = await client.postForm('/api/uploads', form(`holiday.${format === 'jpeg' ? 'jpg' : 'png'}`, original));
    expect(res.status).toBe(201);
    const upload = res.body as unknown as UploadView;
    expect(upload).toMatchObject({ kind: 'image', fileType: `image/${format}`, url: `/api/uploads/${upload.id}` });
    const served = await client.download(upload.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe(`image/${format}`);
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-disposition')).toMatch(/^inline;/);
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(served.headers.get('cache-control')).toMatch(/^private/);
    const meta = await sharp(served.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.width).toBe(40);
    expect(served.bytes.includes(Buffer.from('Snapper'))).toBe(false);
  });

  it('turns a photo upright by its EXIF orientation before dropping the metadata', async () => {
    const sideways = await sharp({ create: { width: 40, height: 20, channels: 3, background: '#000' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const res = await client.postForm('/api/uploads', form('sideways.jpeg', sideways));
    const served = await client.download((res.body as unknown as UploadView).url);
    const meta = await sharp(served.bytes).metadata();
    expect([meta.width, meta.height, meta.orientation]).toEqual([20, 40, undefined]);
  });

  it('stores a GIF as a PNG of its first frame', async () => {
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0f0' } })
      .gif()
      .toBuffer();
    const res = await client.postForm('/api/uploads', form('party.gif', gif));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'image', fileType: 'image/png', originalName: 'party.png' });
  });

  it('stores a large photo at most 2,560 px long, with a card variant at most 1,080 px, both removed together', async () => {
    const large = await sharp({ create: { width: 3000, height: 1500, channels: 3, background: '#884422' } })
      .jpeg()
      .toBuffer();
    const filesBefore = uploadDirFiles();
    const res = await client.postForm('/api/uploads', form('wide.jpg', large));
    expect(res.status).toBe(201);
    const upload = res.body as unknown as UploadView;
    const full = await client.download(upload.url);
    const card = await client.download(`${upload.url}?variant=card`);
    expect(await sharp(full.bytes).metadata()).toMatchObject({ width: 2560, height: 1280 });
    expect(await sharp(card.bytes).metadata()).toMatchObject({ width: 1080, height: 540 });
    expect(card.headers.get('content-length')).toBe(String(card.bytes.length));
    expect(uploadDirFiles().length).toBe(filesBefore.length + 2);

    // A picture no larger than a card has no variant: the card address serves the picture itself.
    const small = await client.postForm('/api/uploads', form('small.jpg', await photo('jpeg')));
    const smallUrl = (small.body as unknown as UploadView).url;
    expect((await client.download(`${smallUrl}?variant=card`)).bytes).toEqual((await client.download(smallUrl)).bytes);
    expect((await client.download(`${smallUrl}?variant=huge`)).status).toBe(400);

    await discardUploads(t.server.deps, [upload.id]);
    expect(uploadDirFiles().length).toBe(filesBefore.length + 1);
  });

  it('refuses a ".png" that is really HTML with 415 and stores nothing', async () => {
    const files = uploadDirFiles().length;
    const rows = (await uploadRows()).n;
    const res = await client.postForm('/api/uploads', form('cat.png', '<html><script>alert(1)</script></html>'));
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: 'unsupported_media_type', message: UPLOAD_MESSAGES.contentMismatch });
    expect(uploadDirFiles()).toHaveLength(files);
    expect((await uploadRows()).n).toBe(rows);
  });

  it.each([
    ['page.html', '<html></html>', UPLOAD_MESSAGES.typeNotAllowed],
    ['logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>', UPLOAD_MESSAGES.typeNotAllowed],
    ['run.exe', 'MZ', UPLOAD_MESSAGES.typeNotAllowed],
    ['no-extension', 'hello', UPLOAD_MESSAGES.typeNotAllowed],
    ['notes.txt', 'binary\u0000inside', UPLOAD_MESSAGES.contentMismatch],
    ['report.pdf', 'not a pdf at all', UPLOAD_MESSAGES.contentMismatch],
    ['sheet.csv', '%PDF-1.4\n%âãÏÓ\n1 0 obj\n', UPLOAD_MESSAGES.contentMismatch],
    ['letter.rtf', 'plain words', UPLOAD_MESSAGES.contentMismatch],
  ])('refuses %s with 415', async (name, content, message) => {
    const res = await client.postForm('/api/uploads', form(name, content));
    expect(res.status).toBe(415);
    expect(res.body.message).toBe(message);
  });

  it('refuses a 26 MB file with 413 and writes nothing to disk or the database', async () => {
    const files = uploadDirFiles().length;
    const rows = (await uploadRows()).n;
    const big = new Uint8Array(26 * 1024 * 1024).fill(0x61);
    const res = await client.postForm('/api/uploads', form('huge.txt', big));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
    expect(uploadDirFiles()).toHaveLength(files);
    expect((await uploadRows()).n).toBe(rows);
  });

  it('refuses a file just over 25 MB with the file-size message', async () => {
    const rows = (await uploadRows()).n;
    const big = new Uint8Array(25 * 1024 * 1024 + 1).fill(0x61);
    const res = await client.postForm('/api/uploads', form('just-over.txt', big));
    expect(res.status).toBe(413);
    expect(res.body.message).toBe(UPLOAD_MESSAGES.tooLarge);
    expect((await uploadRows()).n).toBe(rows);
  });

  it('serves a document as an attachment under its original name, stored under a random one', async () => {
    const pdf = '%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n';
    const name = 'Rota für März (v2).pdf';
    const res = await client.postForm('/api/uploads', form(name, pdf));
    expect(res.status).toBe(201);
    const upload = res.body as unknown as UploadView;
    expect(upload).toMatchObject({
      kind: 'file',
      fileType: 'application/pdf',
      originalName: name,
      fileSize: pdf.length,
    });
    const served = await client.download(upload.url);
    expect(served.headers.get('content-type')).toBe('application/pdf');
    const disposition = served.headers.get('content-disposition') ?? '';
    expect(disposition).toMatch(/^attachment;/);
    expect(disposition).toContain(
      `filename*=UTF-8''${encodeURIComponent(name).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    );
    expect(served.bytes.toString()).toBe(pdf);
    expect(uploadDirFiles().some((f) => f.includes('Rota'))).toBe(false);
  });

  it('keeps plain text and CSV as attachments with a text type', async () => {
    const csv = await client.postForm('/api/uploads', form('shifts.csv', 'name,shift\nAnn,early\n'));
    expect(csv.status).toBe(201);
    const served = await client.download((csv.body as unknown as UploadView).url);
    expect(served.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(served.headers.get('content-disposition')).toMatch(/^attachment;/);
  });

  it('makes path tricks in names harmless: only the last part, no control characters, at most 255 characters', async () => {
    const sneaky = await client.postForm('/api/uploads', form('../../etc/pass\u0001wd.txt', 'x'));
    expect(sneaky.status).toBe(201);
    expect(sneaky.body.originalName).toBe('passwd.txt');
    const long = await client.postForm('/api/uploads', form(`${'a'.repeat(400)}.txt`, 'x'));
    expect((long.body.originalName as string).length).toBe(255);
    expect(long.body.originalName).toMatch(/\.txt$/);
    expect(fs.existsSync(path.join(t.dataDir, 'etc'))).toBe(false);
  });

  it('answers 401 to a signed-out download and upload, and 404 for an unknown file', async () => {
    const res = await client.postForm('/api/uploads', form('a.txt', 'hello'));
    const url = (res.body as unknown as UploadView).url;
    expect((await t.client().download(url)).status).toBe(401);
    expect((await t.client().postForm('/api/uploads', form('a.txt', 'hello'))).status).toBe(401);
    expect((await client.download('/api/uploads/00000000-0000-0000-0000-000000000000')).status).toBe(404);
  });

  it('serves an upload private and no-store: only the service worker keeps pictures, and it forgets them at sign-out', async () => {
    const upload = (await client.postForm('/api/uploads', form('card.png', await photo('png'))))
      .body as unknown as UploadView;
    const served = await client.download(upload.url);
    expect(served.headers.get('cache-control')).toBe('private, no-store');
    expect((await client.download(`${upload.url}?variant=card`)).headers.get('cache-control')).toBe(
      'private, no-store',
    );
  });

  it('needs exactly one file in the field "file"', async () => {
    const res = await client.postForm('/api/uploads', form('a.txt', 'hello', 'other'));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(UPLOAD_MESSAGES.missingFile);
  });
});

describe('files on posts', () => {
  it('creates a post with pictures and attachments uploaded in the same multipart request', async () => {
    const data = new FormData();
    data.append('content', 'Photos from the garden');
    data.append('category', 'residents_activities');
    data.append('isUrgent', 'false');
    data.append('houseTags', 'Giles House');
    data.append('images', new File([await photo('jpeg')], 'garden.jpg'));
    data.append('images', new File([await photo('png')], 'garden-2.png'));
    data.append('attachments', new File(['Menu\n'], 'menu.txt'));
    const res = await client.postForm('/api/posts', data);
    expect(res.status).toBe(201);
    const post = res.body as unknown as PostView;
    expect(post.images).toHaveLength(2);
    expect(post.attachments).toEqual([
      expect.objectContaining({ originalName: 'menu.txt', fileType: 'text/plain; charset=utf-8', fileSize: 5 }),
    ]);
    const picture = await client.download(post.images[0]);
    expect(picture.status).toBe(200);
    expect((await sharp(picture.bytes).metadata()).exif).toBeUndefined();
  });

  it('takes a post form far above the 1 MB JSON limit', async () => {
    const data = new FormData();
    data.append('content', 'Big minutes');
    data.append('attachments', new File([new Uint8Array(3 * 1024 * 1024).fill(0x62)], 'minutes.txt'));
    const res = await client.postForm('/api/posts', data);
    expect(res.status).toBe(201);
    expect((res.body as unknown as PostView).attachments[0].fileSize).toBe(3 * 1024 * 1024);
  });

  it('keeps JSON bodies at 1 MB', async () => {
    const res = await client.post('/api/posts', { content: 'x', padding: 'y'.repeat(1024 * 1024) });
    expect(res.status).toBe(413);
  });

  it('refuses a post whose files break the rules, keeping none of its files', async () => {
    const files = uploadDirFiles().length;
    const data = new FormData();
    data.append('content', 'Bad file');
    data.append('images', new File([await photo('jpeg')], 'ok.jpg'));
    data.append('attachments', new File(['<html>'], 'evil.png'));
    const res = await client.postForm('/api/posts', data);
    expect(res.status).toBe(415);
    expect(uploadDirFiles()).toHaveLength(files);

    const tooMany = new FormData();
    tooMany.append('content', 'Too many');
    for (let i = 0; i < 21; i += 1) tooMany.append('attachments', new File(['x'], `f${i}.txt`));
    const many = await client.postForm('/api/posts', tooMany);
    expect(many.status).toBe(400);
    expect(many.body.message).toBe(UPLOAD_MESSAGES.tooManyFiles);
    expect(uploadDirFiles()).toHaveLength(files);
  });

  it('accepts files uploaded first (the offline flow) and refuses uploads that are not the author’s', async () => {
    const image = (await client.postForm('/api/uploads', form('first.jpg', await photo('jpeg'))))
      .body as unknown as UploadView;
    const doc = (await client.postForm('/api/uploads', form('doc.txt', 'hello'))).body as unknown as UploadView;
    const res = await client.post('/api/posts', {
      content: 'Uploaded before',
      images: [image.url],
      attachments: [
        { id: doc.id, url: doc.url, originalName: 'renamed-by-client.exe', fileType: 'text/html', fileSize: 1 },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.images).toEqual([image.url]);
    expect(res.body.attachments).toEqual([
      { id: doc.id, url: doc.url, originalName: 'doc.txt', fileType: 'text/plain; charset=utf-8', fileSize: 5 },
    ]);

    const other = (await t.signedIn()).client;
    const stolen = await other.post('/api/posts', { content: 'Not mine', images: [image.url] });
    expect(stolen.status).toBe(400);
    const notAPicture = await client.post('/api/posts', { content: 'Doc as image', images: [doc.url] });
    expect(notAPicture.status).toBe(400);
  });
});

describe('the sweep of uploads nothing uses', () => {
  it('removes, after a day, uploads no post or profile picture uses and old files without a record', async () => {
    const { client: owner } = await t.signedIn();
    const upload = async (name: string) =>
      (await owner.postForm('/api/uploads', form(name, await photo('png')))).body as unknown as UploadView;
    const orphan = await upload('never-posted.png');
    const used = await upload('posted.png');
    expect((await owner.post('/api/posts', { content: 'With a picture', images: [used.url] })).status).toBe(201);
    const profile = await owner.postForm(
      '/api/auth/profile-picture',
      form('me.png', await photo('png'), 'profilePicture'),
    );
    const pictureUrl = profile.body.profileImageUrl as string;
    const dir = path.join(t.dataDir, 'uploads');
    const stored = async (id: string) =>
      ((await statement(t.db, 'SELECT stored_name AS name FROM uploads WHERE id = ?').get([id])) as { name: string })
        .name;
    const orphanFile = path.join(dir, await stored(orphan.id));
    const oldStray = path.join(dir, `${'a'.repeat(32)}.png`);
    const newStray = path.join(dir, `${'b'.repeat(32)}.png`);
    fs.writeFileSync(oldStray, 'left by a crash');
    fs.writeFileSync(newStray, 'being stored');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    fs.utimesSync(oldStray, twoDaysAgo, twoDaysAgo);

    // Within the day, nothing goes.
    await t.server.uploadSweeps.sweep();
    expect((await owner.download(orphan.url)).status).toBe(200);

    t.advance(25 * 60 * 60 * 1000);
    // Written "now" by the server's moved clock.
    const serverNow = new Date(t.server.deps.now());
    fs.utimesSync(newStray, serverNow, serverNow);
    // A day later the owner's session has ended: a colleague signed in now looks.
    const { client: reader } = await t.signedIn();
    const fresh = (await reader.postForm('/api/uploads', form('just-now.png', await photo('png'))))
      .body as unknown as UploadView;
    expect(await t.server.uploadSweeps.sweep()).toBeGreaterThanOrEqual(2);
    expect((await reader.download(orphan.url)).status).toBe(404);
    expect(fs.existsSync(orphanFile)).toBe(false);
    expect(fs.existsSync(oldStray)).toBe(false);
    expect(fs.existsSync(newStray)).toBe(true);
    for (const url of [used.url, pictureUrl, fresh.url]) expect((await reader.download(url)).status).toBe(200);
  });

  it('is waited for when the server closes', async () => {
    const other = await startTestServer();
    const sweeping = other.server.uploadSweeps.sweep();
    await other.close();
    await expect(sweeping).resolves.toBeGreaterThanOrEqual(0);
  });
});
