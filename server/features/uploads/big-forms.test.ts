import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPLOAD_MESSAGES } from '../../../schema/upload-rules';
import { partHeaderCleaner } from '../../lib/multipart';
import type { ServerProcess } from '../../test/server-process';
import { processMemory, startSignedInServerProcess } from '../../test/signed-in-server-process';

/**
 * Forms far over their limits (docs/security.md, decision 127), sent to the real server in a process of its own so
 * that its memory can be read from /proc: each is refused while it arrives, and never held in memory.
 */
const FORM_BYTES = 500 * 1024 * 1024;
const GROWTH_LIMIT_MB = 50;
const BOUNDARY = 'BigFormBoundary7MA4YWxkTrZu0gW';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-big-forms-'));
let server: ServerProcess;
let cookie = '';
let close: (() => Promise<void>) | undefined;

/** A post form of one attachment, `total` bytes in all, generated as it is sent (the test holds 1 MB of it). */
function bigForm(total: number): Readable {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="content"\r\n\r\nMinutes\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachments"; filename="minutes.txt"\r\n` +
      'Content-Type: text/plain\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const block = Buffer.alloc(1024 * 1024, 0x61);
  let left = total - head.length - tail.length;
  function* parts() {
    yield head;
    while (left > 0) {
      const size = Math.min(left, block.length);
      left -= size;
      yield size === block.length ? block : block.subarray(0, size);
    }
    yield tail;
  }
  return Readable.from(parts(), { objectMode: false });
}

/**
 * Sends a form and resolves with the answer as soon as it comes, whether or not the server read the whole body;
 * `peak` is the highest resident memory of the server seen while the answer was awaited.
 */
function send(urlPath: string, total: number, withLength: boolean, declared = total) {
  const url = new URL(server.url);
  return new Promise<{ status: number; body: { code?: string; message?: string }; peak: number }>((resolve, reject) => {
    let peak = processMemory(server.pid).rss;
    const sampler = setInterval(() => {
      if (fs.existsSync(`/proc/${server.pid}`)) peak = Math.max(peak, processMemory(server.pid).rss);
    }, 10);
    const headers: Record<string, string> = { cookie, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    if (withLength) headers['content-length'] = String(declared);
    let answered = false;
    const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: urlPath, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        clearInterval(sampler);
        body.destroy();
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), peak });
      });
    });
    // Once the server has answered and closed, the rest of the body cannot be written: that is the point.
    req.on('error', (error) =>
      setTimeout(() => {
        if (answered) return;
        clearInterval(sampler);
        reject(error);
      }, 2000),
    );
    const body = bigForm(total);
    if (total > 0) body.pipe(req);
    else req.flushHeaders();
  });
}

beforeAll(async () => {
  ({ server, cookie, close } = await startSignedInServerProcess(dataDir, {
    email: 'forms@care.example',
    firstName: 'Form',
    lastName: 'Tester',
    role: 'staff',
  }));
}, 60_000);

afterAll(async () => {
  await close?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('a 500 MB post form', () => {
  it.each([
    ['with a Content-Length', true],
    ['sent chunked, without a length', false],
  ])(
    '%s is refused with 413 and the file-size message, and the server grows by under 50 MB',
    async (_label, withLength) => {
      // A small form and a refused one first, so the code and heap they need are in place before the baseline.
      expect((await send('/api/posts', 64 * 1024, withLength)).status).toBe(201);
      expect((await send('/api/posts', 30 * 1024 * 1024, withLength)).status).toBe(413);
      const before = processMemory(server.pid).rss;
      const answer = await send('/api/posts', FORM_BYTES, withLength);
      expect(answer.status).toBe(413);
      expect(answer.body).toEqual({ code: 'payload_too_large', message: UPLOAD_MESSAGES.tooLarge });
      expect(answer.peak - before, 'resident memory growth (MB)').toBeLessThan(GROWTH_LIMIT_MB);
      expect(fs.readdirSync(path.join(dataDir, 'tmp'))).toEqual([]);
    },
    120_000,
  );

  it('declaring more than the whole form may hold is refused before the body is read', async () => {
    // Only the headers are sent: the answer comes without a byte of the body.
    const answer = await send('/api/posts', 0, true, 600 * 1024 * 1024);
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('payload_too_large');
  }, 60_000);
});

describe('the part-header cleaner', () => {
  const form =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="evil\u0000\u0001.png"\r\n\r\n` +
    `body\u0000\u0001\r\n--x\r\n\r\n--${BOUNDARY}--\r\n`;
  const cleaned = form.replace('evil\u0000\u0001.png', 'evil.png');

  it('drops control characters from part headers only, however the body is cut into chunks', async () => {
    const bytes = Buffer.from(form, 'latin1');
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      for (const size of [1, 3, 7]) {
        const chunks = [bytes.subarray(0, cut)];
        for (let at = cut; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
        const out: Buffer[] = [];
        for await (const chunk of Readable.from(chunks).pipe(partHeaderCleaner(BOUNDARY))) out.push(chunk as Buffer);
        expect(Buffer.concat(out).toString('latin1'), `cut at ${cut}, then ${size}`).toBe(cleaned);
      }
    }
  });
});
