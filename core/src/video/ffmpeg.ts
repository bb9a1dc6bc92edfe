import { spawn } from 'node:child_process';
import { config } from '../config';
import { AppError } from '../errors';
import { oversizeReason } from '../imaging/pixel-limit';
import { ffmpegPath, ffprobePath, lastLines, logToolFailure, MediaToolError, run } from './tools';

export { ffmpegPath, ffprobePath, MediaToolError, run } from './tools';

/**
 * The demuxers a tenant's video may be read with: real containers that name no other file. HLS,
 * DASH, concat lists, image sequences and the like read further files or URLs, so they are refused.
 */
export const VIDEO_DEMUXERS = ['mov', 'matroska', 'avi', 'mpegts'] as const;
/** Demuxers that read other files or URLs named inside the upload: refused with their own reason. */
const PLAYLIST_DEMUXERS = /^(hls|applehttp|concat|dash|ffconcat|m3u|mpd|image2|tee|subfile|data)$/;

/**
 * How ffmpeg and ffprobe open a tenant's file: local files and pipes only, and only the allowed
 * demuxers (with `format`, exactly the one ffprobe identified).
 */
export function inputArgs(file: string, format?: string): string[] {
  return [
    '-protocol_whitelist',
    'file,pipe',
    '-format_whitelist',
    VIDEO_DEMUXERS.join(','),
    ...(format ? ['-f', format] : []),
    '-i',
    file,
  ];
}

export interface VideoProbe {
  durationSeconds: number;
  width: number;
  height: number;
  frameRate: number;
  /** The demuxer ffprobe identified (one of VIDEO_DEMUXERS); decoding uses exactly it. */
  format: string;
}

const NOT_READABLE = 'The file is not a readable video (MP4/MOV, MKV/WebM, AVI or MPEG-TS)';

/** Duration, size, frame rate and container of a video file; a clear 400 when it is not an accepted, readable video. */
export async function probeVideo(
  file: string,
  limits = { maxSeconds: config().VIDEO_MAX_SECONDS },
): Promise<VideoProbe> {
  let json: string;
  try {
    json = await run(
      ffprobePath(),
      ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', ...inputArgs(file)],
      { timeoutMs: 60_000 },
    );
  } catch (err) {
    const refused = /\[(\w+) @ 0x[0-9a-f]+\] Format not on whitelist/.exec((err as MediaToolError).detail ?? '')?.[1];
    if (refused && PLAYLIST_DEMUXERS.test(refused)) {
      throw new AppError(
        'BAD_REQUEST',
        'Playlists and concat lists (HLS, DASH, ffconcat) are not accepted: upload the video file itself',
      );
    }
    if (refused) throw new AppError('BAD_REQUEST', `${NOT_READABLE}; this container (${refused}) is not accepted`);
    throw new AppError('BAD_REQUEST', NOT_READABLE);
  }
  const parsed = JSON.parse(json) as { streams?: ProbedStream[]; format?: Record<string, unknown> };
  const format = String((parsed.format?.format_name as string | undefined) ?? '').split(',')[0];
  if (!(VIDEO_DEMUXERS as readonly string[]).includes(format)) throw new AppError('BAD_REQUEST', NOT_READABLE);
  const videos = (parsed.streams ?? []).filter((s) => s.codec_type === 'video');
  const video = videos[0];
  if (!video) throw new AppError('BAD_REQUEST', 'The file has no video stream');
  // Every frame is decoded to its pixels (ffmpeg picks the largest stream by default): the photos' pixel limit holds.
  for (const stream of videos) {
    const oversize = oversizeReason(Number(stream.width) || 0, Number(stream.height) || 0);
    if (oversize)
      throw new AppError('BAD_REQUEST', `The video's frames are too large: ${oversize.replace('image', 'frame')}`);
  }
  const duration = Number(parsed.format?.duration ?? video.duration);
  if (!Number.isFinite(duration) || duration <= 0)
    throw new AppError('BAD_REQUEST', 'The video has no duration (corrupt or a still image)');
  if (duration > limits.maxSeconds)
    throw new AppError(
      'BAD_REQUEST',
      `The video is ${Math.round(duration)} s long, over the limit of ${limits.maxSeconds} s (VIDEO_MAX_SECONDS)`,
    );
  const [num, den] = String(video.avg_frame_rate ?? video.r_frame_rate ?? '0/1')
    .split('/')
    .map(Number);
  const turned = quarterTurned(video);
  const [width, height] = turned
    ? [Number(video.height), Number(video.width)]
    : [Number(video.width), Number(video.height)];
  return { durationSeconds: duration, width, height, frameRate: den ? num / den : 0, format };
}

