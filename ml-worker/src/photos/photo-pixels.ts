import { openImage } from '@em/core/media';

/** Decoded pixels: oriented as the photo is seen, sRGB, 3 channels (R, G, B), row by row. */
export interface RgbPixels {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * The one decode of a photo that previews, BIB reading and faces share: EXIF orientation applied,
 * sRGB, no alpha, resized (never enlarged) so its longest side is at most `maxSide`. The same
 * pixels sharp gave each step when each decoded the original itself (for originals up to `maxSide`,
 * bit for bit). Throws on a corrupt or truncated image.
 */
export async function decodePhoto(original: Buffer, maxSide: number): Promise<RgbPixels> {
  const { data, info } = await openImage(original, { failOn: 'error' })
    .rotate()
    .resize(maxSide, maxSide, { fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** `pixels` as a sharp pipeline's input. */
export function fromPixels(pixels: RgbPixels) {
  return openImage(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 3 } });
}

/** `pixels` resized (never enlarged) so the longest side is at most `maxSide`; the same pixels when already within it. */
export async function boundedPixels(pixels: RgbPixels, maxSide: number): Promise<RgbPixels> {
  if (Math.max(pixels.width, pixels.height) <= maxSide) return pixels;
  const { data, info } = await fromPixels(pixels)
    .resize(maxSide, maxSide, { fit: 'inside' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** RGB pixels with an opaque alpha channel (what sharp's ensureAlpha gives), in a buffer of their own. */
export function withAlpha(pixels: RgbPixels): { data: Uint8Array; width: number; height: number } {
  const { data, width, height } = pixels;
  const out = new Uint8Array(width * height * 4);
  for (let i = 0, j = 0; i < data.length; i += 3, j += 4) {
    out[j] = data[i];
    out[j + 1] = data[i + 1];
    out[j + 2] = data[i + 2];
    out[j + 3] = 255;
  }
  return { data: out, width, height };
}
