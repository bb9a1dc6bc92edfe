import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { cfg, store } from '../support/platform';

type SwapBody = ((body: Buffer) => Buffer) | null;

/** An S3 client with the platform's credentials that can change the body after the SDK has signed it. */
function clientSwappingBody(swap: { body: SwapBody }, extra: Record<string, unknown> = {}): S3Client {
  const client = new S3Client({
    endpoint: cfg.S3_ENDPOINT,
    region: cfg.S3_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: cfg.S3_ACCESS_KEY_ID, secretAccessKey: cfg.S3_SECRET_ACCESS_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 1,
    ...extra,
  });
  client.middlewareStack.addRelativeTo(
    (next: any) => async (args: any) => {
      if (swap.body && Buffer.isBuffer(args.request.body)) args.request.body = swap.body(args.request.body);
      return next(args);
    },
    { relation: 'after', toMiddleware: 'httpSigningMiddleware', name: 'swapBodyAfterSigning' },
  );
  return client;
}

async function exists(key: string): Promise<boolean> {
  return store.exists(key);
}

describe('#15 S3 front: a header-signed body must match its x-amz-content-sha256', () => {
  const swap: { body: SwapBody } = { body: null };
  const client = clientSwappingBody(swap);
  const key = (name: string) => `inbox/security-${name}-${Date.now()}.bin`;
  afterEach(() => (swap.body = null));

  it('#15 S3 front: an honest signed PUT is stored', async () => {
    const k = key('honest');
    const body = Buffer.from('the body that was signed');
    const sent = await client.send(new PutObjectCommand({ Bucket: cfg.S3_BUCKET, Key: k, Body: body }));
    expect(sent.$metadata.httpStatusCode).toBe(200);
    expect((await store.getBuffer(k)).equals(body)).toBe(true);
    await store.delete(k);
  });

  it('#15 S3 front: a body that differs from the signed hash is refused and not stored', async () => {
    const k = key('tampered');
    swap.body = (signed) => Buffer.from(signed.toString().replace('signed', 'FORGED'));
    const body = Buffer.from('the body that was signed');
    expect(createHash('sha256').update(swap.body(body)).digest('hex')).not.toBe(
      createHash('sha256').update(body).digest('hex'),
    );
    await expect(
      client.send(new PutObjectCommand({ Bucket: cfg.S3_BUCKET, Key: k, Body: body })),
    ).rejects.toMatchObject({
      name: 'XAmzContentSHA256Mismatch',
      $metadata: { httpStatusCode: 400 },
    });
    expect(await exists(k)).toBe(false);
  });

  it('#15 S3 front: a large tampered body (spooled to disk) is refused and not stored', async () => {
    const k = key('tampered-large');
    // Over the 16 MiB the front verifies in memory.
    const body = Buffer.alloc(20 * 1024 * 1024, 7);
    swap.body = (signed) => {
      const copy = Buffer.from(signed);
      copy[copy.length - 1] = 8;
      return copy;
    };
    await expect(
      client.send(new PutObjectCommand({ Bucket: cfg.S3_BUCKET, Key: k, Body: body })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    expect(await exists(k)).toBe(false);
    swap.body = null;
    await client.send(new PutObjectCommand({ Bucket: cfg.S3_BUCKET, Key: k, Body: body }));
    expect((await store.getBuffer(k)).equals(body)).toBe(true);
    await store.delete(k);
  });

  it('#15 S3 front: an UNSIGNED-PAYLOAD stream upload still works (as on real S3)', async () => {
    const k = key('unsigned');
    const body = Buffer.alloc(200_000, 3);
    await client.send(
      new PutObjectCommand({ Bucket: cfg.S3_BUCKET, Key: k, Body: Readable.from([body]), ContentLength: body.length }),
    );
    expect((await store.getBuffer(k)).equals(body)).toBe(true);
    await store.delete(k);
  });

  it('#15 S3 front: an aws-chunked (STREAMING-*) upload is refused clearly, never stored with its framing', async () => {
    const k = key('chunked');
    const chunked = clientSwappingBody({ body: null }, { requestChecksumCalculation: 'WHEN_SUPPORTED' });
    const body = Buffer.alloc(100_000, 5);
    await expect(
      chunked.send(
        new PutObjectCommand({
          Bucket: cfg.S3_BUCKET,
          Key: k,
          Body: Readable.from([body]),
          ContentLength: body.length,
        }),
      ),
    ).rejects.toMatchObject({
      $metadata: { httpStatusCode: 501 },
    });
    expect(await exists(k)).toBe(false);
  });
});
