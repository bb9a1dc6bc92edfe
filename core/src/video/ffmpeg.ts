import { spawn } from 'node:child_process';
import { AppError } from '../errors';

/**
 * ffmpeg and ffprobe: FFMPEG_PATH / FFPROBE_PATH when set (a system build), else the static builds
 * that ship in npm packages (@ffmpeg-installer, @ffprobe-installer), so a fresh machine needs nothing.
 */
export function ffmpegPath(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return process.env.FFMPEG_PATH || (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
}

export function ffprobePath(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return process.env.FFPROBE_PATH || (require('@ffprobe-installer/ffprobe') as { path: string }).path;
}

export interface VideoProbe {
  durationSeconds: number;
  width: number;
  height: number;
  frameRate: number;
}

/** Runs a tool to completion; rejects with the end of its stderr when it fails. */
export function run(binary: string, args: string[], opts: { stdout?: (chunk: Buffer) => void; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.stdout.on('data', (chunk: Buffer) => (opts.stdout ? opts.stdout(chunk) : (out += chunk.toString())));
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-4000);
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${binary.split('/').pop()} failed (${signal ?? `exit ${code}`}): ${lastLines(err)}`));
    });
  });
}

function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(0, 500);
}

/** Duration, size and frame rate of a video file; a clear error when it is not a readable video. */
export async function probeVideo(file: string): Promise<VideoProbe> {
  let json: string;
  try {
    json = await run(ffprobePath(), ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file], { timeoutMs: 60_000 });
  } catch (err) {
    throw new AppError('BAD_REQUEST', `Not a readable video: ${(err as Error).message}`);
  }
  const parsed = JSON.parse(json) as { streams?: Array<Record<string, any>>; format?: Record<string, any> };
  const video = parsed.streams?.find((s) => s.codec_type === 'video');
  if (!video) throw new AppError('BAD_REQUEST', 'The file has no video stream');
  const duration = Number(parsed.format?.duration ?? video.duration);
  if (!Number.isFinite(duration) || duration <= 0) throw new AppError('BAD_REQUEST', 'The video has no duration (corrupt or a still image)');
  const [num, den] = String(video.avg_frame_rate ?? video.r_frame_rate ?? '0/1').split('/').map(Number);
  return { durationSeconds: duration, width: Number(video.width), height: Number(video.height), frameRate: den ? num / den : 0 };
}

/**
 * Decodes frames at `fps` (scaled to at most `maxWidth`) as raw RGB and hands each to `onFrame`
 * with its time; frames are delivered one at a time (backpressure through the pipe).
 */
export function sampleFrames(
  file: string,
  opts: { fps: number; width: number; height: number },
  onFrame: (rgb: Buffer, timeSeconds: number) => Promise<void>,
): Promise<number> {
  const frameBytes = opts.width * opts.height * 3;
  return new Promise((resolve, reject) => {
    const child = spawn(
      ffmpegPath(),
      ['-v', 'error', '-i', file, '-an', '-vf', `fps=${opts.fps},scale=${opts.width}:${opts.height}`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let pending = Buffer.alloc(0);
    let index = 0;
    let failed: Error | null = null;
    let err = '';
    let chain = Promise.resolve();
    child.stderr.on('data', (c: Buffer) => {
      err = (err + c.toString()).slice(-4000);
    });
    child.stdout.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= frameBytes) {
        const frame = Buffer.from(pending.subarray(0, frameBytes));
        pending = pending.subarray(frameBytes);
        const time = index++ / opts.fps;
        child.stdout.pause();
        chain = chain
          .then(() => (failed ? undefined : onFrame(frame, time)))
          .catch((e) => {
            failed ??= e as Error;
            child.kill('SIGKILL');
          })
          .finally(() => child.stdout.resume());
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      void chain.then(() => {
        if (failed) reject(failed);
        else if (code !== 0) reject(new Error(`ffmpeg could not decode the video: ${lastLines(err)}`));
        else resolve(index);
      });
    });
  });
}

/** Cuts [start, end) of a video into an MP4 (H.264/AAC, re-encoded so the start is frame-accurate). */
export async function cutClip(source: string, startSeconds: number, endSeconds: number, output: string): Promise<void> {
  await run(
    ffmpegPath(),
    [
      '-v', 'error', '-y',
      '-ss', startSeconds.toFixed(3), '-i', source, '-t', (endSeconds - startSeconds).toFixed(3),
      '-map', '0:v:0', '-map', '0:a:0?',
      '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p',
      '-c:a', 'aac', '-b:a', '128k',
      '-movflags', '+faststart', output,
    ],
    { timeoutMs: 10 * 60_000 },
  );
}
