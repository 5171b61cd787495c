import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context, MiddlewareHandler } from 'hono';
import { LIMITS } from '../../schema/constants';
import { PROFILE_PICTURE_MESSAGES } from '../../schema/profile-picture';
import { RESIDENT_MESSAGES, RESIDENT_PHOTO_MAX_BYTES } from '../../schema/residents';
import { UPLOAD_MESSAGES } from '../../schema/upload-rules';
import type { AppEnv } from './context';
import { AppError } from './errors';

/** A multipart form's fields, each as the list of its values (fields such as houseTags repeat). */
export type FormFields = Record<string, (string | File)[]>;

/** What one kind of form may hold; a form past any of these is refused while it arrives (decision 127). */
export interface FormLimits {
  /** Bytes of the whole body, boundaries included. */
  maxBytes: number;
  /** Bytes of one file. */
  fileSize: number;
  files: number;
  /** Text fields (repeated ones count each time). */
  fields: number;
  /** Bytes of one text field: far above any text limit, so those still answer with their own message. */
  fieldSize: number;
  /** The 413 message for a file over `fileSize`. */
  fileTooLarge: string;
  /** The answer to one file too many, when the feature has its own (a post's 20 files). */
  tooManyFiles?: () => AppError;
}

const FIELD_BYTES = 256 * 1024;
const FIELDS = 100;
/** Room for the boundaries, part headers and text fields around a form's files. */
const FORM_OVERHEAD = 1024 * 1024;

/** The limits of each form the API reads (docs/api-feed.md, docs/api-residents.md; decision 127). */
export const FORM_LIMITS = {
  upload: {
    maxBytes: LIMITS.uploadMaxBytes + FORM_OVERHEAD,
    fileSize: LIMITS.uploadMaxBytes,
    files: 1,
    fields: FIELDS,
    fieldSize: FIELD_BYTES,
    fileTooLarge: UPLOAD_MESSAGES.tooLarge,
  },
  post: {
    maxBytes: LIMITS.postUploaderFiles * (LIMITS.uploadMaxBytes + FORM_OVERHEAD),
    fileSize: LIMITS.uploadMaxBytes,
    files: LIMITS.postUploaderFiles,
    fields: FIELDS,
    fieldSize: FIELD_BYTES,
    fileTooLarge: UPLOAD_MESSAGES.tooLarge,
    tooManyFiles: () => new AppError(400, 'bad_request', UPLOAD_MESSAGES.tooManyFiles),
  },
  resident: {
    maxBytes: RESIDENT_PHOTO_MAX_BYTES + FORM_OVERHEAD,
    fileSize: RESIDENT_PHOTO_MAX_BYTES,
    files: 1,
    fields: FIELDS,
    fieldSize: FIELD_BYTES,
    fileTooLarge: RESIDENT_MESSAGES.photoTooLarge,
  },
  profilePicture: {
    maxBytes: LIMITS.profilePictureMaxBytes + 64 * 1024,
    fileSize: LIMITS.profilePictureMaxBytes,
    files: 1,
    fields: FIELDS,
    fieldSize: FIELD_BYTES,
    fileTooLarge: PROFILE_PICTURE_MESSAGES.tooLarge,
  },
} as const satisfies Record<string, FormLimits>;

export const FORM_MESSAGES = {
  unreadable: 'The form could not be read. Please try again.',
  tooLarge: 'The request is too large',
  tooManyFiles: 'The form holds too many files.',
  tooManyFields: 'The form holds too many fields.',
  fieldTooLong: 'A field of the form is too long.',
} as const;

/** Bytes busboy refuses in a part's header (controls but tab, CR and LF); the fetch standard's parser keeps them. */
const HEADER_CONTROL = (byte: number) => (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13) || byte === 127;

/**
 * Drops control characters from the headers of a form's parts, so a file name holding one is read (and cleaned by
 * server/lib/files.ts) as the fetch standard's parser would, instead of failing the whole form; bodies pass untouched.
 */
export function partHeaderCleaner(boundary: string): Transform {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter has no CRLF before it: the body starts as if one had just been read.
  let carry = Buffer.from('\r\n');
  let inHeader = false;
  let endRun = 0;
  const clean = (bytes: Buffer, out: Buffer[]): Buffer => {
    const kept: number[] = [];
    for (let i = 0; i < bytes.length; i += 1) {
      const byte = bytes[i];
      if (!HEADER_CONTROL(byte)) kept.push(byte);
      endRun = byte === (endRun % 2 === 0 ? 13 : 10) ? endRun + 1 : byte === 13 ? 1 : 0;
      if (endRun === 4) {
        out.push(Buffer.from(kept));
        inHeader = false;
        endRun = 0;
        return bytes.subarray(i + 1);
      }
    }
    out.push(Buffer.from(kept));
    return Buffer.alloc(0);
  };
  let skip = carry.length;
  const withoutPrefix = (bytes: Buffer) => {
    const n = Math.min(skip, bytes.length);
    skip -= n;
    return bytes.subarray(n);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const out: Buffer[] = [];
      // Only the few bytes kept from the last chunk are copied: a file's body passes as the chunks it came in.
      let rest: Buffer = chunk;
      if (carry.length > 0) {
        const at = Buffer.concat([carry, chunk.subarray(0, delimiter.length - 1)]).indexOf(delimiter);
        // A delimiter may start in the kept bytes and end in this chunk, or after it when the chunk is tiny.
        const spans = chunk.length < delimiter.length - 1 || (at >= 0 && at < carry.length);
        if (spans) rest = Buffer.concat([carry, chunk]);
        else out.push(carry);
        carry = Buffer.alloc(0);
      }
      for (;;) {
        if (rest.length === 0) break;
        if (inHeader) {
          rest = clean(rest, out);
          continue;
        }
        const at = rest.indexOf(delimiter);
        if (at < 0) {
          const keep = Math.min(rest.length, delimiter.length - 1);
          out.push(rest.subarray(0, rest.length - keep));
          carry = Buffer.from(rest.subarray(rest.length - keep));
          break;
        }
        out.push(rest.subarray(0, at + delimiter.length));
        rest = rest.subarray(at + delimiter.length);
        inHeader = true;
        endRun = 0;
      }
      for (const piece of out) {
        const bytes = withoutPrefix(piece);
        if (bytes.length > 0) this.push(bytes);
      }
      done();
    },
    flush(done) {
      done(null, withoutPrefix(carry));
    },
  });
}

