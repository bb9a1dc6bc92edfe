import {
  AnnouncePhotoStatus,
  BibRead,
  clientMessage,
  ContentVersions,
  judgeBibRead,
  Logger,
  startListFor,
} from '@em/core';
import { EventsRepository, PhotosRepository, PhotoStepErrors, StartListRepository } from '@em/core/data';
import { ObjectStore, objectKeys } from '@em/core/storage';
import { CORRUPT_IMAGE, descriptorToBuffer, FaceIndexRevisions, probeImage } from '@em/core/media';
import { decodePhoto } from './photo-pixels';
import { PersonBox } from '../bibs/torso-gate';
import { faceQuality } from '../faces/face-quality';
import { displayedSize, renderPreviewsOf } from './previews';
import { UnrecoverableError } from 'bullmq';
import { OCR_MAX_SIDE } from '../bibs/bib-reader';
import { BibReading } from '../bibs/bib-reader-pool';
import { FaceAnalyzer } from '../faces/face-analyzer';
import { DetectedFace, PHOTO_FACE_OPTIONS } from '../faces/face-options';
import { PhotoStep, PhotoStepTimes, timedStep, UNTIMED_STEPS } from './photo-steps';

/**
 * Processes one photo, decoded once (decodePhoto, at most OCR_MAX_SIDE): large preview (with the
 * event's watermark) and thumbnail into the public part of the store, BIB numbers read on those
 * pixels, faces (boxes, scores, descriptors) found on the large preview's JPEG without watermark
 * (renderPreviewsOf says why the JPEG; also in the heads of the people the BIB step found), then the photo row, its bibs and faces in one
 * transaction (published at once when its event is already live; the unsure reads it touches settled in it too).
 * Idempotent: a processed photo is left as it is (its face index, content version and status announced again); a
 * retry after a crash rewrites the same object keys and replaces bibs and faces. A failing bib or face step is recorded on the photo and loses nothing else (without the
 * BIB step's people, faces are looked for on the whole photo only). Each step's wall time goes to
 * `steps` (the ml-worker's em_photo_step_seconds histogram).
 */
export class PhotoProcessor {
  constructor(
    private readonly photos: PhotosRepository,
    private readonly events: EventsRepository,
    private readonly store: ObjectStore,
    private readonly faces: Pick<FaceAnalyzer, 'detectAll'>,
    private readonly bibs: Pick<BibReading, 'readPixels'>,
    private readonly revisions: Pick<FaceIndexRevisions, 'bump'>,
    private readonly logger: Logger,
    private readonly startLists: Pick<StartListRepository, 'count' | 'bibsAmong' | 'containing'>,
    private readonly versions: Pick<ContentVersions, 'bumpContentVersion'>,
    private readonly steps: PhotoStepTimes = UNTIMED_STEPS,
    private readonly announce: AnnouncePhotoStatus = async () => undefined,
  ) {}

