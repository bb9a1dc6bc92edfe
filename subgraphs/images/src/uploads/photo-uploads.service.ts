import { AppError, newId, Principal } from '@em/core';
import { EventsRepository, guardOperation, PhotosRepository } from '@em/core/data';
import { ObjectStore, objectKeys } from '@em/core/storage';
import { PipelineService } from '../pipeline/pipeline.service';

/** What a browser may declare it uploads, and the extension the server's key gets for it. */
const UPLOAD_TYPES: Record<string, string> = {
  'image/jpeg': '.jpg',
  'image/png': '.png',
  'image/webp': '.webp',
  'image/tiff': '.tif',
  'image/heic': '.heic',
  'image/heif': '.heic',
};

/** A key this service named: `uploads/<event>/<uuid><ext>`, nothing else (no client path reaches the store). */
const UPLOAD_KEY =
  /^uploads\/(\d{1,12})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.[a-z]{3,4})$/;
/** An S3 multipart upload id: opaque, but printable and bounded (it travels in a signed URL). */
const MULTIPART_ID = /^[A-Za-z0-9._~-]{1,1024}$/;
const MAX_FILE_NAME = 255;

export interface UploadLimits {
  maxFileBytes: number;
  multipartThresholdBytes: number;
  partBytes: number;
  urlTtlSeconds: number;
}

export interface UploadPartUrl {
  partNumber: number;
  url: string;
  size: number;
}

export interface StartedUpload {
  key: string;
  /** One presigned PUT for the whole file, or null when it goes up in parts. */
  url: string | null;
  multipartUploadId: string | null;
  partSize: number | null;
  parts: UploadPartUrl[];
  expiresAt: Date;
}

export interface UploadParts {
  /** Parts already stored (skipped on resume). */
  uploaded: Array<{ partNumber: number; size: number }>;
  /** Fresh URLs for the parts still missing. */
  missing: UploadPartUrl[];
  expiresAt: Date;
}

export interface CompletedUpload {
  status: 'imported' | 'duplicate';
  imageId: string;
}

export interface UploadDeclaration {
  fileName: string;
  size: number;
  contentType: string;
}

/**
 * Photos a browser uploads straight to object storage: the server names the object (under
 * `uploads/<event>/`), signs PUTs bound to its key, length and type, and on completion checks the
 * object's size and bytes before importing it exactly as an uploaded file is imported, then queues it.
 */
export class PhotoUploadsService {
  constructor(
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
    private readonly store: ObjectStore,
    private readonly pipeline: PipelineService,
    private readonly limits: UploadLimits,
  ) {}

  async start(principal: Principal, orgId: number, eventId: number, file: UploadDeclaration): Promise<StartedUpload> {
    await guardOperation(this.events, principal, 'startPhotoUpload', orgId, eventId);
    const ext = this.checkDeclaration(file);
    const key = objectKeys.upload(eventId, newId(), ext);
    const expiresAt = this.expiry();
    if (file.size < this.limits.multipartThresholdBytes) {
      const url = await this.store.presignedPut(key, file.size, file.contentType, this.limits.urlTtlSeconds);
      return { key, url, multipartUploadId: null, partSize: null, parts: [], expiresAt };
    }
    const multipartUploadId = await this.store.startMultipart(key, file.contentType);
    const parts = await this.partUrls(key, multipartUploadId, file.size, new Set());
    return { key, url: null, multipartUploadId, partSize: this.limits.partBytes, parts, expiresAt };
  }

  /** Where a multipart upload stands: the parts stored, and fresh URLs for the others (a resumed upload). */
  async parts(
    principal: Principal,
    orgId: number,
    eventId: number,
    key: string,
    multipartUploadId: string,
    size: number,
  ): Promise<UploadParts> {
    await guardOperation(this.events, principal, 'photoUploadParts', orgId, eventId);
    this.parseKey(key, eventId);
    this.checkMultipartId(multipartUploadId);
    this.checkSize(size);
    const stored = await this.store.listParts(key, multipartUploadId);
    if (!stored) throw new AppError('NOT_FOUND', 'No such upload: it was completed, aborted or has expired');
    const done = new Set(stored.filter((p) => p.size === this.partSize(p.partNumber, size)).map((p) => p.partNumber));
    return {
      uploaded: stored.filter((p) => done.has(p.partNumber)).map((p) => ({ partNumber: p.partNumber, size: p.size })),
      missing: await this.partUrls(key, multipartUploadId, size, done),
      expiresAt: this.expiry(),
    };
  }

