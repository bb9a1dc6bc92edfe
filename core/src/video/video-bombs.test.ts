import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { maxImagePixels } from '../imaging/pixel-limit';
import { ffmpegPath, probeVideo } from './ffmpeg';

/**
 * The attack (found by the review of 2026-12-01, each test failing before its mend): a video's frames have no pixel limit. Photos are refused over
 * IMPORT_MAX_PIXELS (50 MP) from their header, but probeVideo, the only check of `addEventVideo` (media subgraph) and
 * of the ml-worker before it decodes every frame (VIDEO_INDEX_PARTS ffmpeg processes at once), accepts any frame size
 * ffmpeg can allocate. A 200 KB MP4 of 8192x8192 frames passes; a 3 MB AVI of two 16000x16000 MJPEG frames makes one
 * ffmpeg decode hold 830 MB and spend 5 s of CPU per frame (measured), so a 50 MB upload is minutes of a shared
 * worker and gigabytes of its memory.
 */
describe('video decompression bombs', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'em-video-bomb-'));
  const huge = path.join(dir, 'huge-frames.mp4');

  beforeAll(() => {
    execFileSync(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      'color=black:s=8192x8192:d=1:r=1',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      huge,
    ]);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a small video whose frames are over the pixel limit photos have (IMPORT_MAX_PIXELS)', async () => {
    expect(statSync(huge).size).toBeLessThan(1024 * 1024);
    expect(8192 * 8192).toBeGreaterThan(maxImagePixels());
    // Before the mend: resolves { width: 8192, height: 8192, format: 'mov' } and the file is stored and queued for indexing.
    await expect(probeVideo(huge)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  }, 120_000);
});
