import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

interface StoredObject {
  bucket: string;
  key: string;
  content: Readable | Buffer;
  metadata: Record<string, string>;
}

interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Store = require('s3rver/lib/stores/filesystem') as { prototype: FilesystemStore };

/**
 * s3rver writes an object in place and answers once its bytes have passed a hash, not once they are
 * on disk: a GET right after the PUT could read a truncated file, a reader during a PUT saw half of it,
 * and a client gone mid-body left half an object. Its objects are now written to a file of their own
 * and renamed over the object once whole, as S3 does: a PUT is seen whole or not at all.
 */
export function makeS3rverPutsAtomic(): void {
  Store.prototype.putObject = async function putObject(this: FilesystemStore, object: StoredObject) {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(path.dirname(objectPath), { recursive: true });
    // Not named like an object, so a listing never shows it.
    const partial = `${objectPath}.${randomBytes(6).toString('hex')}.partial`;
    const md5 = createHash('md5');
    let size = 0;
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    try {
      await pipeline(
        source,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            md5.update(chunk);
            size += chunk.length;
            done(null, chunk);
          },
        }),
        createWriteStream(partial),
      );
      const digest = md5.digest('hex');
      await this.putMetadata(object.bucket, object.key, object.metadata, digest);
      await rename(partial, objectPath);
      return { size, md5: digest };
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    }
  };
}
