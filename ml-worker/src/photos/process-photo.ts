import { displayedSize, Event, Logger, ObjectStore, objectKeys, Orm, Photo, renderPreviews } from '@em/core';

/**
 * Processes one photo: large preview and thumbnail into the public part of the store, then the
 * photo row in one update (and published at once when its event is already live). Idempotent: a
 * processed photo is left as it is, and a retry after a crash rewrites the same object keys.
 */
export class PhotoProcessor {
  constructor(
    private readonly orm: Orm,
    private readonly store: ObjectStore,
    private readonly logger: Logger,
  ) {}

  async process(photoId: string): Promise<'processed' | 'skipped'> {
    const em = this.orm.em.fork();
    const photo = await em.findOne(Photo, { id: photoId }, { populate: ['event'] });
    if (!photo || photo.status === 'processed') return 'skipped';
    await em.nativeUpdate(Photo, { id: photoId, status: { $ne: 'processed' } }, { status: 'processing' });

    const original = await this.store.getBuffer(photo.originalKey);
    const eventId = photo.event.id;
    const [{ large, thumbnail }, size] = await Promise.all([renderPreviews(original), displayedSize(original)]);
    const largeKey = objectKeys.large(eventId, photo.id);
    const thumbnailKey = objectKeys.thumbnail(eventId, photo.id);
    await this.store.put(largeKey, large.buffer, 'image/jpeg');
    await this.store.put(thumbnailKey, thumbnail.buffer, 'image/jpeg');

    const now = new Date();
    const live = await em.count(Event, { id: eventId, wentLiveAt: { $ne: null } });
    await em.nativeUpdate(
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
        stepErrors: null,
        ...(live ? { publishedAt: photo.publishedAt ?? now } : {}),
      },
    );
    this.logger.debug({ photoId }, 'photo processed');
    return 'processed';
  }

  /** After the last attempt: the photo is failed, with the reason the organiser sees in the status. */
  async markFailed(photoId: string, reason: string): Promise<void> {
    await this.orm.em.fork().nativeUpdate(Photo, { id: photoId, status: { $ne: 'processed' } }, { status: 'failed', stepErrors: { previews: reason.slice(0, 500) } });
  }
}
