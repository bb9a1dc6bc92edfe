import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { verifySigV4 } from './sigv4';

const creds = { accessKeyId: 'TESTKEY', secretAccessKey: 'test-secret-key' };
const client = new S3Client({
  endpoint: 'http://127.0.0.1:9000',
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: creds,
});

async function presigned(key: string, expiresIn = 3600, signingDate?: Date) {
  const url = new URL(
    await getSignedUrl(
      client,
      new GetObjectCommand({ Bucket: 'b', Key: key, ResponseContentDisposition: 'attachment; filename="x y.jpg"' }),
      { expiresIn, signingDate },
    ),
  );
  return { url: url.pathname + url.search, headers: { host: url.host } };
}

describe('SigV4 verification', () => {
  it("accepts the AWS SDK's own presigned URL", async () => {
    const req = await presigned('originals/1/a b+c.jpg');
    expect(verifySigV4({ method: 'GET', ...req }, creds)).toEqual({ ok: true, kind: 'query' });
  });

  it('refuses a tampered key, a tampered parameter, a wrong secret and a different method', async () => {
    const req = await presigned('originals/1/photo.jpg');
    expect(
      verifySigV4({ method: 'GET', url: req.url.replace('photo.jpg', 'other.jpg'), headers: req.headers }, creds),
    ).toMatchObject({ ok: false, status: 403 });
    expect(
      verifySigV4(
        { method: 'GET', url: req.url.replace('X-Amz-Expires=3600', 'X-Amz-Expires=3601'), headers: req.headers },
        creds,
      ),
    ).toMatchObject({ ok: false, status: 403 });
    expect(verifySigV4({ method: 'GET', ...req }, { ...creds, secretAccessKey: 'other' })).toMatchObject({
      ok: false,
      code: 'SignatureDoesNotMatch',
    });
    expect(verifySigV4({ method: 'DELETE', ...req }, creds)).toMatchObject({ ok: false });
    expect(verifySigV4({ method: 'GET', url: req.url, headers: { host: 'evil.example' } }, creds)).toMatchObject({
      ok: false,
    });
  });

  it('refuses an expired URL', async () => {
    const req = await presigned('originals/1/photo.jpg', 60, new Date(Date.now() - 120_000));
    expect(verifySigV4({ method: 'GET', ...req }, creds)).toMatchObject({
      ok: false,
      status: 403,
      message: 'Request has expired',
    });
  });

  it('lets unsigned requests through as anonymous (the store decides what they may read)', () => {
    expect(verifySigV4({ method: 'GET', url: '/b/public/x.jpg', headers: { host: 'h' } }, creds)).toEqual({
      ok: true,
      kind: 'anonymous',
    });
  });
});
