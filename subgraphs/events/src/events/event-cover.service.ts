import { AppError, ContentVersions, Principal } from '@em/core';
import { EventsRepository, guardOperation } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { openImage, probeImage } from '@em/core/media';
import { randomUUID } from 'node:crypto';
import { eventView, EventView } from './event-view';

/** The largest cover file accepted, before it is scaled down. */
export const COVER_MAX_BYTES = 10 * 1024 * 1024;
const COVER_FORMATS = new Set(['jpeg', 'png', 'webp']);
const COVER_MAX_WIDTH = 1600;

/** An event's cover image: checked like a photo (real format, the pixel limit), stored as a JPEG on the public media host. */
export class EventCoverService {
  constructor(
    private readonly events: EventsRepository,
    private readonly store: Pick<ObjectStore, 'put' | 'delete' | 'publicUrl'>,
    private readonly versions: Pick<ContentVersions, 'bumpContentVersion'>,
  ) {}

  async set(principal: Principal, orgId: number, eventId: number, file: Buffer): Promise<EventView> {
    const event = await guardOperation(this.events, principal, 'setEventCover', orgId, eventId);
    if (file.length > COVER_MAX_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', `The cover image must be at most ${COVER_MAX_BYTES / 1024 / 1024} MB`);
    const probe = await probeImage(file);
    if (!probe.ok)
      throw new AppError(
        probe.tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_USER_INPUT',
        `The cover image is not usable: ${probe.reason}`,
        { field: 'file' },
      );
    if (!COVER_FORMATS.has(probe.format))
      throw new AppError('BAD_USER_INPUT', 'The cover image must be a JPEG, PNG or WebP', { field: 'file' });
    const cover = await openImage(file)
      .rotate()
      .resize({ width: COVER_MAX_WIDTH, withoutEnlargement: true })
      .jpeg({ quality: 85 })
      .toBuffer();
    const key = `public/${eventId}/cover/${randomUUID()}.jpg`;
    await this.store.put(key, cover, 'image/jpeg');
    const previous = event.coverImageKey;
    const updated = await this.events.update(eventId, { coverImageKey: key });
    await this.versions.bumpContentVersion(eventId);
    if (previous) await this.store.delete(previous).catch(() => undefined);
    return eventView(updated!, this.store);
  }
}
