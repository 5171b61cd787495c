import pLimit from 'p-limit';
import sharp, { type Sharp } from 'sharp';
import { LIMITS } from '../../schema/constants';
import { UPLOAD_MESSAGES } from '../../schema/upload-rules';
import { AppError } from './errors';

/**
 * Every picture the server decodes goes through here (docs/security.md, "Image bombs"): its size is read from
 * the header and refused over the pixel limit before any decoding, and at most two pictures are decoded at a
 * time, so what one burst of uploads can make the server hold is bounded.
 */
const decodeSlots = pLimit(2);

export type PictureFormat = 'jpg' | 'png' | 'webp';

const tooManyPixels = (): never => {
  throw new AppError(413, 'payload_too_large', UPLOAD_MESSAGES.tooManyPixels);
};

/** A decoder for the bytes that refuses pictures above the pixel limit on its own as well. */
function decoder(bytes: Buffer): Sharp {
  return sharp(bytes, { animated: false, failOn: 'error', limitInputPixels: LIMITS.pictureMaxPixels });
}

/**
 * The picture's upright width and height from its header alone (no pixel is decoded); 413 over the pixel limit.
 * Throws sharp's own error for bytes that are no picture it can read.
 */
export async function pictureSize(bytes: Buffer): Promise<{ width: number; height: number }> {
  const { width, height, orientation } = await sharp(bytes, { animated: false }).metadata();
  if (!width || !height) throw new Error('no picture size');
  if (width * height > LIMITS.pictureMaxPixels) tooManyPixels();
  // EXIF orientations 5 to 8 turn the picture a quarter, which swaps its edges.
  return orientation && orientation >= 5 ? { width: height, height: width } : { width, height };
}

function encode(image: Sharp, format: PictureFormat): Promise<Buffer> {
  if (format === 'jpg') return image.jpeg({ quality: 85 }).toBuffer();
  if (format === 'webp') return image.webp({ quality: 85 }).toBuffer();
  return image.png().toBuffer();
}

/** Runs decoding work in one of the bounded slots; a refusal from the pixel limit keeps its own message. */
export function inDecodeSlot<T>(work: () => Promise<T>, unreadable: () => never): Promise<T> {
  return decodeSlots(async () => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof Error && /pixel limit/i.test(error.message)) return tooManyPixels();
      return unreadable();
    }
  });
}

/**
 * Re-encodes a picture for storing: upright by its EXIF orientation, every metadata block (GPS, camera) dropped,
 * at most `longestEdge` on its longest edge. With `cardEdge`, also the smaller variant cards show, or null when the
 * picture is no larger than that anyway.
 */
export function preparePicture(
  bytes: Buffer,
  format: PictureFormat,
  options: { longestEdge: number; cardEdge?: number },
  unreadable: () => never,
): Promise<{ full: Buffer; card: Buffer | null }> {
  return inDecodeSlot(async () => {
    const { width, height } = await pictureSize(bytes);
    const fit = (edge: number) =>
      encode(decoder(bytes).rotate().resize(edge, edge, { fit: 'inside', withoutEnlargement: true }), format);
    const full = await fit(options.longestEdge);
    const card = options.cardEdge && Math.max(width, height) > options.cardEdge ? await fit(options.cardEdge) : null;
    return { full, card };
  }, unreadable);
}

/** A profile picture: the centre square, at most `side` pixels wide (never enlarged), without metadata. */
export function prepareSquarePicture(
  bytes: Buffer,
  format: PictureFormat,
  side: number,
  unreadable: () => never,
): Promise<Buffer> {
  return inDecodeSlot(async () => {
    const { width, height } = await pictureSize(bytes);
    const edge = Math.min(width, height, side);
    return encode(decoder(bytes).rotate().resize(edge, edge, { fit: 'cover', position: 'centre' }), format);
  }, unreadable);
}
