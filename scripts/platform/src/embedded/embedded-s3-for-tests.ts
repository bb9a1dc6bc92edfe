import { ObjectStore } from '@em/core/storage';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EmbeddedS3Options, startEmbeddedS3 } from './s3';

export const TEST_CREDENTIALS = { accessKeyId: 'AKTEST', secretAccessKey: 'secret-secret-secret' };

/** An embedded S3 in a directory of its own, bucket `b`, and the platform's ObjectStore client for it. */
export async function embeddedS3ForTests(
  name: string,
  opts: Partial<EmbeddedS3Options> = {},
): Promise<{
  dir: string;
  endpoint: string;
  store: ObjectStore;
  unfinishedPutsRemoved: Promise<number>;
  stop(): Promise<void>;
}> {
  const dir = mkdtempSync(path.join(os.tmpdir(), `em-s3-${name}-`));
  const s3 = await startEmbeddedS3({
    dataDir: dir,
    port: 0,
    bucket: 'b',
    credentials: TEST_CREDENTIALS,
    publicPrefix: 'public/',
    ...opts,
  });
  const store = new ObjectStore({
    S3_ENDPOINT: s3.endpoint,
    S3_PUBLIC_ENDPOINT: undefined,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: TEST_CREDENTIALS.accessKeyId,
    S3_SECRET_ACCESS_KEY: TEST_CREDENTIALS.secretAccessKey,
    S3_BUCKET: 'b',
    S3_FORCE_PATH_STYLE: true,
    MEDIA_URL: 'http://media.test',
    DOWNLOAD_URL_TTL_SECONDS: 60,
  });
  return {
    dir,
    endpoint: s3.endpoint,
    store,
    unfinishedPutsRemoved: s3.unfinishedPutsRemoved,
    async stop() {
      await s3.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
