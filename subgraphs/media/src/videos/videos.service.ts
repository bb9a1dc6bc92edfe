import { guardEvent, Orm, Principal, Video } from '@em/core';
import { QueryOrder } from '@mikro-orm/core';
import type { EventVideoType } from './video.types';

export class VideosService {
  constructor(private readonly orm: Orm) {}

  /** The event's videos in upload order. */
  async list(principal: Principal, orgId: number, eventId: number): Promise<EventVideoType[]> {
    await guardEvent(this.orm.em, principal, orgId, eventId);
    const videos = await this.orm.em.find(Video, { event: eventId }, { orderBy: [{ createdAt: QueryOrder.ASC }, { id: QueryOrder.ASC }] });
    return videos.map((v) => ({
      id: v.id,
      sourceKey: v.sourceKey,
      originalFileName: v.originalFileName,
      status: v.status,
      error: v.error ?? null,
      durationSeconds: v.durationSeconds ?? null,
      indexProgress: v.indexProgress,
    }));
  }
}