/** The fields of an ffprobe stream read here. */
interface ProbedStream {
  codec_type?: string;
  width?: number;
  height?: number;
  duration?: string;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  side_data_list?: Array<Record<string, unknown>>;
  tags?: { rotate?: string };
}

/**
 * Whether the stream is shown turned by a quarter (a phone's upright video: landscape pixels and a
 * rotation of 90 or 270 degrees). ffmpeg turns such frames upright when it decodes them, so their
 * size is the coded one swapped.
 */
function quarterTurned(video: ProbedStream): boolean {
  const matrix = video.side_data_list?.find((d) => d.rotation !== undefined);
  const degrees = Number(matrix?.rotation ?? video.tags?.rotate ?? 0);
  return Number.isFinite(degrees) && Math.abs(Math.round(degrees / 90)) % 2 === 1;
}

/** Decoded frames waiting for `onFrame` before ffmpeg is paused: decoding goes on while a frame is analysed. */
const READ_AHEAD_FRAMES = 3;

/**
 * Decodes frames at `fps` (scaled to `width` x `height`) as raw RGB and hands each to `onFrame`
 * with its time, one at a time and in order (of the whole video, or of the part from `startSeconds`
 * lasting `durationSeconds`); ffmpeg decodes up to READ_AHEAD_FRAMES ahead (in its
 * own process, so on another core), then waits (backpressure through the pipe).
 */
export function sampleFrames(
  file: string,
  opts: { fps: number; width: number; height: number; format: string; startSeconds?: number; durationSeconds?: number },
  onFrame: (rgb: Buffer, timeSeconds: number) => Promise<void>,
): Promise<number> {
  const frameBytes = opts.width * opts.height * 3;
  const start = opts.startSeconds ?? 0;
  // A part of the video: seek before opening (decoding starts at the key frame before), stop after the duration.
  const part = [
    ...(start > 0 ? ['-ss', start.toFixed(3)] : []),
    ...inputArgs(file, opts.format),
    ...(opts.durationSeconds !== undefined ? ['-t', opts.durationSeconds.toFixed(3)] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(
      ffmpegPath(),
      [
        '-v',
        'error',
        ...part,
        '-an',
        '-vf',
        `fps=${opts.fps},scale=${opts.width}:${opts.height}`,
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        'pipe:1',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // The frame being filled, written in place (no re-concatenation of a growing buffer per chunk).
    let frame = Buffer.allocUnsafe(frameBytes);
    let filled = 0;
    let index = 0;
    let queued = 0;
    let failed: Error | null = null;
    let err = '';
    let chain = Promise.resolve();
    child.stderr.on('data', (c: Buffer) => {
      err = (err + c.toString()).slice(-4000);
    });
    child.stdout.on('data', (chunk: Buffer) => {
      let offset = 0;
      while (offset < chunk.length) {
        const copied = chunk.copy(frame, filled, offset, Math.min(chunk.length, offset + frameBytes - filled));
        filled += copied;
        offset += copied;
        if (filled < frameBytes) break;
        const full = frame;
        frame = Buffer.allocUnsafe(frameBytes);
        filled = 0;
        const time = Math.round((start + index++ / opts.fps) * 1000) / 1000;
        if (++queued >= READ_AHEAD_FRAMES) child.stdout.pause();
        chain = chain
          .then(() => (failed ? undefined : onFrame(full, time)))
          .catch((e) => {
            failed ??= e as Error;
            child.kill('SIGKILL');
          })
          .finally(() => {
            if (--queued < READ_AHEAD_FRAMES) child.stdout.resume();
          });
      }
    });
    child.on('error', (e) => reject(new MediaToolError('ffmpeg could not start', e.message)));
    child.on('close', (code) => {
      void chain.then(() => {
        if (failed) return reject(failed);
        if (code === 0) return resolve(index);
        logToolFailure('ffmpeg could not decode the video', lastLines(err));
        reject(new MediaToolError('ffmpeg could not decode the video', lastLines(err)));
      });
    });
  });
}

/** Cuts [start, end) of a video read with its demuxer `format` into an MP4 (H.264/AAC, re-encoded so the start is frame-accurate). */
export async function cutClip(
  source: string,
  format: string,
  startSeconds: number,
  endSeconds: number,
  output: string,
): Promise<void> {
  await run(
    ffmpegPath(),
    [
      '-v',
      'error',
      '-y',
      '-ss',
      startSeconds.toFixed(3),
      ...inputArgs(source, format),
      '-t',
      (endSeconds - startSeconds).toFixed(3),
      '-map',
      '0:v:0',
      '-map',
      '0:a:0?',
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '23',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-b:a',
      '128k',
      '-movflags',
      '+faststart',
      output,
    ],
    { timeoutMs: 10 * 60_000 },
  );
}
