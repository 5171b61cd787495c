import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { LIMITS } from '../../schema/constants';
import { PROFILE_PICTURE_MESSAGES, PROFILE_PICTURE_SIZE } from '../../schema/profile-picture';
import {
  ALLOWED_UPLOAD_EXTENSIONS,
  fileExtension,
  IMAGE_EXTENSIONS,
  UPLOAD_MESSAGES,
  type UploadExtension,
} from '../../schema/uploads';
import { AppError } from './errors';
import { preparePicture, prepareSquarePicture, type PictureFormat } from './images';

/** What a checked file will be stored as: its bytes (re-encoded for images), safe type and download name. */
export interface CheckedFile {
  bytes: Buffer;
  /** The smaller variant of a picture that cards show; null for files and small pictures. */
  card: Buffer | null;
  /** The content type it is served with; never SVG or HTML. */
  mime: string;
  /** The extension of the stored file, from the allow-list. */
  ext: UploadExtension;
  kind: 'image' | 'file';
  originalName: string;
}

const NAME_MAX = 255;

/** The encoder of a stored picture's extension (GIFs are stored as PNG). */
function pictureFormat(ext: UploadExtension): PictureFormat {
  if (ext === 'jpg' || ext === 'jpeg') return 'jpg';
  return ext === 'webp' ? 'webp' : 'png';
}

/** Content types served for each accepted extension. */
const MIME_BY_EXTENSION: Record<UploadExtension, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/png', // re-encoded as PNG (first frame)
  webp: 'image/webp',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  rtf: 'application/rtf',
};

/**
 * What file-type must find in the content for each extension (null: a text format it cannot see). Office
 * files of 2007 onwards are ZIP packages; a package file-type cannot name more precisely is accepted as one.
 */
const DETECTED_AS: Record<UploadExtension, readonly string[] | null> = {
  jpg: ['jpg'],
  jpeg: ['jpg'],
  png: ['png'],
  gif: ['gif'],
  webp: ['webp'],
  pdf: ['pdf'],
  doc: ['cfb'],
  xls: ['cfb'],
  ppt: ['cfb'],
  docx: ['docx', 'zip'],
  xlsx: ['xlsx', 'zip'],
  pptx: ['pptx', 'zip'],
  rtf: ['rtf'],
  txt: null,
  csv: null,
};

const unsupported = (message: string): never => {
  throw new AppError(415, 'unsupported_media_type', message);
};

export const tooLarge = (): never => {
  throw new AppError(413, 'payload_too_large', UPLOAD_MESSAGES.tooLarge);
};

/**
 * The name a download is offered under: the client's name without control characters or folders, at most 255
 * characters (keeping the extension). It is only ever sent in a header, never used as a path.
 */
export function safeOriginalName(name: string, ext: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  const cleaned = base || `file.${ext}`;
  if (cleaned.length <= NAME_MAX) return cleaned;
  const suffix = `.${ext}`;
  return cleaned.slice(0, NAME_MAX - suffix.length) + suffix;
}

/** Text without NUL bytes or control characters other than tab, line breaks, form feed and DOS end-of-file. */
export function isPlainText(bytes: Uint8Array): boolean {
  for (const byte of bytes) {
    if (
      byte < 0x20 &&
      byte !== 0x09 &&
      byte !== 0x0a &&
      byte !== 0x0b &&
      byte !== 0x0c &&
      byte !== 0x0d &&
      byte !== 0x1a
    ) {
      return false;
    }
  }
  return true;
}

const unreadableImage = (): never => unsupported(UPLOAD_MESSAGES.unreadableImage);

/** How an accepted picture is stored: the longest edge it keeps, and whether a card variant is made. */
export interface PictureSizes {
  longestEdge: number;
  cardEdge?: number;
}

/** Post pictures keep the viewer's size and get the smaller variant cards show. */
export const POST_PICTURE_SIZES: PictureSizes = {
  longestEdge: LIMITS.pictureLongestEdge,
  cardEdge: LIMITS.pictureCardEdge,
};

/**
 * Checks an uploaded file by name, size and content, and prepares what is stored: 413 over 25 MB, 415 for an
 * extension off the list or content that does not match it (a ".png" that is HTML), 413 for a picture over the
 * pixel limit (server/lib/images.ts). Nothing is written.
 */
