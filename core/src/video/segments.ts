import { AppError } from '../errors';

/** The event's clipping settings (seconds). */
export interface ClipSettings {
  /** Matched frames further apart than this start a new segment. */
  maxGapSeconds: number;
  /** Segments shorter than this (seen time) are dropped as too sparse. */
  minSegmentSeconds: number;
  paddingStartSeconds: number;
  paddingEndSeconds: number;
  /** Longer windows are split into clips of at most this length. */
  maxDurationSeconds: number;
}

export interface Segment {
  start: number;
  end: number;
}

/**
 * From the times at which the person was seen in one video (sampled every 1/fps s) to the clip
 * windows: runs of sightings with gaps up to maxGap, each covering the sampling interval of its last
 * frame; runs seen for less than minSegment are dropped; the rest are padded, clamped to the video,
 * merged when they overlap, and split to at most maxDuration. With the video's shot changes (when
 * each new shot starts), a window never reaches into another shot than the ones the person was seen
 * in: padding stops at the cut, and a run breaks at a cut the person was not seen across.
 */
export function buildSegments(
  times: number[],
  sampleFps: number,
  durationSeconds: number,
  s: ClipSettings,
  shotChanges: readonly number[] = [],
): Segment[] {
  if (
    !(sampleFps > 0) ||
    !(s.maxDurationSeconds > 0) ||
    s.maxGapSeconds < 0 ||
    s.minSegmentSeconds < 0 ||
    s.paddingStartSeconds < 0 ||
    s.paddingEndSeconds < 0
  ) {
    throw new AppError('BAD_REQUEST', `Invalid clip settings: ${JSON.stringify({ sampleFps, ...s })}`);
  }
  const frame = 1 / sampleFps;
  const cuts = [...shotChanges].filter(Number.isFinite).sort((a, b) => a - b);
  /** The start of the shot holding time t, and the start of the next one (or the video's end). */
  const shotStart = (t: number) => cuts.filter((c) => c <= t + 1e-6).pop() ?? 0;
  const shotEnd = (t: number) => cuts.find((c) => c > t + 1e-6) ?? Number.POSITIVE_INFINITY;
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  const runs: Array<Segment & { last: number }> = [];
  for (const t of sorted) {
    const run = runs[runs.length - 1];
    // Seen on both sides of a cut in consecutive sampled frames: the same person goes on in the next shot.
    const acrossCut = run && shotEnd(run.last) <= t + 1e-6 && t - run.last > frame + 1e-6;
    if (run && !acrossCut && t - run.last <= s.maxGapSeconds + 1e-6) {
      run.last = t;
      run.end = Math.min(t + frame, shotEnd(t));
    } else runs.push({ start: t, end: Math.min(t + frame, shotEnd(t)), last: t });
  }
  const padded = runs
    .filter((r) => r.end - r.start >= s.minSegmentSeconds - 1e-6)
    .map((r) => ({
      start: Math.max(0, r.start - s.paddingStartSeconds, shotStart(r.start)),
      end: Math.min(durationSeconds, r.end + s.paddingEndSeconds, shotEnd(r.last)),
    }))
    .filter((r) => r.end > r.start);
  const merged: Segment[] = [];
  for (const r of padded) {
    const last = merged[merged.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else merged.push({ ...r });
  }
  const out: Segment[] = [];
  for (const r of merged) {
    const pieces = Math.ceil((r.end - r.start) / s.maxDurationSeconds - 1e-9);
    const length = (r.end - r.start) / pieces;
    for (let i = 0; i < pieces; i++)
      out.push({
        start: round(r.start + i * length),
        end: round(i === pieces - 1 ? r.end : r.start + (i + 1) * length),
      });
  }
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** `HH:MM:SS` of a time inside a video (spec format of start_time / end_time). */
export function toClockTime(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}
