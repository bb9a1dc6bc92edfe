import { ObjectStore } from '@em/core/storage';
import path from 'node:path';
import { embeddedS3ForTests } from './embedded-s3-for-tests';
import { multipartUploads } from './multipart-uploads';

const DASHBOARD = 'http://localhost:8080';
let s3: Awaited<ReturnType<typeof embeddedS3ForTests>>;
let dir: string;
let store: ObjectStore;

beforeAll(async () => {
  s3 = await embeddedS3ForTests('multipart', { corsOrigins: [DASHBOARD] });
  ({ dir, store } = s3);
});

afterAll(() => s3?.stop());

describe('the embedded S3 for browser uploads', () => {
  it('takes a presigned PUT only with the signed length and type, and answers the dashboard with CORS', async () => {
    const body = Buffer.alloc(1000, 7);
    const url = await store.presignedPut('uploads/1/a.jpg', body.length, 'image/jpeg', 60);
    const put = (b: Buffer, type: string) =>
      fetch(url, { method: 'PUT', body: new Uint8Array(b), headers: { 'content-type': type, origin: DASHBOARD } });
    expect((await put(body, 'image/png')).status).toBe(403);
    expect((await put(body.subarray(1), 'image/jpeg')).status).toBe(403);
    const ok = await put(body, 'image/jpeg');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe(DASHBOARD);
    expect(ok.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(await store.size('uploads/1/a.jpg')).toBe(1000);
    const other = await fetch(url.replace('/a.jpg', '/b.jpg'), {
      method: 'PUT',
      body,
      headers: { 'content-type': 'image/jpeg' },
    });
    expect(other.status).toBe(403);
  });

  it('answers a preflight from the dashboard only', async () => {
    const preflight = (origin: string) =>
      fetch(`${s3.endpoint}/b/uploads/1/c.jpg`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' },
      });
    const ours = await preflight(DASHBOARD);
    expect(ours.status).toBe(200);
    expect(ours.headers.get('access-control-allow-methods')).toBe('PUT');
    expect((await preflight('https://evil.example')).status).toBe(403);
  });

  it('lists the stored parts of a multipart upload, completes it, and knows no upload after', async () => {
    const key = 'uploads/1/big.jpg';
    const id = await store.startMultipart(key, 'image/jpeg');
    for (const n of [1, 2]) {
      const url = await store.presignedPart(key, id, n, 500, 60);
      expect((await fetch(url, { method: 'PUT', body: Buffer.alloc(500, n) })).status).toBe(200);
    }
    const parts = await store.listParts(key, id);
    expect(parts?.map((p) => [p.partNumber, p.size])).toEqual([
      [1, 500],
      [2, 500],
    ]);
    expect(await store.listParts('uploads/1/other.jpg', id)).toBeNull();
    expect(await store.listParts(key, '../../etc')).toBeNull();
    expect(await store.completeMultipart(key, id, parts!)).toBe(true);
    expect(await store.size(key)).toBe(1000);
    expect(await store.listParts(key, id)).toBeNull();
    expect(await store.completeMultipart(key, id, parts!)).toBe(false);
  });

  it('aborts an upload, and refuses the new operations unsigned', async () => {
    const key = 'uploads/1/gone.jpg';
    const id = await store.startMultipart(key, 'image/jpeg');
    expect((await fetch(`${s3.endpoint}/b/${key}?uploadId=${id}`)).status).toBe(403);
    expect((await fetch(`${s3.endpoint}/b/${key}?uploadId=${id}`, { method: 'DELETE' })).status).toBe(403);
    expect(await store.listParts(key, id)).toEqual([]);
    await store.abortMultipart(key, id);
    expect(await store.listParts(key, id)).toBeNull();
  });

  it('sweeps abandoned uploads: parts and objects under the prefix older than the age, nothing else', async () => {
    const key = 'uploads/2/abandoned.jpg';
    const id = await store.startMultipart(key, 'image/jpeg');
    await store.put('uploads/2/put.jpg', Buffer.alloc(10), 'image/jpeg');
    await store.put('originals/2/kept.jpg', Buffer.alloc(10), 'image/jpeg');
    const sweeper = multipartUploads(path.join(dir, 's3'));
    expect(await sweeper.sweep('uploads/', 3600_000)).toEqual({ uploads: 0, objects: 0 });
    const swept = await sweeper.sweep('uploads/', -1);
    expect(swept.uploads).toBeGreaterThanOrEqual(1);
    expect(swept.objects).toBeGreaterThanOrEqual(1);
    expect(await store.listParts(key, id)).toBeNull();
    expect(await store.size('uploads/2/put.jpg')).toBeNull();
    expect(await store.size('originals/2/kept.jpg')).toBe(10);
  });
});