export async function checkUploadedFile(file: File, sizes = POST_PICTURE_SIZES): Promise<CheckedFile> {
  if (file.size > LIMITS.uploadMaxBytes) tooLarge();
  const ext = fileExtension(file.name);
  if (!(ALLOWED_UPLOAD_EXTENSIONS as readonly string[]).includes(ext)) unsupported(UPLOAD_MESSAGES.typeNotAllowed);
  const allowed = ext as UploadExtension;
  const bytes = Buffer.from(await file.arrayBuffer());
  if (bytes.length > LIMITS.uploadMaxBytes) tooLarge();
  const detected = await fileTypeFromBuffer(bytes);
  const expected = DETECTED_AS[allowed];
  if (expected === null) {
    if (detected || !isPlainText(bytes)) unsupported(UPLOAD_MESSAGES.contentMismatch);
  } else if (!detected || !expected.includes(detected.ext)) {
    unsupported(UPLOAD_MESSAGES.contentMismatch);
  }
  if (allowed === 'rtf' && !isPlainText(bytes)) unsupported(UPLOAD_MESSAGES.contentMismatch);

  const kind = (IMAGE_EXTENSIONS as readonly string[]).includes(allowed) ? 'image' : 'file';
  const storedExt: UploadExtension = allowed === 'gif' ? 'png' : allowed;
  let originalName = safeOriginalName(file.name, allowed);
  if (allowed === 'gif') originalName = originalName.replace(/\.gif$/i, '.png');
  const picture =
    kind === 'image' ? await preparePicture(bytes, pictureFormat(storedExt), sizes, unreadableImage) : null;
  return {
    bytes: picture?.full ?? bytes,
    card: picture?.card ?? null,
    mime: MIME_BY_EXTENSION[allowed],
    ext: storedExt,
    kind,
    originalName,
  };
}

/** Picture formats a profile picture may arrive in (by content), and the format it is stored in. */
const PROFILE_PICTURE_FORMATS: Record<string, { ext: UploadExtension; mime: string }> = {
  jpg: { ext: 'jpg', mime: 'image/jpeg' },
  png: { ext: 'png', mime: 'image/png' },
  gif: { ext: 'png', mime: 'image/png' },
  webp: { ext: 'webp', mime: 'image/webp' },
};

/**
 * Checks and prepares a profile picture: 413 over 5 MB or the pixel limit, 400 unless the content is a JPEG,
 * PNG, GIF or WebP picture sharp can read (whatever its name says). Stored upright, cropped to the centre
 * square, at most 512 x 512 (never enlarged), without any metadata; a GIF becomes a PNG of its first frame.
 */
export async function checkProfilePicture(file: File): Promise<CheckedFile> {
  const tooLargePicture = (): never => {
    throw new AppError(413, 'payload_too_large', PROFILE_PICTURE_MESSAGES.tooLarge);
  };
  if (file.size > LIMITS.profilePictureMaxBytes) tooLargePicture();
  const bytes = Buffer.from(await file.arrayBuffer());
  if (bytes.length > LIMITS.profilePictureMaxBytes) tooLargePicture();
  const detected = await fileTypeFromBuffer(bytes);
  const format = detected ? PROFILE_PICTURE_FORMATS[detected.ext] : undefined;
  if (!format) throw new AppError(400, 'bad_request', PROFILE_PICTURE_MESSAGES.notImage);
  const output = await prepareSquarePicture(bytes, pictureFormat(format.ext), PROFILE_PICTURE_SIZE, () => {
    throw new AppError(400, 'bad_request', UPLOAD_MESSAGES.unreadableImage);
  });
  return {
    bytes: output,
    card: null,
    mime: format.mime,
    ext: format.ext,
    kind: 'image',
    originalName: `profile-picture.${format.ext}`,
  };
}

/** `inline` for pictures, `attachment` for everything else, with the original name in RFC 5987 form. */
export function contentDisposition(kind: 'image' | 'file', originalName: string): string {
  const ascii = originalName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(originalName).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind === 'image' ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

let placeholder: Promise<Buffer> | undefined;

/**
 * A neutral grey picture shown where an image cannot load (/api/placeholder-image;
 * docs/behaviour.md, "Posts and categories").
 */
export function placeholderImage(): Promise<Buffer> {
  placeholder ??= sharp({ create: { width: 400, height: 300, channels: 3, background: '#d1d5db' } })
    .png()
    .toBuffer();
  return placeholder;
}
