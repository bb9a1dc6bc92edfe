import { clientMessage, descriptorToBuffer, displayedSize, Event, Face, FaceIndexRevisions, Logger, ObjectStore, objectKeys, Orm, Photo, PhotoBib, PhotoStepErrors, probeImage, renderPreviews } from '@em/core';
import { UnrecoverableError } from 'bullmq';
import { BibReader } from '../bibs/bib-reader';
import { DetectedFace, FaceAnalyzer } from '../faces/face-analyzer';

/**
 * Processes one photo: large preview (with the event's watermark) and thumbnail into the public part of the store, BIB numbers
 * read on the original, faces (boxes, scores, descriptors) found on the large preview, then the
 * photo row, its bibs and faces in one transaction (published at once when its event is already
 * live). Idempotent: a processed photo is left as it is; a retry after a crash rewrites the same
 * object keys and replaces bibs and faces. A failing bib or face step is recorded on the photo and
 * loses nothing else.
 */
export class PhotoProcessor {
  constructor(
    private readonly orm: Orm,
    private readonly store: ObjectStore,
    private readonly faces: FaceAnalyzer,
    private readonly bibs: BibReader,
    private readonly revisions: FaceIndexRevisions,
    private readonly logger: Logger,
  ) {}

  async process(photoId: string): Promise<'processed' | 'skipped'> {
    const em = this.orm.em.fork();
    const photo = await em.findOne(Photo, { id: photoId }, { populate: ['event'] });
    if (!photo || photo.status === 'processed') return 'skipped';
    await em.nativeUpdate(Photo, { id: photoId, status: { $ne: 'processed' } }, { status: 'processing' });

    const original = await this.store.getBuffer(photo.originalKey);
    // Checked again here: an original stored before the pixel limit (or by other means) fails at once, without retries.
    const probe = await probeImage(original);
    if (!probe.ok) {
      await this.markFailed(photoId, probe.reason);
      throw new UnrecoverableError(probe.reason);
    }
    const eventId = photo.event.id;
    const [{ large, thumbnail, plainLarge }, size] = await Promise.all([renderPreviews(original, photo.event.watermarkText), displayedSize(original)]);
    const largeKey = objectKeys.large(eventId, photo.id);
    const thumbnailKey = objectKeys.thumbnail(eventId, photo.id);
    await this.store.put(largeKey, large.buffer, 'image/jpeg');
    await this.store.put(thumbnailKey, thumbnail.buffer, 'image/jpeg');

    const stepErrors: PhotoStepErrors = {};
    let bibs = new Map<string, number>();
    try {
      bibs = await this.bibs.read(original);
    } catch (err) {
      stepErrors.bibs = clientMessage(err, 'BIB reading failed');
      this.logger.warn({ photoId, err: (err as Error).message }, 'bib step failed');
    }
    let detected: DetectedFace[] = [];
    try {
      detected = await this.faces.detectAll(plainLarge.buffer);
    } catch (err) {
      stepErrors.faces = clientMessage(err, 'Face detection failed');
      this.logger.warn({ photoId, err: (err as Error).message }, 'face step failed');
    }

    const now = new Date();
    const live = await em.count(Event, { id: eventId, wentLiveAt: { $ne: null } });
    await em.transactional(async (tx) => {
      await tx.nativeDelete(PhotoBib, { photo: photoId });
      for (const [bib, confidence] of bibs) tx.create(PhotoBib, { photo: photoId, event: eventId, bib, confidence });
      await tx.nativeDelete(Face, { photo: photoId });
      for (const face of detected) {
        tx.create(Face, {
          photo: photoId,
          event: eventId,
          embedding: descriptorToBuffer(face.descriptor),
          descriptorVersion: face.descriptorVersion,
          score: face.score,
          boxX: face.box.x,
          boxY: face.box.y,
          boxWidth: face.box.width,
          boxHeight: face.box.height,
        });
      }
      await tx.nativeUpdate(
        Photo,
        { id: photoId },
        {
          status: 'processed',
          largeKey,
          largeWidth: large.width,
          largeHeight: large.height,
          thumbnailKey,
          width: size.width,
          height: size.height,
          processedAt: now,
          stepErrors: Object.keys(stepErrors).length ? stepErrors : null,
          ...(live ? { publishedAt: photo.publishedAt ?? now } : {}),
        },
      );
    });
    if (detected.length) await this.revisions.bump('photos', eventId).catch((err) => this.logger.warn({ err: (err as Error).message }, 'face index revision not bumped'));
    this.logger.debug({ photoId, bibs: bibs.size, faces: detected.length }, 'photo processed');
    return 'processed';
  }

  /** After the last attempt: the photo is failed, with the reason the organiser sees in the status. */
  async markFailed(photoId: string, reason: string): Promise<void> {
    await this.orm.em.fork().nativeUpdate(Photo, { id: photoId, status: { $ne: 'processed' } }, { status: 'failed', stepErrors: { previews: reason.slice(0, 500) } });
  }
}
