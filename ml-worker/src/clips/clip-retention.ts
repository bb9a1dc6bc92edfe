import { Logger } from '@em/core';
import { ClipRequestsRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';

/** Clips handled per database round trip of a sweep. */
const BATCH = 200;

/**
 * Clip retention: clips past their `expires_at` (the event's clip_retention_hours) lose their
 * object in storage, so the public URL answers 404, and are marked `expired` (a clipping result
 * then shows no URL; force_recreate cuts them again). A repeating job runs the sweep (its schedule
 * is in core's job registry).
 */
export class ClipRetention {
  constructor(
    private readonly clips: ClipRequestsRepository,
    private readonly store: ObjectStore,
    private readonly logger: Logger,
  ) {}

  /** Deletes the objects of every expired clip still marked ready; returns how many. */
  async sweep(now = new Date()): Promise<number> {
    let swept = 0;
    for (;;) {
      const due = await this.clips.dueForExpiry(now, BATCH);
      if (due.length === 0) break;
      for (const clip of due) {
        // The object goes first: a clip marked expired never keeps a public file.
        await this.store.delete(clip.storageKey);
        await this.clips.markExpired(clip.id);
        swept++;
      }
      if (due.length < BATCH) break;
    }
    if (swept) this.logger.info({ swept }, 'expired clips deleted from storage');
    return swept;
  }
}
