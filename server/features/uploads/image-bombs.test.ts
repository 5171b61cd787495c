import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPLOAD_MESSAGES } from '../../../schema/upload-rules';
import type { ServerProcess } from '../../test/server-process';
import { processMemory, startSignedInServerProcess } from '../../test/signed-in-server-process';

/**
 * Image bombs (docs/security.md): small files that hold pictures of 16,000 x 16,000 pixels, sent to the real server
 * in a process of its own so that its memory can be read from /proc: each decoded whole would be 768 MB of pixels.
 */
const FIXTURES = path.join(import.meta.dirname, '../../test/fixtures');
const bomb = (name: string) => zlib.gunzipSync(fs.readFileSync(path.join(FIXTURES, name)));
const JPEG_BOMB = bomb('bomb-16000x16000.jpg.gz');
const PNG_BOMB = bomb('bomb-16000x16000.png.gz');
const GROWTH_LIMIT_MB = 300;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-image-bombs-'));
let server: ServerProcess;
let cookie = '';
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ server, cookie, close } = await startSignedInServerProcess(dataDir, {
    email: 'bombs@care.example',
    firstName: 'Bomb',
    lastName: 'Tester',
    role: 'admin',
  }));
}, 60_000);

afterAll(async () => {
  await close?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function send(urlPath: string, field: string, name: string, bytes: Buffer, extra: Record<string, string> = {}) {
  const form = new FormData();
  for (const [key, value] of Object.entries(extra)) form.append(key, value);
  form.append(field, new File([new Uint8Array(bytes)], name));
  const res = await fetch(server.url + urlPath, { method: 'POST', body: form, headers: { cookie } });
  return { status: res.status, body: (await res.json()) as { message?: string } };
}

describe('pictures of too many pixels', () => {
  it('four sent at once are refused with a clear 413 and leave the server under 300 MB of growth', async () => {
    // One ordinary picture first, so the image library is loaded before the baseline is read.
    const small = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#336699' } })
      .png()
      .toBuffer();
    expect((await send('/api/uploads', 'file', 'small.png', small)).status).toBe(201);
    const stored = fs.readdirSync(path.join(dataDir, 'uploads'));
    const before = processMemory(server.pid);
    const answers = await Promise.all([
      send('/api/uploads', 'file', 'one.jpg', JPEG_BOMB),
      send('/api/uploads', 'file', 'two.png', PNG_BOMB),
      send('/api/uploads', 'file', 'three.jpg', JPEG_BOMB),
      send('/api/uploads', 'file', 'four.png', PNG_BOMB),
    ]);
    const after = processMemory(server.pid);
    expect(after.peak - before.rss, 'resident memory growth (MB)').toBeLessThan(GROWTH_LIMIT_MB);
    for (const answer of answers) {
      expect(answer).toEqual({
        status: 413,
        body: expect.objectContaining({ message: UPLOAD_MESSAGES.tooManyPixels }),
      });
    }
    expect(fs.readdirSync(path.join(dataDir, 'uploads'))).toEqual(stored);
  }, 120_000);

  it('as a profile picture or a resident photo are refused the same way', async () => {
    const before = processMemory(server.pid);
    const picture = await send('/api/auth/profile-picture', 'profilePicture', 'me.jpg', JPEG_BOMB);
    const photo = await send('/api/residents', 'photo', 'resident.png', PNG_BOMB, {
      name: 'Bomb Resident',
      houseTags: '[]',
    });
    const after = processMemory(server.pid);
    expect(after.peak - before.rss, 'resident memory growth (MB)').toBeLessThan(GROWTH_LIMIT_MB);
    expect(picture).toEqual({ status: 413, body: expect.objectContaining({ message: UPLOAD_MESSAGES.tooManyPixels }) });
    expect(photo).toEqual({ status: 413, body: expect.objectContaining({ message: UPLOAD_MESSAGES.tooManyPixels }) });
  }, 120_000);

  it('four of just under the limit sent at once are stored downscaled, under the same memory bound', async () => {
    // 6,000 x 6,000 is 36 megapixels: accepted, and each decoded whole would be 108 MB of pixels.
    const big = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#884422' } })
      .jpeg()
      .toBuffer();
    const before = processMemory(server.pid);
    const answers = await Promise.all([1, 2, 3, 4].map((n) => send('/api/uploads', 'file', `big-${n}.jpg`, big)));
    const after = processMemory(server.pid);
    expect(after.peak - before.rss, 'resident memory growth (MB)').toBeLessThan(GROWTH_LIMIT_MB);
    expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    const served = await fetch(`${server.url}${(answers[0].body as { url: string }).url}`, { headers: { cookie } });
    expect(await sharp(Buffer.from(await served.arrayBuffer())).metadata()).toMatchObject({
      width: 2560,
      height: 2560,
    });
  }, 120_000);
});
