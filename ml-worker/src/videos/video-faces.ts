import { AdaptiveSampler, FaceDescriptorVersion, FaceTracker } from '@em/core/media';
import { FaceAnalyzer } from '../faces/face-analyzer';

/** Without a face in view, one sampled frame in this many is analysed (the one skipped before a face appears is analysed then). */
const IDLE_STRIDE = 2;
/** Face tracks across sampled frames: a followed face is described again after this long. */
const TRACKING = { minOverlap: 0.3, maxGapSeconds: 1.5, refreshSeconds: 1 };
/** A fresh descriptor this far from its track's last one is another person: the track is split. */
const TRACK_SPLIT_DISTANCE = 0.6;

/** One face seen in one sampled frame. */
export interface Sighting {
  time: number;
  descriptor: Float32Array;
  score: number;
  descriptorVersion: FaceDescriptorVersion;
  /** The face track it belongs to, numbered per video. */
  track: number;
}

/**
 * The faces of one video's sampled frames, in order: frames without faces are analysed one in
 * IDLE_STRIDE (adaptive sampling); faces are followed from frame to frame (FaceTracker), and a
 * followed face reuses its track's descriptor until the refresh, so a face search can match the
 * whole track even where the head turned away.
 */
export class VideoFaceFinder {
  /** Descriptors computed (the rest reused their track's). */
  described = 0;
  private readonly tracker = new FaceTracker(TRACKING);
  private readonly sampler = new AdaptiveSampler<Buffer>(IDLE_STRIDE);
  private readonly trackDescriptors = new Map<number, Float32Array>();

  constructor(
    private readonly faces: Pick<FaceAnalyzer, 'detectFrameFaces'>,
    private readonly width: number,
    private readonly height: number,
  ) {}

  /** The sightings due once this frame is decoded (of this frame, the one skipped before it, or none). */
  async frame(rgb: Buffer, time: number): Promise<Sighting[]> {
    const out: Sighting[] = [];
    for (const due of this.sampler.next(rgb, time)) {
      const found = await this.analyse(due.frame, due.time);
      out.push(...found);
      for (const earlier of this.sampler.seen(found.length)) out.push(...(await this.analyse(earlier.frame, earlier.time)));
    }
    return out;
  }

  private async analyse(rgb: Buffer, time: number): Promise<Sighting[]> {
    let tracks: Array<{ track: number; describe: boolean }> = [];
    const faces = await this.faces.detectFrameFaces(rgb, this.width, this.height, (boxes) => {
      tracks = this.tracker.assign(time, boxes);
      return tracks.map((t) => t.describe || !this.trackDescriptors.has(t.track));
    });
    return faces.map((face, i) => {
      let track = tracks[i].track;
      if (face.descriptor) {
        this.described++;
        const previous = this.trackDescriptors.get(track);
        if (previous && distance(previous, face.descriptor) > TRACK_SPLIT_DISTANCE) track = this.tracker.split(track, time);
        this.trackDescriptors.set(track, face.descriptor);
      }
      return { time, descriptor: face.descriptor ?? this.trackDescriptors.get(track)!, score: face.score, descriptorVersion: face.descriptorVersion, track };
    });
  }
}

function distance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}
