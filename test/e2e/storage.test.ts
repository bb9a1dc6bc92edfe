import { closeDb, info, sql, store } from './support/platform';

describe('embedded S3: presigned originals, refused when forged or expired', () => {
  let key: string;
  let fileName: string;

  beforeAll(async () => {
    const [photo] = await sql(
      'select original_key, original_file_name from photos where event_id = $1 order by id limit 1',
      [info.demo.eventId],
    );
    key = photo.original_key;
    fileName = photo.original_file_name;
  });
  afterAll(closeDb);

  it('downloads the original through a presigned URL, under its file name', async () => {
    const url = await store.presignedDownload(key, fileName, 3600);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(`filename="${fileName}"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.equals(await store.getBuffer(key))).toBe(true);
  });

  it('refuses a tampered signature, another key, and no signature', async () => {
    const url = new URL(await store.presignedDownload(key, fileName, 3600));
    const sig = url.searchParams.get('X-Amz-Signature')!;
    const tampered = new URL(url);
    tampered.searchParams.set('X-Amz-Signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    expect((await fetch(tampered)).status).toBe(403);
    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace(/[^/]+$/, 'other.jpg');
    expect((await fetch(otherKey)).status).toBe(403);
    const unsigned = new URL(url);
    unsigned.search = '';
    expect((await fetch(unsigned)).status).toBe(403);
  });

  it('refuses an expired link', async () => {
    const url = await store.presignedDownload(key, fileName, 60);
    const { GetObjectCommand } = await import('@aws-sdk/client-s3');
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const past = await getSignedUrl(store.client, new GetObjectCommand({ Bucket: store.bucket, Key: key }), {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 5 * 60_000),
    });
    expect((await fetch(url)).status).toBe(200);
    const res = await fetch(past);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('Request has expired');
  });
});
