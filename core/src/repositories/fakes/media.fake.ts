import { execFileSync } from 'node:child_process';
import { findOnPath } from '../../video/tools';

/** A short real MP4 (test pattern, `seconds` long) written to `file` with ffmpeg, for tests of video code. */
export function writeTestVideo(file: string, seconds = 2, size = '160x120'): void {
  const ffmpeg = findOnPath('ffmpeg') ?? 'ffmpeg';
  execFileSync(ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=${size}:rate=10`,
    '-pix_fmt',
    'yuv420p',
    file,
  ]);
}
