/** A file the device could not read: changed, moved or deleted on the device since it was chosen. */
export class UnreadableFileError extends Error {
  override readonly name = 'UnreadableFileError';
  constructor(
    readonly fileName: string,
    cause: unknown,
  ) {
    super(`"${fileName}" can no longer be read on this device. Remove it and choose it again.`, { cause });
  }
}

/**
 * The bytes of a chosen file, as a blob of their own. A chosen file is a reference to the device's copy, and the
 * browser keeps it so even in IndexedDB: once that copy changes or goes, the file can never be read or sent
 * (decision 162). A copy taken when the item is written is the user's for good.
 */
export async function copyOfFile(file: Blob, name: string): Promise<Blob> {
  try {
    return new Blob([await file.arrayBuffer()], { type: file.type });
  } catch (error) {
    throw new UnreadableFileError(name, error);
  }
}
