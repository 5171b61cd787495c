import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The settings of a local S3-compatible server (s3rver) in the server's words, and how to stop it. */
export interface TestS3 {
  env: Record<string, string>;
  bucket: string;
  close: () => Promise<void>;
}

export const TEST_BUCKET = 'staff-portal-test';

/**
 * Starts s3rver on a free loopback port with one empty bucket, its objects in a temporary folder removed at close.
 * Answers null, after printing one line, when it cannot start here: the S3 tests are then skipped, never silently.
 */
export async function startTestS3(): Promise<TestS3 | null> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sp-s3-'));
  try {
    const { default: S3rver } = await import('s3rver');
    const s3 = new S3rver({
      port: 0,
      address: '127.0.0.1',
      silent: true,
      directory,
      configureBuckets: [{ name: TEST_BUCKET }],
    });
    const { port } = await s3.run();
    return {
      bucket: TEST_BUCKET,
      env: {
        S3_BUCKET: TEST_BUCKET,
        S3_ENDPOINT: `http://127.0.0.1:${port}`,
        S3_REGION: 'us-east-1',
        S3_ACCESS_KEY_ID: 'S3RVER',
        S3_SECRET_ACCESS_KEY: 'S3RVER',
        S3_FORCE_PATH_STYLE: 'true',
      },
      close: async () => {
        await s3.close();
        fs.rmSync(directory, { recursive: true, force: true });
      },
    };
  } catch (error) {
    fs.rmSync(directory, { recursive: true, force: true });
    console.log(`Skipping the S3 storage tests: a local S3 server (s3rver) did not start (${String(error)})`);
    return null;
  }
}
