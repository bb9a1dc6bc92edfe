import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ffmpegPath, inputArgs, probeVideo, sampleFrames, VIDEO_DEMUXERS } from './ffmpeg';
import { findOnPath } from './tools';

describe('how tenant videos are opened', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'em-ffmpeg-test-'));
  const segment = path.join(dir, 'segment.ts');
  const mp4 = path.join(dir, 'clip.mp4');

  beforeAll(() => {
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      segment,
    ]);
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=1:size=160x120:rate=10',
      '-pix_fmt',
      'yuv420p',
      mp4,
    ]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('local files and pipes only, the allowed demuxers only, and the identified demuxer when known', () => {
    expect(inputArgs('/x/in', 'mov')).toEqual([
      '-protocol_whitelist',
      'file,pipe',
      '-format_whitelist',
      VIDEO_DEMUXERS.join(','),
      '-f',
      'mov',
      '-i',
      '/x/in',
    ]);
    expect(inputArgs('/x/in')).not.toContain('-f');
  });

  it('prefers the ffmpeg on PATH over the npm static build', () => {
    const onPath = findOnPath('ffmpeg');
    if (!process.env.FFMPEG_PATH && onPath) expect(ffmpegPath()).toBe(onPath);
  });

  it('probes a real video with its demuxer', async () => {
    await expect(probeVideo(mp4)).resolves.toMatchObject({ format: 'mov', width: 160, height: 120 });
    await expect(probeVideo(segment)).resolves.toMatchObject({ format: 'mpegts' });
  });

  it('gives a phone video filmed upright (rotation in its display matrix) its upright size, and samples it unsquashed', async () => {
    // Phones store a portrait video as landscape pixels plus a rotation; ffmpeg turns the frames
    // upright when it decodes them, so the probe must give the upright size or every frame is squashed.
    const coded = path.join(dir, 'coded.mp4');
    const portrait = path.join(dir, 'portrait.mp4');
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'color=black:size=160x120:rate=10:duration=1',
      '-vf',
      'drawbox=x=20:y=20:w=40:h=40:color=white:t=fill',
      '-pix_fmt',
      'yuv420p',
      coded,
    ]);
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-i',
      coded,
      '-c',
      'copy',
      '-metadata:s:v:0',
      'rotate=90',
      portrait,
    ]);
    const probe = await probeVideo(portrait);
    expect({ width: probe.width, height: probe.height }).toEqual({ width: 120, height: 160 });
    let square: { width: number; height: number } | null = null;
    await sampleFrames(
      portrait,
      { fps: 1, width: probe.width, height: probe.height, format: probe.format },
      async (rgb) => {
        square ??= whiteBounds(rgb, probe.width, probe.height);
      },
    );
    expect(square).not.toBeNull();
    expect(Math.abs(square!.width - square!.height)).toBeLessThanOrEqual(3);
    expect(square!.width).toBeGreaterThanOrEqual(36);
  });

  it('refuses an HLS playlist and a concat list without reading what they name, and says nothing of paths', async () => {
    const playlist = path.join(dir, 'upload');
    writeFileSync(playlist, `#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n${segment}\n#EXT-X-ENDLIST\n`);
    const hls = probeVideo(playlist);
    await expect(hls).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(hls).rejects.toThrow(/^(?!.*\/tmp).*(playlist|not a readable video)/i);
    writeFileSync(playlist, `ffconcat version 1.0\nfile segment.ts\n`);
    await expect(probeVideo(playlist)).rejects.toThrow(/^(?!.*\/tmp).*(playlist|not a readable video)/i);
  });

  it('samples the frames of a part of a video, with their times in the whole video', async () => {
    const long = path.join(dir, 'long.mp4');
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'testsrc=duration=4:size=160x120:rate=25',
      '-pix_fmt',
      'yuv420p',
      long,
    ]);
    const times = async (part: { startSeconds?: number; durationSeconds?: number }) => {
      const seen: number[] = [];
      const frames = await sampleFrames(
        long,
        { fps: 2, width: 80, height: 60, format: 'mov', ...part },
        async (rgb, time) => {
          expect(rgb.length).toBe(80 * 60 * 3);
          seen.push(time);
        },
      );
      expect(frames).toBe(seen.length);
      return seen;
    };
    expect(await times({})).toEqual([0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5]);
    expect(await times({ startSeconds: 1.5, durationSeconds: 1.5 })).toEqual([1.5, 2, 2.5]);
    expect(await times({ startSeconds: 3 })).toEqual([3, 3.5]);
  });
});

/** The bounds of the bright pixels of a raw RGB frame. */
function whiteBounds(rgb: Buffer, width: number, height: number): { width: number; height: number } | null {
  let x0 = width,
    y0 = height,
    x1 = -1,
    y1 = -1;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (rgb[(y * width + x) * 3] < 128) continue;
      x0 = Math.min(x0, x);
      x1 = Math.max(x1, x);
      y0 = Math.min(y0, y);
      y1 = Math.max(y1, y);
    }
  }
  return x1 < 0 ? null : { width: x1 - x0 + 1, height: y1 - y0 + 1 };
}
