import { readFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { readMultipart } from './multipart';

const BOUNDARY = 'test-boundary';

/** A request whose body is `parts`, as a browser sends it (file names as raw UTF-8 bytes). */
function request(parts: Buffer): IncomingMessage {
  const req = Readable.from([parts]) as unknown as IncomingMessage;
  req.headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
  return req;
}

describe('readMultipart', () => {
  it('keeps a non-ASCII file name as the client wrote it (UTF-8), right-to-left override included', async () => {
    const name = 'photo\u202egpj.exe-été.jpg';
    const body = Buffer.concat([
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="`),
      Buffer.from(name, 'utf8'),
      Buffer.from(`"\r\nContent-Type: image/jpeg\r\n\r\nJPEG\r\n--${BOUNDARY}--\r\n`),
    ]);
    const upload = await readMultipart(request(body), { maxFileBytes: 1024, maxFiles: 2, fileFields: ['files'] });
    try {
      expect(upload.files.map((f) => f.fileName)).toEqual([name]);
      expect(readFileSync(upload.files[0].path, 'utf8')).toBe('JPEG');
    } finally {
      await upload.cleanup();
    }
  });
});
