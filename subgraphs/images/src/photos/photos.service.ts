import { AppError, isUuid, Page, PAGE_LIMITS, pageInfo, Principal, resolvePage } from '@em/core';
import {
  accessOnly,
  canReadEvent,
  EventsRepository,
  GalleryRow,
  guardOperation,
  PhotosRepository,
} from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { PhotoFields, photoView, PhotoView } from './photo-view';

function fromGalleryRow(row: GalleryRow): PhotoFields {
  return {
    id: row.id,
    event: { id: row.event_id },
    largeKey: row.large_key,
    thumbnailKey: row.thumbnail_key,
    largeWidth: row.large_width,
    largeHeight: row.large_height,
    width: row.width,
    height: row.height,
    capturedAt: row.captured_at_ms === null ? null : new Date(Number(row.captured_at_ms)),
    photographerName: row.photographer_name,
    originalFileName: row.original_file_name,
    source: row.source,
    originalKey: row.original_key,
    externalUrl: row.external_url,
  };
}

export class PhotosService {
  constructor(
    private readonly events: EventsRepository,
    private readonly photos: PhotosRepository,
    private readonly store: ObjectStore,
  ) {}

  /** Every published photo of the event (no visibility flags are honoured). */
  async gallery(
    principal: Principal,
    orgId: number,
    eventId: number,
    page?: number | null,
    pageSize?: number | null,
  ): Promise<Page<PhotoView>> {
    await guardOperation(accessOnly(this.events), principal, 'photos', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const { total, rows } = await this.photos.galleryPage(eventId, request);
    return { items: rows.map((row) => photoView(fromGalleryRow(row), this.store)), pageInfo: pageInfo(total, request) };
  }

  async details(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<PhotoView> {
    await guardOperation(accessOnly(this.events), principal, 'photo', orgId, eventId);
    const photo = isUuid(imageId) ? await this.photos.findPublished(eventId, imageId.toLowerCase()) : null;
    if (!photo) throw new AppError('NOT_FOUND', 'Image not found in this event');
    return photoView(photo, this.store);
  }

  /**
   * Published photos by id, in the order asked: the federation entry point (`_entities`). A photo
   * of an organisation or event the principal may not read is null, as a missing one is.
   */
  async byIds(principal: Principal, ids: readonly string[]): Promise<Array<PhotoView | null>> {
    const valid = ids.filter(isUuid);
    const photos = await this.photos.findPublishedWithEvent(valid);
    const readable = photos.filter((p) => canReadEvent(principal, p.event.organisation.id, p.event.id));
    const byId = new Map(readable.map((p) => [p.id, p]));
    return ids.map((id) => {
      const p = byId.get(id);
      return p ? photoView(p, this.store) : null;
    });
  }
}
