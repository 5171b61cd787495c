/**
 * Upload rules, texts and addresses, apart from the zod schema of an upload's answer (uploads.ts) so that the feed's
 * first script builds none (decision 113).
 */
import { LIMITS } from './constants';

/** Extensions the file pickers accept (docs/behaviour.md, "Profile and files"); the server checks the content too. */
export const ALLOWED_UPLOAD_EXTENSIONS = [
  'jpg',
  'jpeg',
  'png',
  'gif',
  'webp',
  'pdf',
  'doc',
  'docx',
  'xls',
  'xlsx',
  'ppt',
  'pptx',
  'txt',
  'csv',
  'rtf',
] as const;
export type UploadExtension = (typeof ALLOWED_UPLOAD_EXTENSIONS)[number];

/** Extensions shown inline as pictures; everything else downloads as an attachment. */
export const IMAGE_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp'] as const;

/** The `accept` attribute for file inputs. */
export const UPLOAD_ACCEPT = ALLOWED_UPLOAD_EXTENSIONS.map((ext) => `.${ext}`).join(',');

/** Lower-case extension of a file name, without the dot; '' when there is none. */
export function fileExtension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export function isAllowedUploadName(name: string): boolean {
  return (ALLOWED_UPLOAD_EXTENSIONS as readonly string[]).includes(fileExtension(name));
}

export const UPLOAD_MESSAGES = {
  tooLarge: `This file is too large. Files can be at most ${LIMITS.uploadMaxBytes / 1024 / 1024} MB.`,
  typeNotAllowed: `This file type is not allowed. Allowed types: ${ALLOWED_UPLOAD_EXTENSIONS.join(', ')}.`,
  contentMismatch: 'This file type is not allowed: its content does not match its extension.',
  unreadableImage: 'This image could not be read. Please choose another picture.',
  tooManyPixels: `This picture is too large to use: it has more than ${LIMITS.pictureMaxPixels / 1_000_000} megapixels. Please choose a smaller picture.`,
  missingFile: 'Please choose a file to upload.',
  tooManyFiles: `At most ${LIMITS.postUploaderFiles} files can be attached to a post.`,
} as const;

/** The URL of an upload, and the id in such a URL. */
export const UPLOAD_URL_PREFIX = '/api/uploads/';
export function uploadUrl(id: string): string {
  return UPLOAD_URL_PREFIX + id;
}
/** The smaller variant of a stored picture that cards show (the stored picture itself where there is none). */
export function cardPictureUrl(url: string): string {
  return url.startsWith(UPLOAD_URL_PREFIX) ? `${url}?variant=card` : url;
}
export function uploadIdFromUrl(url: string): string | null {
  if (!url.startsWith(UPLOAD_URL_PREFIX)) return null;
  const id = url.slice(UPLOAD_URL_PREFIX.length);
  return /^[A-Za-z0-9-]{1,100}$/.test(id) ? id : null;
}
