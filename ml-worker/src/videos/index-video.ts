import { AdaptiveSampler, clientMessage, descriptorToBuffer, Event, FaceIndexRevisions, FaceTracker, Logger, ObjectStore, Orm, probeVideo, sampleFrames, Video, VideoFace } from '@em/core';
import { UnrecoverableError } from 'bullmq';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FaceAnalyzer } from '../faces/face-analyzer';

/** Frames are analysed at most this large on their longest side (720p stays as it is). */
const MAX_FRAME_SIDE = 1280;
const INSERT_BATCH = 200;
/** Without a face in view, one sampled frame in this many is analysed (the one skipped before a face appears is analysed then). */
const IDLE_STRIDE = 2;
/** Face tracks across sampled frames: a followed face is described again after this long. */
const TRACKING = { minOverlap: 0.3, maxGapSeconds: 1.5, refreshSeconds: 1 };
/** A fresh descriptor this far from its track's last one is another person: the track is split. */
const TRACK_SPLIT_DISTANCE = 0.6;

/**
 * Builds a video's face index: samples frames at the event's rate with ffmpeg, finds their faces
 * and stores each sighting with its time and track. Frames without faces are analysed one in
 * IDLE_STRIDE (adaptive sampling); faces are followed from frame to frame (FaceTracker), and a
 * followed face reuses its track's descriptor until it is refreshed, so a face search matches the
 * whole track. Idempotent: a re-run replaces the video's faces.
 * A file that is not a readable video fails at once with the reason (no retries).
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
      let described = 0;
      const tracker = new FaceTracker(TRACKING);
      const sampler = new AdaptiveSampler<Buffer>(IDLE_STRIDE);
      const trackDescriptors = new Map<number, Float32Array>();
      const analyse = async (rgb: Buffer, time: number) => {
        let tracks: Array<{ track: number; describe: boolean }> = [];
        const faces = await this.faces.detectFrameFaces(rgb, width, height, (boxes) => {
          tracks = tracker.assign(time, boxes);
          return tracks.map((t) => t.describe || !trackDescriptors.has(t.track));
        });
        for (const [i, face] of faces.entries()) {
          let track = tracks[i].track;
          if (face.descriptor) {
            described++;
            const previous = trackDescriptors.get(track);
            if (previous && distance(previous, face.descriptor) > TRACK_SPLIT_DISTANCE) track = tracker.split(track, time);
            trackDescriptors.set(track, face.descriptor);
          }
          const descriptor = face.descriptor ?? trackDescriptors.get(track)!;
          batch.push({ video: videoId, event: event.id, time, embedding: descriptorToBuffer(descriptor), score: face.score, version: face.descriptorVersion, track });
          facesFound++;
        }
        return faces.length;
      };
      const frames = await sampleFrames(file, { fps, width, height, format: probe.format }, async (rgb, time) => {
        for (const due of sampler.next(rgb, time)) {
          const found = await analyse(due.frame, due.time);
          for (const earlier of sampler.seen(found)) await analyse(earlier.frame, earlier.time);
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
      this.logger.info({ videoId, frames, expectedFrames, faces: facesFound, described, seconds: probe.durationSeconds }, 'video indexed');
      return 'indexed';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async fail(videoId: string, reason: string): Promise<void> {
    await this.orm.em.fork().nativeUpdate(Video, { id: videoId, status: { $ne: 'indexed' } }, { status: 'failed', error: reason.slice(0, 500) });
  }
}

function distance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}
