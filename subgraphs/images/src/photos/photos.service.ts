import { AppError, canReadOrganisation, Event, guardOperation, isUuid, ObjectStore, Orm, Page, PAGE_LIMITS, pageInfo, Photo, Principal, resolvePage } from '@em/core';
import { PhotoFields, photoView, PhotoView } from './photo-view';

/** A gallery row as Postgres returns it (timestamps as epoch milliseconds, not strings). */
interface GalleryRow {
  id: string;
  event_id: number;
  large_key: string | null;
  thumbnail_key: string | null;
  large_width: number | null;
  large_height: number | null;
  width: number | null;
  height: number | null;
  captured_at_ms: number | string | null;
  photographer_name: string | null;
  original_file_name: string;
  source: string;
  original_key: string;
  external_url: string | null;
}

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
    private readonly orm: Orm,
    private readonly store: ObjectStore,
  ) {}

  /** Every published photo of the event (no visibility flags are honoured). */
  async gallery(principal: Principal, orgId: number, eventId: number, page?: number | null, pageSize?: number | null): Promise<Page<PhotoView>> {
    await guardOperation(this.orm.em, principal, 'photos', orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    // The hottest read of the platform: plain rows, no entity hydration. Order (photos_gallery_idx):
    // capture time ascending, untimed photos last, id as the tie-break so pages are stable.
    const db = this.orm.em.getConnection();
    const [rows, [{ total }]] = await Promise.all([
      db.execute<GalleryRow[]>(
        `select id, event_id, large_key, thumbnail_key, large_width, large_height, width, height, photographer_name, original_file_name, source, original_key, external_url,
                (extract(epoch from captured_at) * 1000)::float8 as captured_at_ms
           from photos where event_id = ? and published_at is not null order by captured_at asc nulls last, id asc limit ? offset ?`,
        [eventId, request.pageSize, request.offset],
      ),
      db.execute<Array<{ total: number }>>('select count(*)::int as total from photos where event_id = ? and published_at is not null', [eventId]),
    ]);
    return { items: rows.map((row) => photoView(fromGalleryRow(row), this.store)), pageInfo: pageInfo(total, request) };
  }

  async details(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<PhotoView> {
    await guardOperation(this.orm.em, principal, 'photo', orgId, eventId);
    const photo = isUuid(imageId) ? await this.orm.em.findOne(Photo, { id: imageId.toLowerCase(), event: eventId, publishedAt: { $ne: null } }) : null;
    if (!photo) throw new AppError('NOT_FOUND', 'Image not found in this event');
    return photoView(photo, this.store);
  }

  /**
   * Published photos by id, in the order asked: the federation entry point (`_entities`). A photo
   * of an organisation the principal may not read is null, as a missing one is.
   */
  async byIds(principal: Principal, ids: readonly string[]): Promise<Array<PhotoView | null>> {
    const valid = ids.filter(isUuid);
    const photos = valid.length ? await this.orm.em.find(Photo, { id: { $in: valid }, publishedAt: { $ne: null } }, { populate: ['event'] }) : [];
    const readable = photos.filter((p) => canReadOrganisation(principal, (p.event as Event).organisation.id));
    const byId = new Map(readable.map((p) => [p.id, p]));
    return ids.map((id) => {
      const p = byId.get(id);
      return p ? photoView(p, this.store) : null;
    });
  }
}
