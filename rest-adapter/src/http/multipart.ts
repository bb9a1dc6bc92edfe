import { AppError } from '@em/core';
import Busboy from 'busboy';
import { IncomingMessage } from 'node:http';

export interface MultipartFile {
  field: string;
  fileName: string;
  mimeType: string;
  content: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: MultipartFile[];
}

export interface MultipartLimits {
  maxFileBytes: number;
  maxFiles: number;
  fileFields: string[];
}

/**
 * Reads a multipart/form-data body: text fields, and files of the expected fields. A file over
 * the size limit or too many files is a 413; a file in another field, or a broken body, a 400.
 */
export function readMultipart(req: IncomingMessage, limits: MultipartLimits): Promise<MultipartBody> {
  return new Promise((resolve, reject) => {
    let busboy: Busboy.Busboy;
    try {
      busboy = Busboy({ headers: req.headers, limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: 50, fieldSize: 64 * 1024 } });
    } catch {
      return reject(new AppError('BAD_REQUEST', 'The multipart body is malformed (boundary missing)'));
    }
    const body: MultipartBody = { fields: {}, files: [] };
    let failed: AppError | null = null;
    const fail = (err: AppError) => {
      if (!failed) failed = err;
    };
    busboy.on('field', (name, value) => {
      body.fields[name] = value;
    });
    busboy.on('file', (field, stream, info) => {
      if (!limits.fileFields.includes(field)) {
        fail(new AppError('BAD_REQUEST', `Unexpected file field "${field}"; send files as ${limits.fileFields.map((f) => `"${f}"`).join(' or ')}`));
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(new AppError('PAYLOAD_TOO_LARGE', `${info.filename || 'A file'} is larger than ${limits.maxFileBytes} bytes`)));
      stream.on('end', () => body.files.push({ field, fileName: info.filename || 'upload', mimeType: info.mimeType, content: Buffer.concat(chunks) }));
    });
    busboy.on('filesLimit', () => fail(new AppError('PAYLOAD_TOO_LARGE', `At most ${limits.maxFiles} files per request`)));
    busboy.on('error', () => fail(new AppError('BAD_REQUEST', 'The multipart body is malformed')));
    busboy.on('close', () => (failed ? reject(failed) : resolve(body)));
    req.on('aborted', () => reject(new AppError('BAD_REQUEST', 'The upload was interrupted')));
    req.pipe(busboy);
  });
}
