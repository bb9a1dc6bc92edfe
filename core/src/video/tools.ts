import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { createLogger, Logger } from '../logger';

/** The first executable `name` on PATH, or null. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

const resolved = new Map<string, string>();

/**
 * A media tool: FFMPEG_PATH / FFPROBE_PATH when set, else the distribution's build on PATH (kept up
 * to date with security fixes; npm start and CI install Debian's ffmpeg), and only as the last
 * resort the static build shipped in an npm package (@ffmpeg-installer, @ffprobe-installer).
 */
function toolPath(name: 'ffmpeg' | 'ffprobe'): string {
  const override = process.env[name === 'ffmpeg' ? 'FFMPEG_PATH' : 'FFPROBE_PATH'];
  if (override) return override;
  let found = resolved.get(name);
  if (!found) {
    const installer = name === 'ffmpeg' ? '@ffmpeg-installer/ffmpeg' : '@ffprobe-installer/ffprobe';
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when the tool is not on PATH
    found = findOnPath(name) ?? (require(installer) as { path: string }).path;
    resolved.set(name, found);
  }
  return found;
}

export const ffmpegPath = () => toolPath('ffmpeg');
export const ffprobePath = () => toolPath('ffprobe');

/**
 * A media tool failed. The message names the tool and its exit only; what the tool printed (paths,
 * its banner, decoder messages) is in `detail` and in the log, never in a message for API clients.
 */
export class MediaToolError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
    this.name = 'MediaToolError';
  }
}

let logger: Logger | undefined;
/** Logs a tool's own output (the operator's view of a failure). */
export function logToolFailure(message: string, detail: string): void {
  try {
    logger ??= createLogger('media-tools');
    logger.warn({ detail }, message);
  } catch {
    // no configuration (a bare script): the detail stays on the error
  }
}

export function lastLines(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(0, 500);
}

/** Runs a tool to completion; rejects with a MediaToolError (its stderr logged, not in the message). */
export function run(
  binary: string,
  args: string[],
  opts: { stdout?: (chunk: Buffer) => void; timeoutMs?: number } = {},
): Promise<string> {
  const tool = path.basename(binary);
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
      logToolFailure(`${tool} could not start`, e.message);
      reject(new MediaToolError(`${tool} could not start`, e.message));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(out);
      const message = `${tool} failed (${signal ?? `exit ${code}`})`;
      logToolFailure(message, lastLines(err));
      reject(new MediaToolError(message, lastLines(err)));
    });
  });
}
