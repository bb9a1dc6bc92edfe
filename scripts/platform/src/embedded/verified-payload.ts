import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { FileHandle, open, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';

/**
 * A request body received in full and checked against the sha256 its signature covers
 * (`x-amz-content-sha256`) before any of it reaches the store. Small bodies stay in memory, larger
 * ones are spooled to a private temp file while hashing, so memory stays bounded whatever the size.
 */
export type VerifiedPayload =
  | { ok: true; length: number; stream(): Readable; dispose(): Promise<void> }
  | { ok: false; status: number; code: string; message: string };

export interface PayloadLimits {
  /** Where bodies larger than `memoryBytes` are spooled (a directory only this user can read). */
  spoolDir: string;
  memoryBytes: number;
  /** S3's own limit for a single PUT is 5 GiB. */
  maxBytes: number;
}

export async function receiveVerifiedPayload(
  body: AsyncIterable<Buffer>,
  expectedSha256: string,
  limits: PayloadLimits,
): Promise<VerifiedPayload> {
  const hash = createHash('sha256');
  const inMemory: Buffer[] = [];
  let length = 0;
  let file: { path: string; handle: FileHandle } | null = null;
  const discard = async () => {
    await file?.handle.close().catch(() => undefined);
    if (file) await rm(file.path, { force: true });
  };
  try {
    for await (const chunk of body) {
      hash.update(chunk);
      length += chunk.length;
      if (length > limits.maxBytes) {
        await discard();
        return {
          ok: false,
          status: 400,
          code: 'EntityTooLarge',
          message: 'Your proposed upload exceeds the maximum allowed object size',
        };
      }
      if (!file && length <= limits.memoryBytes) {
        inMemory.push(chunk);
        continue;
      }
      if (!file) {
        const spooled = path.join(limits.spoolDir, `put-${randomBytes(12).toString('hex')}`);
        file = { path: spooled, handle: await open(spooled, 'wx', 0o600) };
        for (const held of inMemory.splice(0)) await file.handle.write(held);
      }
      await file.handle.write(chunk);
    }
  } catch (err) {
    await discard();
    throw err;
  }
  if (hash.digest('hex') !== expectedSha256.toLowerCase()) {
    await discard();
    return {
      ok: false,
      status: 400,
      code: 'XAmzContentSHA256Mismatch',
      message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
    };
  }
  if (!file) {
    const buffer = Buffer.concat(inMemory);
    return { ok: true, length, stream: () => Readable.from(length ? [buffer] : []), dispose: async () => undefined };
  }
  await file.handle.close();
  const spooledPath = file.path;
  return {
    ok: true,
    length,
    stream: () => createReadStream(spooledPath),
    dispose: () => rm(spooledPath, { force: true }),
  };
}
