import { execFileSync } from 'node:child_process';
import { findOnPath } from '@em/core/media';

/**
 * Tenant videos are decoded by the distribution's ffmpeg (security fixes arrive with system
 * updates); the static build from npm is only a fallback. When FFMPEG_PATH is not set and ffmpeg is
 * not on PATH, Debian's package is installed when running as root on Debian/Ubuntu, as redis-server is.
 */
export function ensureSystemFfmpeg(log: (line: string) => void): void {
  if (process.env.FFMPEG_PATH || (findOnPath('ffmpeg') && findOnPath('ffprobe'))) return;
  if (process.getuid?.() === 0 && findOnPath('apt-get')) {
    log('ffmpeg is not installed: installing Debian package ffmpeg (apt-get)');
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    try {
      execFileSync('apt-get', ['install', '-y', '-qq', 'ffmpeg'], { stdio: 'inherit', env });
    } catch {
      try {
        execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
        execFileSync('apt-get', ['install', '-y', '-qq', 'ffmpeg'], { stdio: 'inherit', env });
      } catch {
        // reported below
      }
    }
    if (findOnPath('ffmpeg') && findOnPath('ffprobe')) return;
  }
  log(
    'warning: no system ffmpeg (install it: `apt-get install ffmpeg`, or set FFMPEG_PATH/FFPROBE_PATH); videos are decoded by the older static build from npm',
  );
}
