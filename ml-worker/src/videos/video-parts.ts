import { sampleFrames } from '@em/core/media';
import { FaceAnalyzer } from '../faces/face-analyzer';
import { Sighting, VideoFaceFinder } from './video-faces';

/** A stretch of a video, indexed on its own (on another thread): [start, end) in seconds. */
export interface VideoPart {
  start: number;
  end: number;
}

/** How a video's frames are decoded: the event's sampling rate, the analysis size, the demuxer ffprobe found. */
export interface FrameDecoding {
  fps: number;
  width: number;
  height: number;
  format: string;
}

export interface PartStats {
  frames: number;
  analysed: number;
  described: number;
  /** Key frames not analysed: nothing moved since the last analysed frame. */
  still: number;
  /** When each new shot of the part starts (a cut at the part's very start is not seen). */
  shotChanges: number[];
}

/** Tracks are numbered per part; a part's numbers start above the ones before it. */
export const TRACKS_PER_PART = 1_000_000;

/** `count` parts of about the same length, cut on the sampling grid (each part's frames are the ones a single pass would sample). */
export function splitVideo(durationSeconds: number, fps: number, count: number): VideoPart[] {
  const frames = Math.max(1, Math.ceil(durationSeconds * fps - 1e-9));
  const parts = Math.max(1, Math.min(count, frames));
  const cuts = Array.from({ length: parts + 1 }, (_, i) =>
    i === parts ? durationSeconds : Math.round((i * frames) / parts) / fps,
  );
  return cuts.slice(0, -1).map((start, i) => ({ start, end: cuts[i + 1] }));
}

/**
 * Indexes one part of a video: its frames decoded by ffmpeg, faces found and followed by a
 * VideoFaceFinder of its own. Sightings go to `onSightings` in order, tracks numbered from `trackBase`.
 */
export async function indexPart(
  faces: Pick<FaceAnalyzer, 'detectFrameFaces'>,
  file: string,
  decode: FrameDecoding,
  part: VideoPart,
  trackBase: number,
  onSightings: (sightings: Sighting[], time: number) => Promise<void>,
): Promise<PartStats> {
  const finder = new VideoFaceFinder(faces, decode.width, decode.height, decode.fps);
  const renumber = (sightings: Sighting[]) => sightings.map((s) => ({ ...s, track: s.track + trackBase }));
  const frames = await sampleFrames(
    file,
    { ...decode, startSeconds: part.start, durationSeconds: part.end - part.start },
    async (rgb, time) => {
      // A frame just past the end (rounding of the cut) belongs to the next part.
      if (time >= part.end - 1e-6) return;
      await onSightings(renumber(await finder.frame(rgb, time)), time);
    },
  );
  await onSightings(renumber(await finder.finish()), part.end);
  return {
    frames,
    analysed: finder.analysed,
    described: finder.described,
    still: finder.still,
    shotChanges: finder.shotChanges,
  };
}
