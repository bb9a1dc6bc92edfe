/** A face box relative to the frame (0-1). */
export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface FaceTrackerOptions {
  /** A box continues a track when it overlaps the track's last box at least this much (intersection over union). */
  minOverlap: number;
  /** A track not seen for longer than this ends (a face reappearing later starts a new one). */
  maxGapSeconds: number;
  /** A continued face gets a fresh descriptor when its track's last one is this old; in between it reuses it. */
  refreshSeconds: number;
}

export interface TrackAssignment {
  track: number;
  /** True for a new track, or when the track's descriptor is due for a refresh. */
  describe: boolean;
}

interface Track {
  id: number;
  box: FaceBox;
  lastSeen: number;
  describedAt: number;
}

export function overlap(a: FaceBox, b: FaceBox): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/**
 * Follows faces from one sampled video frame to the next by where they are: each box joins the
 * live track whose last box it overlaps most (greedy, best overlap first), or starts a new one.
 * A track's sightings share its identity, so a frame where the face turns away (its descriptor no
 * longer matches) does not break the person's window, and descriptors are computed only every
 * `refreshSeconds` per track instead of on every frame.
 */
export class FaceTracker {
  private tracks: Track[] = [];
  private nextId = 1;

  constructor(private readonly opts: FaceTrackerOptions) {}

  assign(time: number, boxes: FaceBox[]): TrackAssignment[] {
    this.tracks = this.tracks.filter((t) => time - t.lastSeen <= this.opts.maxGapSeconds + 1e-6);
    const pairs: Array<{ box: number; track: Track; score: number }> = [];
    for (const [i, box] of boxes.entries()) {
      for (const track of this.tracks) {
        const score = overlap(box, track.box);
        if (score >= this.opts.minOverlap) pairs.push({ box: i, track, score });
      }
    }
    pairs.sort((a, b) => b.score - a.score);
    const out: Array<TrackAssignment | undefined> = boxes.map(() => undefined);
    const taken = new Set<number>();
    for (const p of pairs) {
      if (out[p.box] || taken.has(p.track.id)) continue;
      taken.add(p.track.id);
      const describe = time - p.track.describedAt >= this.opts.refreshSeconds - 1e-6;
      if (describe) p.track.describedAt = time;
      p.track.box = boxes[p.box];
      p.track.lastSeen = time;
      out[p.box] = { track: p.track.id, describe };
    }
    return out.map((assigned, i) => assigned ?? { track: this.start(time, boxes[i]), describe: true });
  }

  /**
   * True when `boxes` are the faces seen at `seenAt` (the last analysed frame), each still where it
   * was: as many boxes as tracks seen then, each overlapping its own track's box by minOverlap.
   * Nothing is committed: the caller assigns the boxes, or analyses the frames between first.
   */
  sameFaces(seenAt: number, boxes: FaceBox[]): boolean {
    const seen = this.tracks.filter((t) => Math.abs(t.lastSeen - seenAt) < 1e-6);
    if (seen.length !== boxes.length) return false;
    const free = new Set(seen);
    for (const box of boxes) {
      let best: Track | undefined;
      for (const track of free)
        if (
          overlap(box, track.box) >= this.opts.minOverlap &&
          (!best || overlap(box, track.box) > overlap(box, best.box))
        )
          best = track;
      if (!best) return false;
      free.delete(best);
    }
    return true;
  }

  /** A shot change: no face continues into the next shot (the same person there starts a new track). */
  reset(): void {
    this.tracks = [];
  }

  /** A track whose fresh descriptor shows another person: its sighting at `time` starts a new track. */
  split(track: number, time: number): number {
    const old = this.tracks.find((t) => t.id === track);
    if (!old) return track;
    this.tracks = this.tracks.filter((t) => t !== old);
    return this.start(time, old.box);
  }

  private start(time: number, box: FaceBox): number {
    const id = this.nextId++;
    this.tracks.push({ id, box, lastSeen: time, describedAt: time });
    return id;
  }
}
