import {
  AppError,
  ClipStatusEvent,
  parseRequestId,
  requireRequestId,
  newId,
  Principal,
  publishClipStatus,
} from '@em/core';
import {
  ClipError,
  ClipRequestsRepository,
  ClipRequestStatus,
  Event,
  EventsRepository,
  FaceSearchesRepository,
  guardOperation,
  VideoMatch,
  VideosRepository,
} from '@em/core/data';
import { FaceIndexCache } from '@em/core/face-index';
import { ObjectStore } from '@em/core/storage';
import { JobProducer } from '@em/core/jobs';
import {
  appliedMatchPercent,
  bufferToSelfieDescriptors,
  selfieDescriptorsToBuffer,
  SelfieDescriptors,
  percentToDistance,
  SelfieEmbedder,
  toClockTime,
} from '@em/core/media';
import type { Redis } from 'ioredis';

export interface ClipView {
  uuid: string;
  /** Null once the clip expired (its file is deleted by the retention sweep). */
  videoUrl: string | null;
  sourceVideoKey: string | null;
  startTime: string | null;
  endTime: string | null;
  startSeconds: number;
  endSeconds: number;
  downloadUrl: string | null;
  /** `ready`, or `expired` once the event's clip retention has passed (recreate with force_recreate). */
  downloadStatus: string;
}

export interface ClippingResult {
  requestId: string;
  status: ClipRequestStatus;
  videos: ClipView[];
  error: string | null;
  clipErrors: ClipError[];
}

export interface StartClipping {
  selfie: (() => Promise<Buffer>) | null;
  requestId?: string | null;
  forceRecreate?: boolean | null;
}

const CLIP_REQUEST_NOT_FOUND = 'No video clipping request with this request_id for this event';

/** Most matched frames a request keeps (best first); plenty for hours of video at 2 fps. */
const MAX_MATCHED_FRAMES = 20_000;

/**
 * Selfie-driven clipping. Start: the selfie (a new file, or the descriptor of the face search with
 * the same request_id) against the event's video face index; nothing matched is `no_matches` at
 * once, else the request is `processing` and the ml-worker's clip job ends it. Read: the record
 * as it is, never changed by reading.
 */
export class ClippingService {
  constructor(
    private readonly events: EventsRepository,
    private readonly requests: ClipRequestsRepository,
    private readonly searches: FaceSearchesRepository,
    private readonly videos: VideosRepository,
    private readonly store: ObjectStore,
    private readonly embedder: Pick<SelfieEmbedder, 'admit' | 'prepare' | 'embed'>,
    private readonly index: Pick<FaceIndexCache, 'search' | 'mayHoldBoxFaces'>,
    private readonly jobs: JobProducer,
    private readonly redis: Redis,
  ) {}

  async start(
    principal: Principal,
    orgId: number,
    eventId: number,
    input: StartClipping,
  ): Promise<{ requestId: string; status: ClipRequestStatus }> {
    const event = await guardOperation(this.events, principal, 'startVideoClipping', orgId, eventId);
    const given = input.requestId?.trim() ? requireRequestId(input.requestId) : null;
    if (!input.selfie && !given)
      throw new AppError('BAD_REQUEST', 'Send a selfie file, a request_id of an earlier face search, or both');
    const requestId = given ?? newId();
    // A request_id names a request of this event only: one of another event is no concern here.
    const existing = await this.requests.find({ eventId, requestId });

    let descriptors: SelfieDescriptors | null;
    if (input.selfie) {
      const file = await input.selfie();
      // 503 at once when the selfie queue is too long to answer in time, before the selfie is decoded.
      await this.embedder.admit();
      descriptors = (
        await this.embedder.embed(await this.embedder.prepare(file), {
          boxDescriptor: this.index.mayHoldBoxFaces(eventId),
          admitted: true,
        })
      ).descriptors;
    } else if (existing) {
      // Idempotent: a repeat without a new selfie answers the request as it is, unless recreating.
      if (!input.forceRecreate || existing.status === 'processing') return { requestId, status: existing.status };
      descriptors = bufferToSelfieDescriptors(existing.embedding);
    } else {
      const search = await this.searches.find(eventId, requestId);
      if (!search || search.orgId !== orgId)
        throw new AppError('BAD_REQUEST', 'No face search ran with this request_id in this event; send a selfie file');
      descriptors = bufferToSelfieDescriptors(search.embedding);
    }

    const matches = descriptors ? await this.match(event, descriptors) : [];
    const status: ClipRequestStatus = matches.length ? 'processing' : 'no_matches';
    const generation = (existing?.generation ?? 0) + 1;
    await this.requests.start({
      requestId,
      eventId,
      orgId,
      status,
      embedding: descriptors ? selfieDescriptorsToBuffer(descriptors) : null,
      matches,
      generation,
      finishedAt: status === 'processing' ? null : new Date(),
    });
    if (status === 'processing') {
      try {
        await this.jobs.enqueue('clips', {
          eventId,
          requestId,
          generation,
          httpRequestId: principal.requestId,
          caller: principal.caller,
        });
      } catch (err) {
        await this.requests.finish({ eventId, requestId }, generation, {
          status: 'failed',
          error: 'The clip job could not be queued',
        });
        await publishClipStatus(this.redis, {
          requestId,
          eventId,
          status: 'failed',
          error: 'The clip job could not be queued',
        });
        return { requestId, status: 'failed' };
      }
    }
    await publishClipStatus(this.redis, { requestId, eventId, status, error: null });
    return { requestId, status };
  }