/** The boundary a multipart content type names (busboy has refused the form before when it names none). */
const boundaryOf = (contentType: string) =>
  /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType)?.slice(1).find(Boolean) ?? '';

/** The HTML form encoding of a file name: CR, LF and the double quote arrive percent-encoded. */
const decodeFileName = (name: string) => name.replace(/%0D/gi, '\r').replace(/%0A/gi, '\n').replace(/%22/g, '"');

/** The connection is closed after the answer, so no client sends its next request after an unread rest. */
const tooLarge = (message: string) =>
  new AppError(413, 'payload_too_large', message, undefined, { Connection: 'close' });

/** The folder under DATA_DIR where the files of forms being read are kept until their request has been answered. */
export function formFilesDir(dataDir: string): string {
  return path.join(dataDir, 'tmp');
}

/** Removes a request's form files once it has been answered, whatever the answer. */
export const removeFormFiles: MiddlewareHandler<AppEnv> = async (c, next) => {
  try {
    await next();
  } finally {
    const dir = c.get('formDir');
    if (dir) await fs.promises.rm(dir, { recursive: true, force: true });
  }
};

/**
 * Reads a multipart form as it arrives (busboy): text fields in memory, each file straight to a file of its own under
 * DATA_DIR/tmp, answered as a File that reads from there. A form past one of its limits is refused with 413 (400 for
 * one that cannot be parsed) as soon as that limit is passed, and the rest of the body is not read (decision 127).
 */
export async function readMultipart(c: Context<AppEnv>, limits: FormLimits): Promise<FormFields> {
  const body = c.req.raw.body;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': c.req.header('content-type') },
      // Browsers send file names as UTF-8, as the fetch standard's form parser reads them.
      defParamCharset: 'utf8',
      limits: {
        fileSize: limits.fileSize,
        files: limits.files,
        fields: limits.fields,
        fieldSize: limits.fieldSize,
        parts: limits.files + limits.fields,
      },
    });
  } catch {
    throw new AppError(400, 'bad_request', FORM_MESSAGES.unreadable);
  }
  if (!body) throw new AppError(400, 'bad_request', FORM_MESSAGES.unreadable);
  const root = formFilesDir(c.var.deps.config.dataDir);
  await fs.promises.mkdir(root, { recursive: true });
  const dir = await fs.promises.mkdtemp(path.join(root, 'form-'));
  c.set('formDir', dir);

  const fields: FormFields = {};
  const files: Promise<void>[] = [];
  // Busboy goes on with the part after emitting a limit: stopping it inside that event breaks its own state.
  const fail = (error: AppError) => process.nextTick(() => parser.destroy(error));
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(size > limits.maxBytes ? tooLarge(FORM_MESSAGES.tooLarge) : null, chunk);
    },
  });
  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) fail(tooLarge(FORM_MESSAGES.fieldTooLong));
    else (fields[name] ??= []).push(value);
  });
  parser.on('file', (name, stream, info) => {
    const file = path.join(dir, String(files.length));
    stream.once('limit', () => fail(tooLarge(limits.fileTooLarge)));
    files.push(
      pipeline(stream, fs.createWriteStream(file, { mode: 0o600 })).then(async () => {
        const blob = await fs.openAsBlob(file, { type: info.mimeType });
        (fields[name] ??= []).push(new File([blob], decodeFileName(info.filename ?? ''), { type: info.mimeType }));
      }),
    );
  });
  parser.once('filesLimit', () => fail(limits.tooManyFiles?.() ?? tooLarge(FORM_MESSAGES.tooManyFiles)));
  parser.once('fieldsLimit', () => fail(tooLarge(FORM_MESSAGES.tooManyFields)));
  parser.once('partsLimit', () => fail(tooLarge(FORM_MESSAGES.tooManyFields)));
  try {
    const source = Readable.fromWeb(body as NodeReadableStream); // Node's web stream type differs only in name
    await pipeline(source, counter, partHeaderCleaner(boundaryOf(c.req.header('content-type') ?? '')), parser);
    await Promise.all(files);
  } catch (error) {
    await Promise.allSettled(files);
    if (error instanceof AppError) throw error;
    throw new AppError(400, 'bad_request', FORM_MESSAGES.unreadable);
  }
  return fields;
}

/** Whether a request carries a multipart form. */
export function isMultipart(c: Context<AppEnv>): boolean {
  return /^multipart\/form-data/i.test(c.req.header('content-type') ?? '');
}
