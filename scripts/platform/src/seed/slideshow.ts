import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { ffmpegPath, run } from '@em/core/media';

export interface Slide {
  /** A picture shown letterboxed, or null for a black frame. */
  image: Buffer | null;
  seconds: number;
}

/**
 * An H.264 MP4 made of stills, each on screen for a known time: the demo's video and the test and
 * benchmark videos, where who is on screen when is known exactly.
 */
export async function buildSlideshow(
  slides: Slide[],
  output: string,
  opts: { width?: number; height?: number; fps?: number } = {},
): Promise<void> {
  const width = opts.width ?? 1280;
  const height = opts.height ?? 720;
  const dir = await mkdtemp(path.join(tmpdir(), 'em-slides-'));
  try {
    const lines: string[] = [];
    for (const [i, slide] of slides.entries()) {
      const file = path.join(dir, `slide${i}.png`);
      const black = sharp({ create: { width, height, channels: 3, background: '#000' } });
      const png = slide.image
        ? await sharp(slide.image)
            .rotate()
            .resize(width, height, { fit: 'contain', background: '#000' })
            .flatten({ background: '#000' })
            .png()
            .toBuffer()
        : await black.png().toBuffer();
      await writeFile(file, png);
      lines.push(`file '${file}'`, `duration ${slide.seconds}`);
    }
    // The concat demuxer takes the last file's duration only when the file is listed once more.
    lines.push(lines[lines.length - 2]);
    const list = path.join(dir, 'list.txt');
    await writeFile(list, `${lines.join('\n')}\n`);
    await run(ffmpegPath(), [
      '-v',
      'error',
      '-y',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      list,
      '-vf',
      `fps=${opts.fps ?? 25},format=yuv420p`,
      '-c:v',
      'libx264',
      '-preset',
      'veryfast',
      '-crf',
      '26',
      '-movflags',
      '+faststart',
      output,
    ]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
