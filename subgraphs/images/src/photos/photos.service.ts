import { AppError, guardEvent, isUuid, ObjectStore, Orm, Page, PAGE_LIMITS, pageInfo, Photo, Principal, resolvePage } from '@em/core';
import { QueryOrder } from '@mikro-orm/core';
import { photoView, PhotoView } from './photo-view';

/** Gallery order: capture time ascending, untimed photos last, id as the tie-break so pages are stable. */
export const GALLERY_ORDER = [{ capturedAt: QueryOrder.ASC_NULLS_LAST }, { id: QueryOrder.ASC }];

export class PhotosService {
  constructor(
    private readonly orm: Orm,
    private readonly store: ObjectStore,
  ) {}

  /** Every published photo of the event (no visibility flags are honoured). */
  async gallery(principal: Principal, orgId: number, eventId: number, page?: number | null, pageSize?: number | null): Promise<Page<PhotoView>> {
    await guardEvent(this.orm.em, principal, orgId, eventId);
    const request = resolvePage(page, pageSize, PAGE_LIMITS.photos);
    const [photos, total] = await this.orm.em.findAndCount(
      Photo,
      { event: eventId, publishedAt: { $ne: null } },
      { orderBy: GALLERY_ORDER, limit: request.pageSize, offset: request.offset },
    );
    return { items: photos.map((p) => photoView(p, this.store)), pageInfo: pageInfo(total, request) };
  }

  async details(principal: Principal, orgId: number, eventId: number, imageId: string): Promise<PhotoView> {
    await guardEvent(this.orm.em, principal, orgId, eventId);
    const photo = isUuid(imageId) ? await this.orm.em.findOne(Photo, { id: imageId.toLowerCase(), event: eventId, publishedAt: { $ne: null } }) : null;
    if (!photo) throw new AppError('NOT_FOUND', 'Image not found in this event');
    return photoView(photo, this.store);
  }

  /** Published photos by id, in the order asked (missing ids are null): the federation entry point. */
  async byIds(ids: readonly string[]): Promise<Array<PhotoView | null>> {
    const valid = ids.filter(isUuid);
    const photos = valid.length ? await this.orm.em.find(Photo, { id: { $in: valid }, publishedAt: { $ne: null } }) : [];
    const byId = new Map(photos.map((p) => [p.id, p]));
    return ids.map((id) => {
      const p = byId.get(id);
      return p ? photoView(p, this.store) : null;
    });
  }
}
