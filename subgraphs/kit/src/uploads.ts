import { AppError } from '@em/core';
import type { FileUpload } from 'graphql-upload-minimal';

export { GraphQLUpload } from 'graphql-upload-minimal';
export type { FileUpload };

export interface UploadedFile {
  fileName: string;
  mimeType: string;
  content: Buffer;
}

/** Reads an uploaded file into memory; a file over the upload limit is a 413. */
export async function readUpload(upload: Promise<FileUpload> | FileUpload): Promise<UploadedFile> {
  const file = await upload;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of file.createReadStream()) chunks.push(Buffer.from(chunk as Buffer));
  } catch (err) {
    if ((err as { status?: number }).status === 413 || /exceeds|limit/i.test(String((err as Error).message))) {
      throw new AppError('PAYLOAD_TOO_LARGE', `${file.filename} is larger than the upload limit`);
    }
    throw new AppError('BAD_REQUEST', `${file.filename} could not be read: ${(err as Error).message}`);
  }
  return { fileName: file.filename, mimeType: file.mimetype, content: Buffer.concat(chunks) };
}
