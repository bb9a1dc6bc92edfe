import { descriptorDistance, FaceDescriptorVersion } from '@em/core/media';
import { faceQuality } from '../faces/face-quality';
import { FaceBox, FaceTracker, TrackAssignment } from './face-tracks';
import { FaceAnalyzer } from '../faces/face-analyzer';
import { blockMeans, samePicture } from './frame-change';
import { FaceLook, faceLook, sameLook } from './face-look';
import { isShotChange, ShotSignature, shotSignature } from './shot-change';
import { FaceAnalyzerOptions, FrameFace, VIDEO_FACE_OPTIONS } from '../faces/face-options';

/**
 * Key frames are analysed this far apart (at the event's sampling rate); the frames between are
 * analysed only when the faces of two key frames differ (see VideoFaceFinder).
 */
const KEY_INTERVAL_SECONDS = 2;
/** Face tracks across analysed frames: a followed face is described again after this long. */
const TRACKING = { minOverlap: 0.3, refreshSeconds: 1 };
/**
 * A track whose last descriptor came from a clear face (faceQuality at least this: frontal, sharp,
 * large enough) is described again only this often: another look at it adds little. A turned,
 * blurred or small face is looked at again every TRACKING.refreshSeconds, for a better view.
 */
const CLEAR_FACE = { quality: 0.8, refreshSeconds: 4 };
/** A fresh descriptor this far from its track's last one is another person: the track is split. */
const TRACK_SPLIT_DISTANCE = 0.6;

/** One face seen in one sampled frame. */
export interface Sighting {
  time: number;
  descriptor: Float32Array;
  score: number;
  descriptorVersion: FaceDescriptorVersion;
  /** The quality (faceQuality) of the face the descriptor was computed on (its track's, when reused). */
  quality: number;
  /** The face track it belongs to, numbered per video. */
  track: number;
}

interface Frame {
  rgb: Buffer;
  time: number;
  /** The first frame of a new shot (shot-change: its picture is unlike the sampled frame before it). */
  newShot: boolean;
}

/**
 * The faces of one video's sampled frames. Sampling adapts to what is on screen: one key frame in
 * every KEY_INTERVAL_SECONDS is analysed; when it shows the same faces as the last analysed frame,
 * each where it was (same people, same places: FaceTracker.sameFaces), the frames between get those
 * faces' sightings without being analysed; when anything changed (a face came, left, moved or was
 * missed), the frames between are analysed one by one, so a window's start and end stay exact to
 * the sampled frame (the second detector, for turned heads, looks at them only near the faces of the
 * frames around: a face is followed, not searched for again). Faces are followed from frame to frame (FaceTracker); a followed face reuses
 * its track's descriptor until the refresh, so a face search matches the whole track even where
 * the head turned away (a clear face is described again less often than a turned or blurred one:
 * CLEAR_FACE; a face that looks as it did when last described, face-look, is not described again). A key frame where nothing moved since the last analysed frame (frame-change: a still
 * shot) is not analysed at all: its faces are the last ones. A presence shorter than the key
 * interval that starts and ends between two key frames can be missed. A shot change (shot-change,
 * between consecutive sampled frames) ends every track: the frames before it are analysed as one
 * stretch, the frames from it as another, so no face, descriptor or copied sighting crosses a cut.
 */
export class VideoFaceFinder {
  /** Descriptors computed (the rest reused their track's). */
  described = 0;
  /** Frames given to the detector (a key frame before a change may be analysed twice). */
  analysed = 0;
  private readonly stride: number;
  private readonly tracker: FaceTracker;
  private readonly trackDescriptors = new Map<number, Float32Array>();
  private readonly trackQuality = new Map<number, number>();
  private readonly trackDescribedAt = new Map<number, number>();
  /** How each track's face looked when it was last described (face-look). */
  private readonly trackLooks = new Map<number, FaceLook | null>();
  private waiting: Frame[] = [];
  /** The last frame whose faces were committed: its time, sightings, the boxes given to the tracker, and its block means (frame-change). */
  private last: { time: number; sightings: Sighting[]; boxes: FaceBox[]; picture: Float32Array | null } = {
    time: Number.NEGATIVE_INFINITY,
    sightings: [],
    boxes: [],
    picture: null,
  };
  /** Key frames not analysed because nothing moved since the last analysed frame. */
  still = 0;
  /** When each new shot started (the time of its first sampled frame). */
  readonly shotChanges: number[] = [];
  private previousShot: ShotSignature | null = null;

