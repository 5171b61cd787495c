import { describe, expect, it } from 'vitest';
import { copyOfFile, UnreadableFileError } from './file-copy';

/** A blob as the browser gives one whose file changed on the device since it was chosen: it cannot be read. */
const unreadable = {
  type: 'image/png',
  size: 3,
  arrayBuffer: () => Promise.reject(new DOMException('The requested file could not be read', 'NotReadableError')),
} as unknown as Blob;

describe('copyOfFile', () => {
  it('copies the bytes and the type into a blob of their own', async () => {
    const bytes = new Uint8Array([1, 2, 3, 4]);
    const file = new File([bytes], 'photo.png', { type: 'image/png' });
    const copy = await copyOfFile(file, file.name);
    expect(copy).not.toBe(file);
    expect(copy.type).toBe('image/png');
    expect(new Uint8Array(await copy.arrayBuffer())).toEqual(bytes);
  });

  it('names a file the device can no longer read, with what to do', async () => {
    const failure = copyOfFile(unreadable, 'garden.png');
    await expect(failure).rejects.toBeInstanceOf(UnreadableFileError);
    await expect(failure).rejects.toThrow(
      '"garden.png" can no longer be read on this device. Remove it and choose it again.',
    );
  });
});
