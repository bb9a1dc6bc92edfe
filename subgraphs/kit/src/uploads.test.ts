import { AppError } from '@em/core';
import type { FileUpload } from 'graphql-upload-minimal';
import { Readable } from 'node:stream';
import { readUpload } from './uploads';

/** An upload of 16 MB in 64 KB chunks, counting what was read. */
function bigUpload() {
  const read = { bytes: 0 };
  const file = {
    filename: 'cover.jpg',
    mimetype: 'image/jpeg',
    encoding: '7bit',
    fieldName: 'file',
    createReadStream: () =>
      new Readable({
        read() {
          if (read.bytes >= 16 * 1024 * 1024) return void this.push(null);
          read.bytes += 65536;
          this.push(Buffer.alloc(65536));
        },
      }),
  } as unknown as FileUpload;
  return { file, read };
}

describe('readUpload', () => {
  it('stops reading at maxBytes and answers 413', async () => {
    const { file, read } = bigUpload();
    const err = await readUpload(file, { maxBytes: 1024 * 1024 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err.code).toBe('PAYLOAD_TOO_LARGE');
    expect(err.message).toMatch(/cover\.jpg is larger than 1 MB/);
    expect(read.bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it('reads a file within the limit whole', async () => {
    const file = {
      filename: 'a.jpg',
      mimetype: 'image/jpeg',
      createReadStream: () => Readable.from([Buffer.from('abc'), Buffer.from('def')]),
    } as unknown as FileUpload;
    expect((await readUpload(file, { maxBytes: 6 })).content.toString()).toBe('abcdef');
  });
});
