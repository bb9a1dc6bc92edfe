import { AppError } from '@em/core';
import Busboy from 'busboy';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/** An uploaded file, kept on disk (never in memory) until the request is answered. */
export interface MultipartFile {
  field: string;
  fileName: string;
  mimeType: string;
  path: string;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: MultipartFile[];
  /** Removes the request's temporary files. */
  cleanup(): Promise<void>;
}

export interface MultipartLimits {
  maxFileBytes: number;
  maxFiles: number;
  fileFields: string[];
  /** A second file is refused (400) as soon as it starts, without reading it. */
  oneFile?: boolean;
}

/**
 * Streams a multipart/form-data body: text fields in memory (small, bounded), each file of the
 * expected fields into a temporary file of the request. It stops reading at the first error: a
 * file over the size limit or too many files is a 413, a file in another field or a broken body
 * a 400; the caller answers and closes the connection without reading the rest.
 */
export async function readMultipart(req: IncomingMessage, limits: MultipartLimits): Promise<MultipartBody> {
  let busboy: Busboy.Busboy;
  try {
    busboy = Busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        fileSize: limits.maxFileBytes,
        files: limits.maxFiles,
        fields: 50,
        fieldSize: 64 * 1024,
        parts: limits.maxFiles + 50,
      },
    });
  } catch {
    throw new AppError('BAD_REQUEST', 'The multipart body is malformed (boundary missing)');
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'em-upload-'));
  const body: MultipartBody = { fields: {}, files: [], cleanup: () => rm(dir, { recursive: true, force: true }) };
  try {
    await new Promise<void>((resolve, reject) => {
      const writes: Promise<void>[] = [];
      const fail = (err: AppError) => {
        req.unpipe(busboy);
        busboy.removeAllListeners('close');
        reject(err);
      };
      busboy.on('field', (name, value) => {
        body.fields[name] = value;
      });
      busboy.on('file', (field, stream, info) => {
        if (!limits.fileFields.includes(field)) {
          stream.resume();
          return fail(
            new AppError(
              'BAD_REQUEST',
              `Unexpected file field "${field}"; send files as ${limits.fileFields.map((f) => `"${f}"`).join(' or ')}`,
            ),
          );
        }
        if (limits.oneFile && body.files.length > 0) {
          stream.resume();
          return fail(new AppError('BAD_REQUEST', `Send one file only (field "${limits.fileFields[0]}")`));
        }
        const file: MultipartFile = {
          field,
          fileName: info.filename || 'upload',
          mimeType: info.mimeType,
          path: path.join(dir, String(body.files.length)),
        };
        body.files.push(file);
        stream.on('limit', () =>
          fail(
            new AppError(
              'PAYLOAD_TOO_LARGE',
              `${info.filename || 'A file'} is larger than ${limits.maxFileBytes} bytes`,
            ),
          ),
        );
        writes.push(
          pipeline(stream, createWriteStream(file.path)).catch(() =>
            fail(new AppError('BAD_REQUEST', 'The upload could not be stored')),
          ),
        );
      });
      busboy.on('filesLimit', () =>
        fail(new AppError('PAYLOAD_TOO_LARGE', `At most ${limits.maxFiles} files per request`)),
      );
      busboy.on('partsLimit', () => fail(new AppError('PAYLOAD_TOO_LARGE', 'Too many parts in the multipart body')));
      busboy.on('error', () => fail(new AppError('BAD_REQUEST', 'The multipart body is malformed')));
      busboy.on('close', () => void Promise.all(writes).then(() => resolve(), reject));
      req.on('aborted', () => fail(new AppError('BAD_REQUEST', 'The upload was interrupted')));
      req.pipe(busboy);
    });
  } catch (err) {
    await body.cleanup();
    throw err;
  }
  return body;
}
