import { descriptorDistance, FaceDescriptorVersion } from '@em/core/media';
import { FaceTracker } from '@em/ml-worker';
import { FaceAnalyzer, VIDEO_FACE_OPTIONS } from '@em/ml-worker';
import { faceQuality } from '@em/ml-worker';

/** The detector of the time: the tiny one alone. */
const TINY_ONLY = { ...VIDEO_FACE_OPTIONS, detector: 'tiny' as const };

// The video pipeline before key frames (commit 9900b9c), kept in the bench to compare in the same run:
// frames without faces analysed one in two, every frame with faces analysed, tracks, descriptors refreshed once a second.

const IDLE_STRIDE = 2;
const TRACKING = { minOverlap: 0.3, maxGapSeconds: 1.5, refreshSeconds: 1 };
const TRACK_SPLIT_DISTANCE = 0.6;

interface Sighting {
  time: number;
  descriptor: Float32Array;
  score: number;
  descriptorVersion: FaceDescriptorVersion;
  quality: number;
  track: number;
}

/**
 * Adaptive sampling: frames are analysed one in `idleStride` while no face is in view, every one
 * while faces are. The frame skipped just before a face appears is analysed then (it is kept), so
 * a window starts as early as with every frame analysed.
 */
class AdaptiveSampler<F> {
  private skipped: { frame: F; time: number } | null = null;
  private sinceAnalysed = 0;
  private facesInView = true;

  constructor(private readonly idleStride: number) {}

  /** The frames to analyse now (oldest first), given the newest decoded one. */
  next(frame: F, time: number): Array<{ frame: F; time: number }> {
    if (this.facesInView || ++this.sinceAnalysed >= this.idleStride) {
      this.sinceAnalysed = 0;
      return [{ frame, time }];
    }
    this.skipped = { frame, time };
    return [];
  }

  /** What the last analysed frame showed; with faces, the frame skipped before it is due too. */
  seen(faces: number): Array<{ frame: F; time: number }> {
    const wasIdle = !this.facesInView;
    this.facesInView = faces > 0;
    const due = this.facesInView && wasIdle && this.skipped ? [this.skipped] : [];
    this.skipped = null;
    return due;
  }
}

export class PreviousVideoFaceFinder {
  /** Descriptors computed (the rest reused their track's). */
  described = 0;
  analysed = 0;
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
      for (const earlier of this.sampler.seen(found.length))
        out.push(...(await this.analyse(earlier.frame, earlier.time)));
    }
    return out;
  }

  async finish(): Promise<Sighting[]> {
    return [];
  }

  private async analyse(rgb: Buffer, time: number): Promise<Sighting[]> {
    this.analysed++;
    let tracks: Array<{ track: number; describe: boolean }> = [];
    const faces = await this.faces.detectFrameFaces(
      rgb,
      this.width,
      this.height,
      (boxes) => {
        tracks = this.tracker.assign(time, boxes);
        return tracks.map((t) => t.describe || !this.trackDescriptors.has(t.track));
      },
      TINY_ONLY,
    );
    return faces.map((face, i) => {
      let track = tracks[i].track;
      if (face.descriptor) {
        this.described++;
        const previous = this.trackDescriptors.get(track);
        if (previous && descriptorDistance(previous, face.descriptor) > TRACK_SPLIT_DISTANCE)
          track = this.tracker.split(track, time);
        this.trackDescriptors.set(track, face.descriptor);
      }
      return {
        time,
        descriptor: face.descriptor ?? this.trackDescriptors.get(track)!,
        score: face.score,
        descriptorVersion: face.descriptorVersion,
        quality: face.signals ? faceQuality(face.signals) : 0,
        track,
      };
    });
  }
}