  constructor(
    private readonly faces: Pick<FaceAnalyzer, 'detectFrameFaces'>,
    private readonly width: number,
    private readonly height: number,
    sampleFps: number,
    /** 0 analyses every sampled frame (the bench's comparison). */
    keyIntervalSeconds = KEY_INTERVAL_SECONDS,
    /** How frames are analysed (the bench compares detectors). */
    private readonly options: FaceAnalyzerOptions = VIDEO_FACE_OPTIONS,
  ) {
    this.stride = Math.max(1, Math.round(keyIntervalSeconds * sampleFps));
    // A track must live from one key frame to the next.
    this.tracker = new FaceTracker({ ...TRACKING, maxGapSeconds: Math.max(1.5, (this.stride + 1) / sampleFps) });
  }

  /** The sightings due once this frame is decoded (frames are given in order). */
  async frame(rgb: Buffer, time: number): Promise<Sighting[]> {
    const signature = shotSignature(rgb, this.width, this.height);
    const newShot = isShotChange(this.previousShot, signature);
    this.previousShot = signature;
    if (newShot) this.shotChanges.push(time);
    this.waiting.push({ rgb, time, newShot });
    return this.waiting.length < this.stride ? [] : this.analyseWaiting();
  }

  /** The sightings of the frames still waiting at the end of the video. */
  async finish(): Promise<Sighting[]> {
    return this.waiting.length ? this.analyseWaiting() : [];
  }

  private async analyseWaiting(): Promise<Sighting[]> {
    const frames = this.waiting;
    this.waiting = [];
    const out: Sighting[] = [];
    // Each shot's frames on their own: the last one before a cut is analysed as a key frame, then the tracks end.
    let from = 0;
    for (let i = 1; i <= frames.length; i++) {
      if (i < frames.length && !frames[i].newShot) continue;
      if (frames[from].newShot) this.startShot();
      out.push(...(await this.analyseStretch(frames.slice(from, i))));
      from = i;
    }
    return out;
  }

  /** A new shot: nobody is followed into it, and nothing seen before stands for its frames. */
  private startShot(): void {
    this.tracker.reset();
    this.last = { time: Number.NEGATIVE_INFINITY, sightings: [], boxes: [], picture: null };
  }

  /** Consecutive frames of one shot, the last one the key frame. */
  private async analyseStretch(frames: Frame[]): Promise<Sighting[]> {
    const key = frames[frames.length - 1];
    const between = frames.slice(0, -1);
    if (!between.length) return (await this.analyse(key)).sightings!;
    const { time: seenAt, sightings: before, boxes: seenBoxes, picture } = this.last;
    const copies = (frames: Frame[]) => frames.flatMap((f) => before.map((s) => ({ ...s, time: f.time })));
    if (samePicture(picture, blockMeans(key.rgb, this.width, this.height))) {
      // Nothing came, left or moved since the last analysed frame: its faces, each where it was (its tracks kept alive).
      this.still++;
      this.tracker.assign(key.time, seenBoxes);
      this.last = { ...this.last, time: key.time };
      return copies(frames);
    }
    const probe = await this.analyse(key, (boxes) => this.tracker.sameFaces(seenAt, boxes));
    if (probe.sightings) return [...copies(between), ...probe.sightings];
    const out: Sighting[] = [];
    // A face only the second detector finds (a turned head) is looked for only near the faces of the frame before and of the key frame.
    for (const f of between)
      out.push(
        ...(await this.analyse(f, undefined, [...this.last.boxes, ...probe.refused!.map((r) => r.box)])).sightings!,
      );
    // The key frame's faces are known from the probe: analysed again only when one has no descriptor yet.
    const tracks = this.tracker.assign(
      key.time,
      probe.refused!.map((f) => f.box),
    );
    if (tracks.every((t) => this.trackDescriptors.has(t.track)))
      out.push(...this.sightings(key, probe.refused!, tracks));
    else out.push(...(await this.analyse(key)).sightings!);
    return out;
  }

