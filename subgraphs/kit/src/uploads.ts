import { AppError } from '@em/core';
import type { FileUpload } from 'graphql-upload-minimal';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export { GraphQLUpload } from 'graphql-upload-minimal';
export type { FileUpload };

export interface UploadedFile {
  fileName: string;
  mimeType: string;
  content: Buffer;
}

/**
 * Reads an uploaded file into memory; a file over the upload limit, or over `maxBytes` (checked
 * while it streams, so the rest is never read), is a 413.
 */
export async function readUpload(
  upload: Promise<FileUpload> | FileUpload,
  limits: { maxBytes?: number } = {},
): Promise<UploadedFile> {
  const file = await upload;
  const chunks: Buffer[] = [];
  let bytes = 0;
  const stream = file.createReadStream();
  try {
    for await (const chunk of stream) {
      bytes += (chunk as Buffer).length;
      if (limits.maxBytes !== undefined && bytes > limits.maxBytes) {
        stream.destroy();
        throw new AppError(
          'PAYLOAD_TOO_LARGE',
          `${file.filename} is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MB`,
        );
      }
      chunks.push(Buffer.from(chunk as Buffer));
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    if ((err as { status?: number }).status === 413 || /exceeds|limit/i.test(String((err as Error).message))) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${file.filename} is larger than the upload limit`);
    }
    throw new AppError('BAD_REQUEST', `${file.filename} could not be read (the upload was interrupted or malformed)`);
  }
  return { fileName: file.filename, mimeType: file.mimetype, content: Buffer.concat(chunks) };
}

/** Streams an uploaded file to a temporary file (large uploads: videos); `remove` deletes it. */
export async function saveUpload(
  upload: Promise<FileUpload> | FileUpload,
): Promise<{ path: string; fileName: string; remove(): Promise<void> }> {
  const file = await upload;
  const dir = await mkdtemp(path.join(tmpdir(), 'em-upload-'));
  const target = path.join(dir, 'upload');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await pipeline(file.createReadStream(), createWriteStream(target));
  } catch (err) {
    await remove();
    if (/exceeds|limit/i.test(String((err as Error).message)))
      throw new AppError('PAYLOAD_TOO_LARGE', `${file.filename} is larger than the upload limit`);
    throw new AppError('BAD_REQUEST', `${file.filename} could not be read (the upload was interrupted or malformed)`);
  }
  return { path: target, fileName: file.filename, remove };
}
