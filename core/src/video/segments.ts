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
 * merged when they overlap, and split to at most maxDuration.
 */
export function buildSegments(times: number[], sampleFps: number, durationSeconds: number, s: ClipSettings): Segment[] {
  if (!(sampleFps > 0) || !(s.maxDurationSeconds > 0) || s.maxGapSeconds < 0 || s.minSegmentSeconds < 0 || s.paddingStartSeconds < 0 || s.paddingEndSeconds < 0) {
    throw new AppError('BAD_REQUEST', `Invalid clip settings: ${JSON.stringify({ sampleFps, ...s })}`);
  }
  const frame = 1 / sampleFps;
  const sorted = [...new Set(times)].sort((a, b) => a - b);
  const runs: Segment[] = [];
  for (const t of sorted) {
    const last = runs[runs.length - 1];
    if (last && t - (last.end - frame) <= s.maxGapSeconds + 1e-6) last.end = t + frame;
    else runs.push({ start: t, end: t + frame });
  }
  const padded = runs
    .filter((r) => r.end - r.start >= s.minSegmentSeconds - 1e-6)
    .map((r) => ({ start: Math.max(0, r.start - s.paddingStartSeconds), end: Math.min(durationSeconds, r.end + s.paddingEndSeconds) }))
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
    for (let i = 0; i < pieces; i++) out.push({ start: round(r.start + i * length), end: round(i === pieces - 1 ? r.end : r.start + (i + 1) * length) });
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
