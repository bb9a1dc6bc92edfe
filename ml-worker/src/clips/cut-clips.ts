import { clientMessage, Logger, newId, publishClipStatus } from '@em/core';
import {
  ClipError,
  ClipRequest,
  ClipRequestKey,
  ClipRequestsRepository,
  ClipRequestStatus,
  Video,
  VideosRepository,
} from '@em/core/data';
import { ObjectStore, objectKeys } from '@em/core/storage';
import { buildSegments, cutClip, probeVideo, Segment } from '@em/core/media';
import type { Redis } from 'ioredis';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The clip job of one clipping request: from the matched frames, windows per video with the event's
 * settings, then MP4 clips cut with ffmpeg into the public part of the store, and the terminal
 * state: `completed` (with `clip_errors` for sources that failed), `no_matches` when every matched
 * video was deleted since the start, `no_segments` when the sightings are too sparse for any window,
 * `clip_failed` when every cut failed. A run of an older generation, or of a request no longer
 * processing, does nothing (idempotent under retries).
 */
export class ClipCutter {
  constructor(
    private readonly requests: ClipRequestsRepository,
    private readonly videoRows: VideosRepository,
    private readonly store: ObjectStore,
    private readonly redis: Redis,
    private readonly logger: Logger,
  ) {}

  async run(
    eventId: number | undefined,
    requestId: string,
    generation: number,
  ): Promise<ClipRequestStatus | 'skipped'> {
    const request = await this.requests.find({ eventId, requestId });
    if (!request || request.generation !== generation || request.status !== 'processing') return 'skipped';
    const event = request.event;
    await this.removeClips(request);

    const videos = new Map(
      (await this.videoRows.findByIds(request.matches.map((m) => m.videoId))).map((v) => [v.id, v]),
    );
    // Videos deleted since the start took their matches with them: what is left may be nothing.
    const matches = request.matches.filter((m) => videos.has(m.videoId));
    if (matches.length === 0) return this.finish(request, 'no_matches', []);
    const plans: Array<{ video: Video; segments: Segment[] }> = [];
    for (const match of matches) {
      const video = videos.get(match.videoId)!;
      if (!video.durationSeconds || !video.sampleFps) continue;
      const segments = buildSegments(
        match.times,
        video.sampleFps,
        video.durationSeconds,
        {
          maxGapSeconds: event.clipMaxGapSeconds,
          minSegmentSeconds: event.clipMinSegmentSeconds,
          paddingStartSeconds: event.clipPaddingStartSeconds,
          paddingEndSeconds: event.clipPaddingEndSeconds,
          maxDurationSeconds: event.clipMaxDurationSeconds,
        },
        video.shotChanges ?? [],
      );
      if (segments.length) plans.push({ video, segments });
    }
    if (plans.length === 0) {
      const sightings = matches.reduce((n, m) => n + m.times.length, 0);
      return this.finish(request, 'no_segments', [
        {
          videoKey: null,
          error: `The person was seen in ${sightings} sampled frame(s), too briefly or too scattered for a clip of at least ${event.clipMinSegmentSeconds} s`,
          statusCode: null,
        },
      ]);
    }

    const errors: ClipError[] = [];
    let made = 0;
    const expiresAt = event.clipRetentionHours ? new Date(Date.now() + event.clipRetentionHours * 3600_000) : null;
    const dir = await mkdtemp(path.join(tmpdir(), 'em-clips-'));
    try {
      for (const { video, segments } of plans) {
        const source = path.join(dir, `${video.id}.source`);
        let format: string;
        try {
          await this.store.download(video.storageKey, source);
          format = (await probeVideo(source)).format;
        } catch (err) {
          this.logger.warn({ requestId, videoId: video.id, err: (err as Error).message }, 'clip source unreadable');
          errors.push({
            videoKey: video.sourceKey,
            error: clientMessage(err, 'The source video could not be read from storage'),
            statusCode: 404,
          });
          continue;
        }
        for (const segment of segments) {
          const clipId = newId();
          const output = path.join(dir, `${clipId}.mp4`);
          try {
            await cutClip(source, format, segment.start, segment.end, output);
            const key = objectKeys.clip(event.id, requestId, clipId);
            await this.store.putFile(key, output, 'video/mp4');
            await this.requests.addClip({
              id: clipId,
              eventId: event.id,
              requestId: request.requestId,
              videoId: video.id,
              startSeconds: segment.start,
              endSeconds: segment.end,
              storageKey: key,
              expiresAt,
            });
            made++;
          } catch (err) {
            this.logger.warn({ requestId, videoId: video.id, segment, err: (err as Error).message }, 'clip cut failed');
            errors.push({
              videoKey: video.sourceKey,
              error: `Cutting ${segment.start}-${segment.end} s failed`,
              statusCode: 500,
            });
          } finally {
            await rm(output, { force: true });
          }
        }
        await rm(source, { force: true });
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return this.finish(request, made > 0 ? 'completed' : 'clip_failed', errors);
  }

  /** After the last attempt: `failed` with the reason, unless a newer run took over. */
  async markFailed(eventId: number | undefined, requestId: string, generation: number, reason: string): Promise<void> {
    const key: ClipRequestKey = { eventId, requestId };
    if (!(await this.requests.finish(key, generation, { status: 'failed', error: reason }))) return;
    const request = await this.requests.find(key);
    if (request)
      await publishClipStatus(this.redis, {
        requestId,
        eventId: request.event.id,
        status: 'failed',
        error: request.error ?? null,
      });
  }

  /** Clips of earlier runs: their objects and rows go before new ones are cut. */
  private async removeClips(request: ClipRequest): Promise<void> {
    const keys = await this.requests.deleteClips(request.event.id, request.requestId);
    for (const key of keys) await this.store.delete(key).catch(() => undefined);
  }

  private async finish(
    request: ClipRequest,
    status: ClipRequestStatus,
    clipErrors: ClipError[],
  ): Promise<ClipRequestStatus> {
    const key = { eventId: request.event.id, requestId: request.requestId };
    if (await this.requests.finish(key, request.generation, { status, error: null, clipErrors })) {
      await publishClipStatus(this.redis, {
        requestId: request.requestId,
        eventId: request.event.id,
        status,
        error: null,
      });
    }
    this.logger.info({ requestId: request.requestId, status, errors: clipErrors.length }, 'clipping finished');
    return status;
  }
}