  async read(principal: Principal, orgId: number, eventId: number, requestId: string): Promise<ClippingResult> {
    await guardOperation(this.events, principal, 'videoClipping', orgId, eventId);
    return this.result(orgId, eventId, requestId);
  }

  /**
   * A request's status now, guarded like the gateway's clipStatus subscription that asks for it before following
   * the request's transitions on Redis.
   */
  async currentStatus(
    principal: Principal,
    orgId: number,
    eventId: number,
    requestId: string,
  ): Promise<ClipStatusEvent> {
    await guardOperation(this.events, principal, 'clipStatus', orgId, eventId);
    const id = parseRequestId(requestId);
    const request = id !== null ? await this.requests.find({ eventId, requestId: id }) : null;
    if (id === null || !request) throw new AppError('NOT_FOUND', CLIP_REQUEST_NOT_FOUND);
    return {
      requestId: id,
      eventId,
      status: request.status,
      error: request.error ?? null,
      at: request.updatedAt.toISOString(),
    };
  }

  /** The record of a request of this event (404 otherwise), with its clips once completed. */
  async result(orgId: number, eventId: number, requestId: string): Promise<ClippingResult> {
    const id = parseRequestId(requestId);
    const request = id !== null ? await this.requests.find({ eventId, requestId: id }) : null;
    if (!request || (request.organisation && request.organisation.id !== orgId)) {
      throw new AppError('NOT_FOUND', CLIP_REQUEST_NOT_FOUND);
    }
    const clips = request.status === 'completed' ? await this.requests.clipsOf(eventId, request.requestId) : [];
    const now = Date.now();
    const videos = await Promise.all(
      clips.map(async (clip): Promise<ClipView> => {
        const fileName = `${clip.sourceKey}-${toClockTime(clip.startSeconds).replace(/:/g, '')}.mp4`;
        const expired = clip.downloadStatus !== 'ready' || (clip.expiresAt ? clip.expiresAt.getTime() < now : false);
        return {
          uuid: clip.id,
          videoUrl: expired ? null : this.store.publicUrl(clip.storageKey),
          sourceVideoKey: clip.sourceKey,
          startTime: toClockTime(clip.startSeconds),
          endTime: toClockTime(clip.endSeconds),
          startSeconds: clip.startSeconds,
          endSeconds: clip.endSeconds,
          downloadUrl: expired ? null : await this.store.presignedDownload(clip.storageKey, fileName),
          downloadStatus: expired ? (clip.downloadStatus === 'deleted' ? 'deleted' : 'expired') : 'ready',
        };
      }),
    );
    return {
      requestId: request.requestId,
      status: request.status,
      videos,
      error: request.error ?? null,
      clipErrors: request.clipErrors,
    };
  }

  /** Frames of the event's indexed videos where the selfie person appears, per video. */
  private async match(event: Event, descriptors: SelfieDescriptors): Promise<VideoMatch[]> {
    const maxDistance = percentToDistance(appliedMatchPercent(event.confidenceThreshold));
    const hits = await this.index.search(event.id, descriptors, maxDistance, MAX_MATCHED_FRAMES);
    const byVideo = new Map<string, number[]>();
    for (const hit of hits) {
      const at = hit.ref.lastIndexOf('@');
      const videoId = hit.ref.slice(0, at);
      byVideo.set(videoId, [...(byVideo.get(videoId) ?? []), Number(hit.ref.slice(at + 1))]);
    }
    if (byVideo.size === 0) return [];
    const indexed = await this.videos.findIndexed([...byVideo.keys()]);
    return indexed.map((v) => ({ videoId: v.id, times: byVideo.get(v.id)!.sort((a, b) => a - b) }));
  }
}