  async process(photoId: string): Promise<'processed' | 'skipped'> {
    const photo = await this.photos.findWithEvent(photoId);
    if (!photo) return 'skipped';
    if (photo.status === 'processed') {
      // Only a retry sees its photo processed (one job a photo): a crash may have come after the save, before the
      // bumps and the announcement that follow it.
      await this.bumpFaceIndex(photo.event.id);
      await this.versions.bumpContentVersion(photo.event.id);
      await this.announce({ eventId: photo.event.id, photoId, status: 'processed', reason: null });
      return 'skipped';
    }
    await this.photos.markProcessing(photoId);
    await this.announce({ eventId: photo.event.id, photoId, status: 'processing', reason: null });

    const step = <T>(name: PhotoStep, work: () => Promise<T>) => timedStep(this.steps, name, work);
    const original = await step('fetch', () => this.store.getBuffer(photo.originalKey));
    const pixels = await step('decode', async () => {
      // Checked again here: an original stored before the pixel limit (or by other means) fails at once, without retries.
      const probe = await probeImage(original, { decode: false });
      if (!probe.ok) await this.failAtOnce(photoId, probe.reason);
      return decodePhoto(original, OCR_MAX_SIDE).catch(() => this.failAtOnce(photoId, CORRUPT_IMAGE));
    });
    const eventId = photo.event.id;
    const [{ large, thumbnail, plainLarge }, size] = await step('previews', () =>
      Promise.all([renderPreviewsOf(pixels, photo.event.watermarkText), displayedSize(original)]),
    );
    const largeKey = objectKeys.large(eventId, photo.id);
    const thumbnailKey = objectKeys.thumbnail(eventId, photo.id);
    await step('store', () =>
      Promise.all([
        this.store.put(largeKey, large.buffer, 'image/jpeg'),
        this.store.put(thumbnailKey, thumbnail.buffer, 'image/jpeg'),
      ]),
    );

    const stepErrors: PhotoStepErrors = {};
    let reads: BibRead[] = [];
    let people: PersonBox[] = [];
    try {
      const reading = await step('bibs', () => this.bibs.readPixels(pixels));
      reads = oneReadPerNumber(reading.reads);
      people = reading.people ?? [];
    } catch (err) {
      stepErrors.bibs = clientMessage(err, 'BIB reading failed');
      this.logger.warn({ photoId, err: (err as Error).message }, 'bib step failed');
    }
    let detected: DetectedFace[] = [];
    try {
      detected = await step('faces', () => this.faces.detectAll(plainLarge.buffer, PHOTO_FACE_OPTIONS, people));
    } catch (err) {
      stepErrors.faces = clientMessage(err, 'Face detection failed');
      this.logger.warn({ photoId, err: (err as Error).message }, 'face step failed');
    }

    const saved = await step('save', async () => {
      const startList = reads.length ? await startListFor(this.startLists, eventId, reads) : null;
      const bibs = reads.map((read) => ({ read, judged: judgeBibRead(read, startList) }));
      const now = new Date();
      const live = await this.events.isLive(eventId);
      const changedElsewhere = await this.photos.saveProcessed(photoId, eventId, {
        largeKey,
        largeWidth: large.width,
        largeHeight: large.height,
        thumbnailKey,
        width: size.width,
        height: size.height,
        processedAt: now,
        stepErrors: Object.keys(stepErrors).length ? stepErrors : null,
        publishAt: live ? now : null,
        bibs,
        faces: detected.map((face) => ({
          embedding: descriptorToBuffer(face.descriptor),
          descriptorVersion: face.descriptorVersion,
          quality: faceQuality(face.signals),
          score: face.score,
          box: face.box,
        })),
      });
      if (detected.length) await this.bumpFaceIndex(eventId);
      return { live, changedElsewhere };
    });
    // Published now, or published before and processed again (its BIBs and faces may differ), or another photo's
    // unsure read confirmed or taken back by this one.
    if (saved.live || photo.publishedAt || saved.changedElsewhere.length)
      await this.versions.bumpContentVersion(eventId);
    await this.announce({ eventId, photoId, status: 'processed', reason: null });
    this.logger.debug({ photoId, bibs: reads.length, faces: detected.length }, 'photo processed');
    return 'processed';
  }

  private async bumpFaceIndex(eventId: number): Promise<void> {
    await this.revisions
      .bump('photos', eventId)
      .catch((err) => this.logger.warn({ err: (err as Error).message }, 'face index revision not bumped'));
  }

  private async failAtOnce(photoId: string, reason: string): Promise<never> {
    await this.markFailed(photoId, reason);
    throw new UnrecoverableError(reason);
  }

  /** After the last attempt: the photo is failed, with the reason the organiser sees in the status. */
  async markFailed(photoId: string, reason: string): Promise<void> {
    await this.photos.markFailed(photoId, reason);
    const photo = await this.photos.findWithEvent(photoId);
    if (photo) await this.announce({ eventId: photo.event.id, photoId, status: 'failed', reason });
  }
}

/** A number read twice on one photo (two boxes) is one bib, at its best confidence; partial reads stay apart. */
function oneReadPerNumber(reads: BibRead[]): BibRead[] {
  const whole = new Map<string, BibRead>();
  for (const read of reads) {
    if (read.partial) continue;
    const seen = whole.get(read.bib);
    if (!seen || read.confidence > seen.confidence) whole.set(read.bib, read);
  }
  return [...whole.values(), ...reads.filter((read) => read.partial)];
}
