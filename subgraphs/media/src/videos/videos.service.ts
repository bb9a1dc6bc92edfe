import { AnnounceVideoStatus, AppError, newId, Principal } from '@em/core';
import { Event, EventsRepository, guardOperation, Video, VideosRepository } from '@em/core/data';
import { ObjectStore, objectKeys } from '@em/core/storage';
import { JobProducer } from '@em/core/jobs';
import { probeVideo } from '@em/core/media';
import path from 'node:path';
import type { EventVideoType } from './video.types';

const toView = (v: Video): EventVideoType => ({
  id: v.id,
  sourceKey: v.sourceKey,
  originalFileName: v.originalFileName,
  status: v.status,
  error: v.error ?? null,
  durationSeconds: v.durationSeconds ?? null,
  indexProgress: v.indexProgress,
});

/** An event's videos: adding one (stored, then indexed by the ml-worker) and listing them. */
export class VideosService {
  constructor(
    private readonly events: EventsRepository,
    private readonly videos: VideosRepository,
    private readonly store: ObjectStore,
    private readonly jobs: JobProducer,
    private readonly announce: AnnounceVideoStatus = async () => undefined,
  ) {}

  /** The event's videos in upload order. */
  async list(principal: Principal, orgId: number, eventId: number): Promise<EventVideoType[]> {
    await guardOperation(this.events, principal, 'eventVideos', orgId, eventId);
    return (await this.videos.listByEvent(eventId)).map(toView);
  }

  /**
   * Adds a video file (on local disk) to the event: checked with ffprobe (400 when it is not a
   * readable video), stored, and queued for indexing. `sourceKey` names the source in clips
   * (default: the file name without extension) and is unique in the event (409).
   */
  async add(
    principal: Principal,
    orgId: number,
    eventId: number,
    file: string,
    fileName: string,
    sourceKey?: string | null,
  ): Promise<EventVideoType> {
    const event = await this.guardAdd(principal, orgId, eventId);
    return this.addToEvent(event, file, fileName, sourceKey, principal.requestId);
  }

  /** The event a caller may add a video to (the check the upload waits for), or the error. */
  guardAdd(principal: Principal, orgId: number, eventId: number): Promise<Event> {
    return guardOperation(this.events, principal, 'addEventVideo', orgId, eventId);
  }

  /** The same for trusted callers (the CLI), without a principal. */
  async addToEvent(
    event: Event,
    file: string,
    fileName: string,
    sourceKey?: string | null,
    httpRequestId?: string,
  ): Promise<EventVideoType> {
    await probeVideo(file);
    const key = (sourceKey ?? path.parse(fileName).name).trim().slice(0, 200);
    if (!key) throw new AppError('BAD_REQUEST', 'The video needs a source key');
    if (await this.videos.hasSourceKey(event.id, key))
      throw new AppError('CONFLICT', `The event already has a video with source key "${key}"`);
    const id = newId();
    const storageKey = objectKeys.video(event.id, id, path.extname(fileName).toLowerCase() || '.mp4');
    await this.store.putFile(storageKey, file, 'video/mp4');
    const video = await this.videos.insert({
      id,
      eventId: event.id,
      sourceKey: key,
      storageKey,
      originalFileName: fileName,
    });
    await this.jobs.enqueue('videos', { videoId: video.id, httpRequestId });
    await this.announce({ eventId: event.id, videoId: video.id, status: 'uploaded', progress: 0, error: null });
    return toView(video);
  }
}