  /**
   * The frame's sightings; when `onlyIf` refuses its boxes, nothing is committed or described, and its
   * faces come back refused. With `near`, the second detector looks only near those faces (detectFrameFaces).
   */
  private async analyse(
    frame: Frame,
    onlyIf?: (boxes: FaceBox[]) => boolean,
    near?: FaceBox[],
  ): Promise<{ sightings?: Sighting[]; refused?: FrameFace[] }> {
    // The tracks are assigned from the boxes, before the analyzer describes the faces it is told to.
    const state: { tracks: TrackAssignment[] | null } = { tracks: null };
    const commit = (boxes: FaceBox[]) => {
      if (onlyIf && !onlyIf(boxes)) return null;
      return (state.tracks = this.tracker.assign(frame.time, boxes));
    };
    this.analysed++;
    let asked = false;
    const faces = await this.faces.detectFrameFaces(
      frame.rgb,
      this.width,
      this.height,
      (boxes) => {
        asked = true;
        const tracks = commit(boxes);
        return tracks
          ? tracks.map(
              (t, i) =>
                !this.trackDescriptors.has(t.track) ||
                (t.describe &&
                  this.dueForRefresh(t.track, frame.time) &&
                  !this.looksAsDescribed(t.track, frame, boxes[i])),
            )
          : boxes.map(() => false);
      },
      this.options,
      near,
    );
    const assigned = asked ? state.tracks : commit(faces.map((f) => f.box));
    return assigned ? { sightings: this.sightings(frame, faces, assigned) } : { refused: faces };
  }

  /** A face that did not move in its box, turn or change since its track was last described: a new descriptor would add nothing. */
  private looksAsDescribed(track: number, frame: Frame, box: FaceBox): boolean {
    return sameLook(this.trackLooks.get(track), faceLook(frame.rgb, this.width, this.height, box));
  }

  private dueForRefresh(track: number, time: number): boolean {
    return (
      this.trackQuality.get(track)! < CLEAR_FACE.quality ||
      time - this.trackDescribedAt.get(track)! >= CLEAR_FACE.refreshSeconds - 1e-6
    );
  }

  /** The faces with a descriptor (their own or their track's): a face found but never confirmed (FrameFace) has none and gives no sighting. */
  private sightings({ time, rgb }: Frame, faces: FrameFace[], assigned: TrackAssignment[]): Sighting[] {
    const sightings = faces.flatMap((face, i) => {
      let track = assigned[i].track;
      if (!face.descriptor && !this.trackDescriptors.has(track)) return [];
      if (face.descriptor) {
        this.described++;
        const previous = this.trackDescriptors.get(track);
        if (previous && descriptorDistance(previous, face.descriptor) > TRACK_SPLIT_DISTANCE)
          track = this.tracker.split(track, time);
        this.trackDescriptors.set(track, face.descriptor);
        this.trackQuality.set(track, face.signals ? faceQuality(face.signals) : 0);
        this.trackDescribedAt.set(track, time);
        this.trackLooks.set(track, faceLook(rgb, this.width, this.height, face.box));
      }
      return [
        {
          time,
          descriptor: face.descriptor ?? this.trackDescriptors.get(track)!,
          score: face.score,
          descriptorVersion: face.descriptorVersion,
          quality: this.trackQuality.get(track)!,
          track,
        },
      ];
    });
    this.last = { time, sightings, boxes: faces.map((f) => f.box), picture: blockMeans(rgb, this.width, this.height) };
    return sightings;
  }
}
