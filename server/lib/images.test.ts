import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../schema/constants';
import { UPLOAD_MESSAGES } from '../../schema/upload-rules';
import { AppError } from './errors';
import { inDecodeSlot, pictureSize, preparePicture } from './images';

const unreadable = (): never => {
  throw new AppError(415, 'unsupported_media_type', UPLOAD_MESSAGES.unreadableImage);
};

describe('decoding pictures', () => {
  it('runs at most two decodes at a time, however many are asked for at once', async () => {
    let running = 0;
    let most = 0;
    const work = () =>
      inDecodeSlot(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running -= 1;
        return running;
      }, unreadable);
    await Promise.all(Array.from({ length: 8 }, work));
    expect(most).toBe(2);
  });

  it('reads the size from the header and refuses more than the pixel limit before decoding', async () => {
    // A PNG header claiming 40,001 x 1,000 pixels followed by no pixel data at all: only the header is read.
    const tall = await sharp({ create: { width: 20, height: 10, channels: 3, background: '#000' } })
      .png()
      .toBuffer();
    const header = Buffer.from(tall);
    header.writeUInt32BE(LIMITS.pictureMaxPixels / 1000 + 1, 16);
    header.writeUInt32BE(1000, 20);
    await expect(pictureSize(header)).rejects.toMatchObject({ status: 413, message: UPLOAD_MESSAGES.tooManyPixels });
    await expect(pictureSize(tall)).resolves.toEqual({ width: 20, height: 10 });
  });

  it('turns the size by the EXIF orientation and keeps a small picture without a card variant', async () => {
    const turned = await sharp({ create: { width: 30, height: 10, channels: 3, background: '#000' } })
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    expect(await pictureSize(turned)).toEqual({ width: 10, height: 30 });
    const { full, card } = await preparePicture(turned, 'jpg', { longestEdge: 2560, cardEdge: 1080 }, unreadable);
    expect(await sharp(full).metadata()).toMatchObject({ width: 10, height: 30 });
    expect(card).toBeNull();
  });

  it('answers bytes that are no picture with the caller’s own refusal', async () => {
    await expect(
      preparePicture(Buffer.from('not a picture'), 'png', { longestEdge: 2560 }, unreadable),
    ).rejects.toMatchObject({ status: 415, message: UPLOAD_MESSAGES.unreadableImage });
  });
});
