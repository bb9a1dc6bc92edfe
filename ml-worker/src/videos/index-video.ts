import { AnnounceVideoStatus, clientMessage, Logger } from '@em/core';
import { NewVideoFace, VideosRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { descriptorToBuffer, FaceIndexRevisions, probeVideo } from '@em/core/media';
import { UnrecoverableError } from 'bullmq';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FaceAnalyzer } from '../faces/face-analyzer';
import { Sighting } from './video-faces';
import { indexPart, PartStats, splitVideo, TRACKS_PER_PART, VideoPart } from './video-parts';
import type { VideoPartThread } from './video-thread';

/** Frames are analysed at most this large on their longest side (720p stays as it is). */
const MAX_FRAME_SIDE = 1280;
/** A part on another thread costs loading the models there (~1-2 s of CPU): videos are split only into parts this long at least. */
const MIN_SECONDS_PER_PART = 20;
const INSERT_BATCH = 200;

/**
 * Builds a video's face index: samples frames at the event's rate with ffmpeg, finds their faces
 * and stores each sighting with its time and track (VideoFaceFinder: key frames, the frames between analysed only around changes, tracking).
 * Idempotent: a re-run replaces the video's faces. A file that is not a readable video fails at once with the reason (no retries).
 */
export class VideoIndexer {
  constructor(
    private readonly videos: VideosRepository,
    private readonly store: ObjectStore,
    private readonly faces: Pick<FaceAnalyzer, 'detectFrameFaces'>,
    private readonly revisions: Pick<FaceIndexRevisions, 'bump'>,
    private readonly logger: Logger,
    /** Starts a thread that indexes a part of a video on another core (null when it cannot); none: one part. */
    private readonly startThread?: () => Promise<VideoPartThread | null>,
    /** A video is cut into at most this many parts, each but the first on its own thread. */
    private readonly maxParts = 1,
    private readonly announce: AnnounceVideoStatus = async () => undefined,
  ) {}

  async index(videoId: string): Promise<'indexed' | 'skipped'> {
    const video = await this.videos.findWithEvent(videoId);
    if (!video || video.status === 'indexed') return 'skipped';
    const event = video.event;
    await this.videos.startIndexing(videoId);
    const eventId = event.id;
    await this.announce({ eventId, videoId, status: 'indexing', progress: 0, error: null });

    const dir = await mkdtemp(path.join(tmpdir(), 'em-video-'));
    try {
      const file = path.join(dir, 'source');
      await this.store.download(video.storageKey, file);
      let probe;
      try {
        probe = await probeVideo(file);
      } catch (err) {
        const reason = clientMessage(err, 'The stored file is not a readable video');
        await this.fail(videoId, reason);
        throw new UnrecoverableError(reason);
      }
      // Frames at most MAX_FRAME_SIDE on their longest side, even sizes (a tall video is bounded too).
      const scale = Math.min(1, MAX_FRAME_SIDE / Math.max(probe.width, probe.height));
      const width = Math.max(2, Math.round((probe.width * scale) / 2) * 2);
      const height = Math.max(2, Math.round((probe.height * scale) / 2) * 2);
      const fps = event.videoSampleFps;
      const expectedFrames = Math.max(1, Math.floor(probe.durationSeconds * fps));

      let batch: NewVideoFace[] = [];
      let lastProgressAt = 0;
      let facesFound = 0;
      const flush = async () => {
        if (!batch.length) return;
        const rows = batch;
        batch = [];
        await this.videos.addFaces(videoId, event.id, rows);
      };
      // Where each part has got to, for the progress.
      const parts = await this.parts(probe.durationSeconds, fps);
      const reached = parts.map((p) => p.part.start);
      const keep = (i: number) => async (sightings: Sighting[], time: number) => {
        for (const face of sightings) {
          batch.push({
            timeSeconds: face.time,
            embedding: descriptorToBuffer(face.descriptor),
            score: face.score,
            descriptorVersion: face.descriptorVersion,
            quality: face.quality,
            track: face.track,
          });
          facesFound++;
        }
        reached[i] = time;
        if (batch.length >= INSERT_BATCH) await flush();
        if (Date.now() - lastProgressAt > 1000) {
          lastProgressAt = Date.now();
          const done = parts.reduce(
            (sum, p, j) => sum + Math.max(0, Math.min(reached[j], p.part.end) - p.part.start),
            0,
          );
          const progress = Math.min(0.99, done / probe.durationSeconds);
          await this.videos.setProgress(videoId, progress);
          await this.announce({ eventId, videoId, status: 'indexing', progress, error: null });
        }
      };
      const decode = { fps, width, height, format: probe.format };
      let stats;
      try {
        stats = await Promise.all(
          parts.map(({ part, thread }, i) =>
            thread
              ? thread.indexPart(file, decode, part, i * TRACKS_PER_PART, keep(i))
              : indexPart(this.faces, file, decode, part, i * TRACKS_PER_PART, keep(i)),
          ),
        );
      } finally {
        await Promise.all(parts.map(async (p) => p.thread?.close()));
      }
      await flush();
      const shotChanges = stats.flatMap((part) => part.shotChanges).sort((a, b) => a - b);
      await this.videos.markIndexed(videoId, {
        durationSeconds: probe.durationSeconds,
        width: probe.width,
        height: probe.height,
        sampleFps: fps,
        shotChanges,
      });
      await this.revisions.bump('videos', event.id).catch(() => undefined);
      await this.announce({ eventId, videoId, status: 'indexed', progress: 1, error: null });
      const sum = (key: Exclude<keyof PartStats, 'shotChanges'>) => stats.reduce((total, part) => total + part[key], 0);
      this.logger.info(
        {
          videoId,
          parts: parts.length,
          frames: sum('frames'),
          expectedFrames,
          faces: facesFound,
          analysed: sum('analysed'),
          still: sum('still'),
          shots: shotChanges.length + 1,
          described: sum('described'),
          seconds: probe.durationSeconds,
        },
        'video indexed',
      );
      return 'indexed';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** The parts of a video and who indexes each (the main thread the first); short videos are not split. */
  private async parts(
    durationSeconds: number,
    fps: number,
  ): Promise<Array<{ part: VideoPart; thread: VideoPartThread | null }>> {
    const count =
      this.startThread && durationSeconds >= MIN_SECONDS_PER_PART * 2
        ? Math.min(this.maxParts, Math.floor(durationSeconds / MIN_SECONDS_PER_PART))
        : 1;
    const threads = count > 1 ? await Promise.all(Array.from({ length: count - 1 }, () => this.startThread!())) : [];
    const helpers = threads.filter((t): t is VideoPartThread => t !== null);
    return splitVideo(durationSeconds, fps, helpers.length + 1).map((part, i) => ({
      part,
      thread: i === 0 ? null : helpers[i - 1],
    }));
  }

  async fail(videoId: string, reason: string): Promise<void> {
    await this.videos.markFailed(videoId, reason);
    const video = await this.videos.findWithEvent(videoId);
    if (video?.status === 'failed')
      await this.announce({ eventId: video.event.id, videoId, status: 'failed', progress: 0, error: reason });
  }
}
