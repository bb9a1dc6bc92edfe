import type { S3Client } from '@aws-sdk/client-s3';
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Config } from '../config';

type S3Sdk = typeof import('@aws-sdk/client-s3');
type Presigner = typeof import('@aws-sdk/s3-request-presigner');
let loadedSdk: { s3: S3Sdk; presigner: Presigner } | undefined;

/**
 * The AWS SDK, required on first use: a gallery builds public URLs and needs none of it, so a service's start does
 * not run its modules (they stay in the bundle, compiled only when called).
 */
function awsSdk(): { s3: S3Sdk; presigner: Presigner } {
  /* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, not at start */
  loadedSdk ??= {
    s3: require('@aws-sdk/client-s3') as S3Sdk,
    presigner: require('@aws-sdk/s3-request-presigner') as Presigner,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return loadedSdk;
}

const s3 = () => awsSdk().s3;

// Node 20 still runs the platform (with a warning at start); the AWS SDK's own Node 22 notice would repeat in every log.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/** Object keys of the platform. Anything under `public/` is readable on the media host without signature. */
export const objectKeys = {
  original: (eventId: number, photoId: string, ext: string) => `originals/${eventId}/${photoId}${ext}`,
  large: (eventId: number, photoId: string) => `public/${eventId}/large/${photoId}.jpg`,
  thumbnail: (eventId: number, photoId: string) => `public/${eventId}/thumb/${photoId}.jpg`,
  video: (eventId: number, videoId: string, ext: string) => `videos/${eventId}/${videoId}${ext}`,
  clip: (eventId: number, requestId: string, clipId: string) => `public/${eventId}/clips/${requestId}/${clipId}.mp4`,
  /** Where an organiser drops files for the pipeline's import. */
  inbox: (eventId: number) => `inbox/${eventId}/`,
  /** Where a browser uploads a photo straight to the bucket before it is imported (the server names it). */
  upload: (eventId: number, uploadId: string, ext: string) => `uploads/${eventId}/${uploadId}${ext}`,
  uploadsPrefix: 'uploads/',
  publicPrefix: 'public/',
};

/** The S3-compatible store: originals (private, presigned downloads) and previews (public, on the media host). */
/** A key whose every segment encodeURIComponent leaves as it is (its unreserved characters, and `/` between segments). */
const UNENCODED_KEY = /^[A-Za-z0-9\-_.!~*'()/]*$/;

/** Headers a presigned upload binds besides the host: the browser cannot send another type or length. */
const SIGNED_UPLOAD_HEADERS = new Set(['content-type', 'content-length']);

function isNoSuchUpload(err: unknown): boolean {
  const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return (err as Error).name === 'NoSuchUpload' || status === 404;
}

export class ObjectStore {
  private s3Client?: S3Client;
  private presignClient?: S3Client;

  constructor(
    private readonly cfg: Pick<
      Config,
      | 'S3_ENDPOINT'
      | 'S3_PUBLIC_ENDPOINT'
      | 'S3_REGION'
      | 'S3_ACCESS_KEY_ID'
      | 'S3_SECRET_ACCESS_KEY'
      | 'S3_BUCKET'
      | 'S3_FORCE_PATH_STYLE'
      | 'MEDIA_URL'
      | 'DOWNLOAD_URL_TTL_SECONDS'
    >,
  ) {}

  /** The S3 client, made on first use (with the SDK). */
  get client(): S3Client {
    return (this.s3Client ??= this.newClient(this.cfg.S3_ENDPOINT));
  }

  /** Signs download links for the address clients reach S3 by (S3_PUBLIC_ENDPOINT), which may differ from ours. */
  private get presigner(): S3Client {
    const publicEndpoint = this.cfg.S3_PUBLIC_ENDPOINT;
    return publicEndpoint ? (this.presignClient ??= this.newClient(publicEndpoint)) : this.client;
  }

  private newClient(endpoint: string): S3Client {
    return new (s3().S3Client)({
      endpoint,
      region: this.cfg.S3_REGION,
      forcePathStyle: this.cfg.S3_FORCE_PATH_STYLE,
      credentials: { accessKeyId: this.cfg.S3_ACCESS_KEY_ID, secretAccessKey: this.cfg.S3_SECRET_ACCESS_KEY },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  get bucket(): string {
    return this.cfg.S3_BUCKET;
  }

  async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new (s3().HeadBucketCommand)({ Bucket: this.bucket }));
    } catch {
      await this.client.send(new (s3().CreateBucketCommand)({ Bucket: this.bucket }));
    }
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new (s3().PutObjectCommand)({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }),
    );
  }

  /** Uploads a file from disk, streamed (videos). */
  async putFile(key: string, file: string, contentType: string): Promise<void> {
    const { size } = await stat(file);
    await this.client.send(
      new (s3().PutObjectCommand)({
        Bucket: this.bucket,
        Key: key,
        Body: createReadStream(file),
        ContentLength: size,
        ContentType: contentType,
      }),
    );
  }

  /** Downloads an object to a file on disk, streamed (videos). */
  async download(key: string, file: string): Promise<void> {
    const out = await this.client.send(new (s3().GetObjectCommand)({ Bucket: this.bucket, Key: key }));
    await pipeline(out.Body as Readable, createWriteStream(file));
  }

  async getBuffer(key: string): Promise<Buffer> {
    const out = await this.client.send(new (s3().GetObjectCommand)({ Bucket: this.bucket, Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new (s3().DeleteObjectCommand)({ Bucket: this.bucket, Key: key }));
  }

  /** Every key under a prefix, in key order (all pages). */
  async list(prefix: string): Promise<Array<{ key: string; size: number }>> {
    const out: Array<{ key: string; size: number }> = [];
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new (s3().ListObjectsV2Command)({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const o of page.Contents ?? []) if (o.Key) out.push({ key: o.Key, size: o.Size ?? 0 });
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new (s3().HeadObjectCommand)({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return false;
      throw err;
    }
  }

  /** URL of a public object on the media host. */
  publicUrl(key: string): string {
    // Most keys hold only characters encodeURIComponent keeps: no split and re-join for them (the gallery builds 64 per page).
    return `${this.cfg.MEDIA_URL}/${UNENCODED_KEY.test(key) ? key : key.split('/').map(encodeURIComponent).join('/')}`;
  }

  /**
   * A presigned PUT a browser uploads one object with: bound to this key, this exact length and
   * content type (both signed headers: another length or type fails the signature), for `ttlSeconds`.
   */
  async presignedPut(key: string, length: number, contentType: string, ttlSeconds: number): Promise<string> {
    const command = new (s3().PutObjectCommand)({
      Bucket: this.bucket,
      Key: key,
      ContentLength: length,
      ContentType: contentType,
    });
    return awsSdk().presigner.getSignedUrl(this.presigner, command, {
      expiresIn: ttlSeconds,
      signableHeaders: SIGNED_UPLOAD_HEADERS,
    });
  }

  /** Starts a multipart upload; returns its upload id. */
  async startMultipart(key: string, contentType: string): Promise<string> {
    const out = await this.client.send(
      new (s3().CreateMultipartUploadCommand)({ Bucket: this.bucket, Key: key, ContentType: contentType }),
    );
    if (!out.UploadId) throw new Error('The object store returned no upload id');
    return out.UploadId;
  }

  /** A presigned PUT of one part of a multipart upload, bound to its number and exact length. */
  async presignedPart(
    key: string,
    uploadId: string,
    partNumber: number,
    length: number,
    ttlSeconds: number,
  ): Promise<string> {
    const command = new (s3().UploadPartCommand)({
      Bucket: this.bucket,
      Key: key,
      UploadId: uploadId,
      PartNumber: partNumber,
      ContentLength: length,
    });
    return awsSdk().presigner.getSignedUrl(this.presigner, command, { expiresIn: ttlSeconds });
  }

  /** The parts stored so far, or null when the upload is unknown (completed, aborted or never started). */
  async listParts(
    key: string,
    uploadId: string,
  ): Promise<Array<{ partNumber: number; etag: string; size: number }> | null> {
    const parts: Array<{ partNumber: number; etag: string; size: number }> = [];
    let marker: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new (s3().ListPartsCommand)({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }),
        );
        for (const p of page.Parts ?? [])
          if (p.PartNumber && p.ETag) parts.push({ partNumber: p.PartNumber, etag: p.ETag, size: p.Size ?? 0 });
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (err) {
      if (isNoSuchUpload(err)) return null;
      throw err;
    }
    return parts;
  }

  /** Joins the listed parts into the object; false when the upload is unknown. */
  async completeMultipart(key: string, uploadId: string, parts: Array<{ partNumber: number; etag: string }>) {
    try {
      await this.client.send(
        new (s3().CompleteMultipartUploadCommand)({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
        }),
      );
      return true;
    } catch (err) {
      if (isNoSuchUpload(err)) return false;
      throw err;
    }
  }

  /** Drops a multipart upload and its parts (an unknown one is already gone). */
  async abortMultipart(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(
        new (s3().AbortMultipartUploadCommand)({ Bucket: this.bucket, Key: key, UploadId: uploadId }),
      );
    } catch (err) {
      if (!isNoSuchUpload(err)) throw err;
    }
  }

  /** An object's size, or null when there is none. */
  async size(key: string): Promise<number | null> {
    try {
      const out = await this.client.send(new (s3().HeadObjectCommand)({ Bucket: this.bucket, Key: key }));
      return out.ContentLength ?? 0;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404) return null;
      throw err;
    }
  }

  /** A presigned GET that downloads under `fileName` and expires after the configured lifetime. */
  async presignedDownload(
    key: string,
    fileName: string,
    ttlSeconds = this.cfg.DOWNLOAD_URL_TTL_SECONDS,
  ): Promise<string> {
    const safeName = fileName.replace(/["\\\r\n]/g, '_');
    const command = new (s3().GetObjectCommand)({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: `attachment; filename="${safeName}"; filename*=UTF-8''${encodeURIComponent(fileName)}`,
    });
    return awsSdk().presigner.getSignedUrl(this.presigner, command, { expiresIn: ttlSeconds });
  }
}
