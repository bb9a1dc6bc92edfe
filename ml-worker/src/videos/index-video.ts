import { clientMessage, Logger } from '@em/core';
import { Event, NewVideoFace, VideosRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { descriptorToBuffer, FaceIndexRevisions, probeVideo, sampleFrames } from '@em/core/media';
import { UnrecoverableError } from 'bullmq';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FaceAnalyzer } from '../faces/face-analyzer';
import { Sighting, VideoFaceFinder } from './video-faces';

/** Frames are analysed at most this large on their longest side (720p stays as it is). */
const MAX_FRAME_SIDE = 1280;
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
  ) {}

  async index(videoId: string): Promise<'indexed' | 'skipped'> {
    const video = await this.videos.findWithEvent(videoId);
    if (!video || video.status === 'indexed') return 'skipped';
    const event = video.event as Event;
    await this.videos.startIndexing(videoId);

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
      const flush = async () => {
        if (!batch.length) return;
        await this.videos.addFaces(videoId, event.id, batch);
        batch = [];
      };
      let facesFound = 0;
      const keep = (sightings: Sighting[]) => {
        for (const face of sightings) {
          batch.push({ timeSeconds: face.time, embedding: descriptorToBuffer(face.descriptor), score: face.score, descriptorVersion: face.descriptorVersion, track: face.track });
          facesFound++;
        }
      };
      const finder = new VideoFaceFinder(this.faces, width, height, fps);
      const frames = await sampleFrames(file, { fps, width, height, format: probe.format }, async (rgb, time) => {
        keep(await finder.frame(rgb, time));
        if (batch.length >= INSERT_BATCH) await flush();
        if (Date.now() - lastProgressAt > 1000) {
          lastProgressAt = Date.now();
          await this.videos.setProgress(videoId, Math.min(0.99, time / probe.durationSeconds));
        }
      });
      keep(await finder.finish());
      await flush();
      await this.videos.markIndexed(videoId, { durationSeconds: probe.durationSeconds, width: probe.width, height: probe.height, sampleFps: fps });
      await this.revisions.bump('videos', event.id).catch(() => undefined);
      this.logger.info({ videoId, frames, expectedFrames, faces: facesFound, analysed: finder.analysed, described: finder.described, seconds: probe.durationSeconds }, 'video indexed');
      return 'indexed';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async fail(videoId: string, reason: string): Promise<void> {
    await this.videos.markFailed(videoId, reason);
  }
}

