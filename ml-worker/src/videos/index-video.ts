import { clientMessage, descriptorToBuffer, Event, FaceIndexRevisions, Logger, ObjectStore, Orm, probeVideo, sampleFrames, Video, VideoFace } from '@em/core';
import { UnrecoverableError } from 'bullmq';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FaceAnalyzer } from '../faces/face-analyzer';
import { VideoFaceFinder } from './video-faces';

/** Frames are analysed at most this large on their longest side (720p stays as it is). */
const MAX_FRAME_SIDE = 1280;
const INSERT_BATCH = 200;

/**
 * Builds a video's face index: samples frames at the event's rate with ffmpeg, finds their faces
 * and stores each sighting with its time and track (VideoFaceFinder: adaptive sampling, tracking).
 * Idempotent: a re-run replaces the video's faces. A file that is not a readable video fails at once with the reason (no retries).
 */
export class VideoIndexer {
  constructor(
    private readonly orm: Orm,
    private readonly store: ObjectStore,
    private readonly faces: FaceAnalyzer,
    private readonly revisions: FaceIndexRevisions,
    private readonly logger: Logger,
  ) {}

  async index(videoId: string): Promise<'indexed' | 'skipped'> {
    const em = this.orm.em.fork();
    const video = await em.findOne(Video, { id: videoId }, { populate: ['event'] });
    if (!video || video.status === 'indexed') return 'skipped';
    const event = video.event as Event;
    await em.nativeUpdate(Video, { id: videoId }, { status: 'indexing', indexProgress: 0, error: null });

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

      await em.nativeDelete(VideoFace, { video: videoId });
      let batch: Array<Record<string, unknown>> = [];
      let lastProgressAt = 0;
      const flush = async () => {
        if (!batch.length) return;
        await em.getConnection().execute(
          `insert into video_faces (video_id, event_id, time_seconds, embedding, score, descriptor_version, track) values ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          batch.flatMap((r) => [r.video, r.event, r.time, r.embedding, r.score, r.version, r.track]),
        );
        batch = [];
      };
      let facesFound = 0;
      const finder = new VideoFaceFinder(this.faces, width, height);
      const frames = await sampleFrames(file, { fps, width, height, format: probe.format }, async (rgb, time) => {
        for (const face of await finder.frame(rgb, time)) {
          batch.push({ video: videoId, event: event.id, time: face.time, embedding: descriptorToBuffer(face.descriptor), score: face.score, version: face.descriptorVersion, track: face.track });
          facesFound++;
        }
        if (batch.length >= INSERT_BATCH) await flush();
        if (Date.now() - lastProgressAt > 1000) {
          lastProgressAt = Date.now();
          await em.nativeUpdate(Video, { id: videoId }, { indexProgress: Math.min(0.99, time / probe.durationSeconds) });
        }
      });
      await flush();
      await em.nativeUpdate(
        Video,
        { id: videoId },
        { status: 'indexed', indexProgress: 1, durationSeconds: probe.durationSeconds, width: probe.width, height: probe.height, sampleFps: fps, indexedAt: new Date() },
      );
      await this.revisions.bump('videos', event.id).catch(() => undefined);
      this.logger.info({ videoId, frames, expectedFrames, faces: facesFound, described: finder.described, seconds: probe.durationSeconds }, 'video indexed');
      return 'indexed';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async fail(videoId: string, reason: string): Promise<void> {
    await this.orm.em.fork().nativeUpdate(Video, { id: videoId, status: { $ne: 'indexed' } }, { status: 'failed', error: reason.slice(0, 500) });
  }
}

