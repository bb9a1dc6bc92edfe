import { createHash, randomBytes } from 'node:crypto';
import { FileHandle, mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
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
  getBucketPath(bucket: string): string;
  getResourcePath(bucket: string, key: string, resource: string): string;
  deleteObject(bucket: string, key: string): Promise<void>;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}

// s3rver ships no types.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Store = require('s3rver/lib/stores/filesystem') as { prototype: FilesystemStore };

const PARTIAL_SUFFIX = '.partial';
/** The name a PUT writes to until its object is whole: the object's own file, a random part, the suffix. */
const UNFINISHED_PUT = /\._S3rver_object\.[0-9a-f]{12}\.partial$/;

/**
 * Removes what PUTs killed mid-body left under `directory` (s3rver's store): the files of that name
 * last written before `startedAt`, the store's start (a PUT since then may still be writing its own).
 * Walks every file of the store, so it runs beside the store, not before it serves.
 */
export async function removeUnfinishedPuts(directory: string, startedAt: Date): Promise<number> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isFile() || !UNFINISHED_PUT.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const written = await stat(file).catch(() => null);
    if (!written || written.mtime >= startedAt) continue;
    await rm(file, { force: true });
    removed++;
  }
  return removed;
}

/** Creates `file` for writing in a folder that a concurrent delete may remove (s3rver removes an emptied one). */
async function createInFolder(file: string): Promise<FileHandle> {
  for (let attempt = 1; ; attempt++) {
    try {
      await mkdir(path.dirname(file), { recursive: true });
      return await open(file, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 5) throw err;
    }
  }
}

/**
 * s3rver writes an object in place and answers once its bytes have passed a hash, not once they are
 * on disk: a GET right after the PUT could read a truncated file, a reader during a PUT saw half of it,
 * and a client gone mid-body left half an object. Its objects are now written to a file of their own
 * and renamed over the object once whole, as S3 does: a PUT is seen whole or not at all. A delete
 * removed an emptied folder while a PUT was creating its file there: the PUT's unhandled error ended
 * the whole process. The PUT now creates its file again, and the delete leaves a folder that is not
 * empty any more.
 */
export function makeS3rverPutsAtomic(): void {
  Store.prototype.putObject = async function putObject(this: FilesystemStore, object: StoredObject) {
    const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
    // Not named like an object, so a listing never shows it; while it exists, its folder is not empty.
    const partial = `${objectPath}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`;
    const md5 = createHash('md5');
    let size = 0;
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    try {
      const handle = await createInFolder(partial);
      await pipeline(
        source,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            md5.update(chunk);
            size += chunk.length;
            done(null, chunk);
          },
        }),
        handle.createWriteStream(),
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

  Store.prototype.deleteObject = async function deleteObject(this: FilesystemStore, bucket: string, key: string) {
    await Promise.all(
      ['object', 'object.md5', 'metadata.json'].map((resource) =>
        rm(this.getResourcePath(bucket, key, resource), { force: true }),
      ),
    );
    // Empty folders go, as s3rver did; one a PUT has just written into (or another delete removed) stays as it is.
    const folders = key.split('/').slice(0, -1);
    while (folders.length) {
      try {
        await rmdir(path.join(this.getBucketPath(bucket), ...folders));
      } catch {
        return;
      }
      folders.pop();
    }
  };
}
