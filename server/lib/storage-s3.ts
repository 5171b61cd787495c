import type { Readable } from 'node:stream';
import type { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Config } from '../config';
import { checkKey, type FileStorage, type StoredEntry } from './storage';

type S3Settings = Extract<Config['files'], { kind: 's3' }>;
type Sdk = typeof import('@aws-sdk/client-s3');

/** The size of each part of a streamed file; S3 wants at least 5 MB for all parts but the last. */
export const PART_BYTES = 8 * 1024 * 1024;

/** Reads a stream into parts of PART_BYTES (the last one shorter), so at most one part is held at a time. */
async function* partsOf(stream: Readable): AsyncGenerator<Buffer> {
  let held: Buffer[] = [];
  let size = 0;
  // A byte stream (no object mode) yields Buffers.
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    held.push(chunk);
    size += chunk.length;
    while (size >= PART_BYTES) {
      const joined = Buffer.concat(held);
      yield joined.subarray(0, PART_BYTES);
      held = [joined.subarray(PART_BYTES)];
      size -= PART_BYTES;
    }
  }
  if (size > 0) yield Buffer.concat(held);
}

/**
 * Stores a stream: one PUT when it fits in one part, else a multipart upload. Either way the object appears only
 * when all of it is stored; a stream that fails aborts the upload, so none of it is left.
 */
async function putStream(client: S3Client, sdk: Sdk, Bucket: string, Key: string, stream: Readable): Promise<void> {
  const parts = partsOf(stream);
  const first = await parts.next();
  const second = first.done ? first : await parts.next();
  if (second.done) {
    const Body = first.done ? Buffer.alloc(0) : first.value;
    await client.send(new sdk.PutObjectCommand({ Bucket, Key, Body, ContentLength: Body.length }));
    return;
  }
  const { UploadId } = await client.send(new sdk.CreateMultipartUploadCommand({ Bucket, Key }));
  try {
    const done: { ETag: string | undefined; PartNumber: number }[] = [];
    const send = async (Body: Buffer) => {
      const PartNumber = done.length + 1;
      const part = await client.send(new sdk.UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body }));
      done.push({ ETag: part.ETag, PartNumber });
    };
    await send(first.value as Buffer); // not done: the second part came after it
    await send(second.value);
    for await (const part of parts) await send(part);
    await client.send(
      new sdk.CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }),
    );
  } catch (error) {
    await client.send(new sdk.AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
    throw error;
  }
}

/** The SDK's answer for a key that is not there: NoSuchKey from GET, a bare 404 from HEAD. */
function isMissing(error: unknown): boolean {
  const failure = error as Partial<S3ServiceException> | null; // any thrown value; only its name and status are read
  return failure?.name === 'NoSuchKey' || failure?.name === 'NotFound' || failure?.$metadata?.httpStatusCode === 404;
}

/**
 * Files as private objects of an S3-compatible bucket (decision 153). A PUT is stored whole or not at all, so no
 * reader sees half a file; the app streams objects to the browser, which never reaches the bucket.
 */
export async function s3Storage(settings: S3Settings): Promise<FileStorage> {
  // Imported here, not at the top: only a server configured for S3 loads the SDK.
  const sdk = await import('@aws-sdk/client-s3');
  const client: S3Client = new sdk.S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    credentials: settings.credentials,
    // Checksums only when the store asks: S3-compatible stores (MinIO and others) do not all know the newer ones.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = settings.bucket;
  const stat = async (key: string): Promise<StoredEntry | null> => {
    try {
      const head = await client.send(new sdk.HeadObjectCommand({ Bucket, Key: checkKey(key) }));
      return { key, size: head.ContentLength ?? 0, modifiedAt: head.LastModified?.getTime() ?? 0 };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  };
  return {
    description: `the bucket ${Bucket}${settings.endpoint ? ` at ${settings.endpoint}` : ''}`,
    async put(key, body) {
      if (!Buffer.isBuffer(body)) return putStream(client, sdk, Bucket, checkKey(key), body);
      await client.send(
        new sdk.PutObjectCommand({ Bucket, Key: checkKey(key), Body: body, ContentLength: body.length }),
      );
    },
    async get(key) {
      try {
        const object = await client.send(new sdk.GetObjectCommand({ Bucket, Key: checkKey(key) }));
        // On Node the SDK's body is the response's IncomingMessage, a Readable.
        const stream = object.Body as Readable;
        return { size: object.ContentLength ?? 0, stream };
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    stat,
    async check() {
      await client.send(new sdk.HeadBucketCommand({ Bucket }));
    },
    async delete(key) {
      await client.send(new sdk.DeleteObjectCommand({ Bucket, Key: checkKey(key) }));
    },
    async *list(area) {
      let ContinuationToken: string | undefined;
      do {
        const page = await client.send(new sdk.ListObjectsV2Command({ Bucket, Prefix: `${area}/`, ContinuationToken }));
        for (const object of page.Contents ?? []) {
          if (!object.Key) continue;
          yield { key: object.Key, size: object.Size ?? 0, modifiedAt: object.LastModified?.getTime() ?? 0 };
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },
  };
}
