import { AppError, auditActor, ContentVersions, isUuid, normaliseBib, OperationName, Principal } from '@em/core';
import {
  accessOnly,
  AuditLogRepository,
  EventsRepository,
  guardOperation,
  Photo,
  PhotosRepository,
  ReviewBibRow,
  ReviewFaceRow,
  ReviewReason,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { photoView, PhotoView } from '../photos/photo-view';

/** What the organiser may type as a bib: what start lists hold (1 to 6 letters or digits, normalised). */
const BIB = /^[A-Z0-9]{1,6}$/;

export const REVIEW_QUEUE_PAGE = { default: 20, max: 100 };

export interface ReviewQueueItem {
  photo: PhotoView;
  reasons: ReviewReason[];
}

export interface ReviewQueuePage {
  items: ReviewQueueItem[];
  /** Pass as `after` for the next page; null at the end. */
  endCursor: string | null;
  hasNextPage: boolean;
}

/** The event's content version: participants' cached answers change with it. */
type ContentVersionBump = Pick<ContentVersions, 'bumpContentVersion'>;

/**
 * The organiser's photo review: a photo's bibs and faces, the organiser's word on a bib, hiding
 * and deleting photos, the review queue. Every change bumps the event's content version (so what
 * participants read changes at once) and is written to the audit log.
 */
export class PhotoReviewService {
  constructor(
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
    private readonly store: ObjectStore,
    private readonly versions: ContentVersionBump,
    private readonly audit: AuditLogRepository,
  ) {}

  /** The guard of every review call: the organisation, the event, an organiser's token. */
  private guard(principal: Principal, operation: OperationName, orgId: number, eventId: number) {
    return guardOperation(accessOnly(this.events), principal, operation, orgId, eventId);
  }

  /** The guard for a photo field (bibs, faces, hidden) of a photo of `eventId`, reached from any query. */
  async guardPhotoFields(principal: Principal, eventId: number): Promise<void> {
    const event = await this.events.findAccess(eventId);
    if (!event) throw new AppError('NOT_FOUND', 'Event not found');
    await this.guard(principal, 'reviewPhoto', event.organisation.id, eventId);
  }

  private async photoOf(eventId: number, imageId: string): Promise<Photo> {
    const photo = isUuid(imageId) ? await this.photos.findInEvent(eventId, imageId.toLowerCase()) : null;
    if (!photo) throw new AppError('NOT_FOUND', 'Image not found in this event');
    return photo;
  }

  private view(photo: Photo): PhotoView {
    if (photo.status !== 'processed' || !photo.largeKey || !photo.thumbnailKey) {
      throw new AppError('CONFLICT', `The photo is ${photo.status}, not processed yet: it can only be deleted now`);
    }
    return { ...photoView(photo, this.store), hidden: Boolean(photo.hiddenAt) };
  }

  private record(
    principal: Principal,
    orgId: number,
    eventId: number,
    action: string,
    photoId: string,
    detail: Record<string, unknown> | null,
  ) {
    return this.audit.record({ orgId, eventId, actor: auditActor(principal), action, photoId, detail });
  }

  /** Any photo of the event (hidden or not yet published), with its review fields. */
  async photo(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<PhotoView> {
    await this.guard(principal, 'reviewPhoto', orgId, eventId);
    return this.view(await this.photoOf(eventId, imageId));
  }

  bibsOf(photoIds: readonly string[]): Promise<ReviewBibRow[]> {
    return this.photos.bibRowsOf(photoIds);
  }

  facesOf(photoIds: readonly string[]): Promise<ReviewFaceRow[]> {
    return this.photos.faceRowsOf(photoIds);
  }

  async hiddenOf(photoId: string, eventId: number): Promise<boolean> {
    return Boolean((await this.photos.findInEvent(eventId, photoId))?.hiddenAt);
  }

  /** The organiser says `bib` is on the photo: participants find it by that number. */
  async addBib(
    principal: Principal,
    orgId: number,
    eventId: number,
    imageId: string,
    rawBib: string,
  ): Promise<PhotoView> {
    return this.setBib(principal, orgId, eventId, imageId, rawBib, 'accepted');
  }

  /** The organiser says `bib` is not on the photo: whatever read it, participants no longer find the photo by it. */
  async removeBib(
    principal: Principal,
    orgId: number,
    eventId: number,
    imageId: string,
    rawBib: string,
  ): Promise<PhotoView> {
    return this.setBib(principal, orgId, eventId, imageId, rawBib, 'rejected');
  }

  private async setBib(
    principal: Principal,
    orgId: number,
    eventId: number,
    imageId: string,
    rawBib: string,
    status: 'accepted' | 'rejected',
  ) {
    const operation = status === 'accepted' ? 'addPhotoBib' : 'removePhotoBib';
    await this.guard(principal, operation, orgId, eventId);
    const bib = normaliseBib(String(rawBib ?? ''));
    if (!BIB.test(bib)) throw new AppError('BAD_USER_INPUT', 'A bib is 1 to 6 letters or digits', { field: 'bib' });
    const photo = await this.photoOf(eventId, imageId);
    const view = this.view(photo);
    const rows = await this.photos.setOrganiserBib(eventId, photo.id, bib, status);
    if (rows === 0) throw new AppError('NOT_FOUND', `Bib ${bib} is not on this photo`);
    await this.record(
      principal,
      orgId,
      eventId,
      status === 'accepted' ? 'photo.add_bib' : 'photo.remove_bib',
      photo.id,
      { bib },
    );
    await this.versions.bumpContentVersion(eventId);
    return view;
  }

  async hide(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<PhotoView> {
    await this.guard(principal, 'hidePhoto', orgId, eventId);
    const photo = await this.photoOf(eventId, imageId);
    this.view(photo);
    if (await this.photos.hide(eventId, photo.id, new Date())) {
      await this.record(principal, orgId, eventId, 'photo.hide', photo.id, null);
      await this.versions.bumpContentVersion(eventId);
    }
    return { ...this.view(photo), hidden: true };
  }

  async unhide(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<PhotoView> {
    await this.guard(principal, 'unhidePhoto', orgId, eventId);
    const photo = await this.photoOf(eventId, imageId);
    this.view(photo);
    // Published again only into a live event (go-live publishes it otherwise, as any processed photo).
    const publishAt = (await this.events.isLive(eventId)) ? new Date() : null;
    if (await this.photos.unhide(eventId, photo.id, publishAt)) {
      await this.record(principal, orgId, eventId, 'photo.unhide', photo.id, null);
      await this.versions.bumpContentVersion(eventId);
    }
    return { ...this.view(photo), hidden: false };
  }

  /**
   * Deletes the photo: hidden first (participants stop seeing it at once), then its objects, then
   * its row with its bibs and faces. A crash in between leaves a hidden photo a retry deletes.
   */
  async delete(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<{ id: string }> {
    await this.guard(principal, 'deletePhoto', orgId, eventId);
    const photo = await this.photoOf(eventId, imageId);
    if (await this.photos.hide(eventId, photo.id, new Date())) await this.versions.bumpContentVersion(eventId);
    const keys = [photo.originalKey, photo.largeKey, photo.thumbnailKey].filter((key): key is string => Boolean(key));
    for (const key of keys) await this.store.delete(key);
    await this.photos.remove(eventId, photo.id);
    await this.record(principal, orgId, eventId, 'photo.delete', photo.id, {
      originalFileName: photo.originalFileName,
    });
    await this.versions.bumpContentVersion(eventId);
    return { id: photo.id };
  }

  /** Processed photos with no searchable bib, a rejected read or a completed one, by id; `after` is the last page's endCursor. */
  async queue(
    principal: Principal,
    orgId: number,
    eventId: number,
    first?: number | null,
    after?: string | null,
  ): Promise<ReviewQueuePage> {
    await this.guard(principal, 'reviewQueue', orgId, eventId);
    const limit = first ?? REVIEW_QUEUE_PAGE.default;
    if (!Number.isInteger(limit) || limit < 1 || limit > REVIEW_QUEUE_PAGE.max) {
      throw new AppError('BAD_USER_INPUT', `first must be 1 to ${REVIEW_QUEUE_PAGE.max}`, { field: 'first' });
    }
    const afterId = after ? decodeCursor(after) : null;
    const rows = await this.photos.reviewQueue(eventId, afterId, limit + 1);
    const page = rows.slice(0, limit);
    const photos = new Map<string, Photo>();
    for (const row of page) {
      const photo = await this.photos.findInEvent(eventId, row.photoId);
      if (photo) photos.set(row.photoId, photo);
    }
    const items = page
      .filter((row) => photos.has(row.photoId))
      .map((row) => ({ photo: this.view(photos.get(row.photoId)!), reasons: row.reasons }));
    const last = page[page.length - 1];
    return { items, endCursor: last ? encodeCursor(last.photoId) : null, hasNextPage: rows.length > limit };
  }
}

const encodeCursor = (photoId: string) => Buffer.from(`photo:${photoId}`).toString('base64url');

function decodeCursor(cursor: string): string {
  const text = cursor.length <= 100 ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const id = text.startsWith('photo:') ? text.slice('photo:'.length) : '';
  if (!isUuid(id))
    throw new AppError(
      'BAD_USER_INPUT',
      'after is not a cursor of this queue (pass the endCursor of the previous page)',
      { field: 'after' },
    );
  return id.toLowerCase();
}