  /**
   * Turns the uploaded object into a photo and queues it. Idempotent: a second call answers the same
   * photo. An object that is too large or not a photo is deleted and refused with the reason.
   */
  async complete(
    principal: Principal,
    orgId: number,
    eventId: number,
    key: string,
    fileName: string,
    multipartUploadId: string | null,
  ): Promise<CompletedUpload> {
    const event = await guardOperation(this.events, principal, 'completePhotoUpload', orgId, eventId);
    const photoId = this.parseKey(key, eventId);
    const name = this.checkFileName(fileName);
    const existing = await this.photos.findInEvent(eventId, photoId);
    if (existing) return this.finish(eventId, key, photoId, { status: 'imported', imageId: photoId });

    if (multipartUploadId) {
      this.checkMultipartId(multipartUploadId);
      const parts = await this.store.listParts(key, multipartUploadId);
      // An unknown upload may have been completed by a call that crashed after it: the object says.
      if (parts && !parts.length) throw new AppError('BAD_REQUEST', 'No part of this upload was received yet');
      if (parts) await this.store.completeMultipart(key, multipartUploadId, parts);
    }
    const size = await this.store.size(key);
    if (size === null) throw new AppError('NOT_FOUND', 'No such upload: the file was not received, or has expired');
    if (size > this.limits.maxFileBytes) {
      await this.store.delete(key);
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The file is larger than the server accepts (${this.limits.maxFileBytes} bytes)`,
      );
    }
    const outcome = await this.pipeline.importFile(event, await this.store.getBuffer(key), {
      fileName: name,
      source: 'upload',
      photoId,
    });
    if (outcome.status === 'rejected') {
      await this.store.delete(key);
      throw new AppError('UNSUPPORTED_MEDIA_TYPE', `${name} is not a photo we can read: ${outcome.reason}`);
    }
    // The same id back means a concurrent completion of this upload won the insert: still this photo.
    const status = outcome.imageId === photoId ? 'imported' : outcome.status;
    return this.finish(eventId, key, photoId, { status, imageId: outcome.imageId });
  }

  /** Gives up an upload: its parts and object are removed. */
  async abort(
    principal: Principal,
    orgId: number,
    eventId: number,
    key: string,
    multipartUploadId: string | null,
  ): Promise<boolean> {
    await guardOperation(this.events, principal, 'abortPhotoUpload', orgId, eventId);
    const photoId = this.parseKey(key, eventId);
    if (multipartUploadId) {
      this.checkMultipartId(multipartUploadId);
      await this.store.abortMultipart(key, multipartUploadId);
    }
    // A completed upload's object is already gone, and its photo stays: abort is not delete.
    if (!(await this.photos.findInEvent(eventId, photoId))) await this.store.delete(key);
    return true;
  }

  private async finish(eventId: number, key: string, photoId: string, answer: CompletedUpload) {
    // Queued before the upload object goes: a crash in between is healed by completing again.
    if (answer.imageId === photoId) await this.pipeline.queueImported(eventId, [photoId]);
    await this.store.delete(key);
    return answer;
  }

  private expiry(): Date {
    return new Date(Date.now() + this.limits.urlTtlSeconds * 1000);
  }

  private partSize(partNumber: number, size: number): number {
    return Math.min(this.limits.partBytes, size - (partNumber - 1) * this.limits.partBytes);
  }

  private async partUrls(key: string, uploadId: string, size: number, done: Set<number>): Promise<UploadPartUrl[]> {
    const count = Math.ceil(size / this.limits.partBytes);
    const urls: UploadPartUrl[] = [];
    for (let n = 1; n <= count; n++) {
      if (done.has(n)) continue;
      const partSize = this.partSize(n, size);
      urls.push({
        partNumber: n,
        size: partSize,
        url: await this.store.presignedPart(key, uploadId, n, partSize, this.limits.urlTtlSeconds),
      });
    }
    return urls;
  }

  private checkDeclaration(file: UploadDeclaration): string {
    this.checkFileName(file.fileName);
    this.checkSize(file.size);
    const ext = UPLOAD_TYPES[file.contentType];
    if (!ext)
      throw new AppError(
        'UNSUPPORTED_MEDIA_TYPE',
        `${file.fileName}: unsupported type ${JSON.stringify(file.contentType.slice(0, 100))} (JPEG, PNG, WebP, TIFF or HEIF)`,
      );
    return ext;
  }

  private checkSize(size: number): void {
    if (!Number.isSafeInteger(size) || size < 1)
      throw new AppError('BAD_USER_INPUT', 'size must be a positive whole number of bytes');
    if (size > this.limits.maxFileBytes)
      throw new AppError(
        'PAYLOAD_TOO_LARGE',
        `The file is larger than the server accepts (${this.limits.maxFileBytes} bytes)`,
      );
  }

  private checkFileName(fileName: string): string {
    // eslint-disable-next-line no-control-regex
    if (!fileName || fileName.length > MAX_FILE_NAME || /[\u0000-\u001f\u007f]/.test(fileName))
      throw new AppError('BAD_USER_INPUT', `fileName must be 1-${MAX_FILE_NAME} printable characters`);
    return fileName;
  }

  private checkMultipartId(id: string): void {
    if (!MULTIPART_ID.test(id)) throw new AppError('BAD_USER_INPUT', 'multipartUploadId is not an upload id');
  }

  /** The photo id of an upload key of this event; anything else is refused as not found. */
  private parseKey(key: string, eventId: number): string {
    const match = UPLOAD_KEY.exec(key);
    if (!match || Number(match[1]) !== eventId || !Object.values(UPLOAD_TYPES).includes(match[3]))
      throw new AppError('NOT_FOUND', 'No such upload in this event');
    return match[2];
  }
}
