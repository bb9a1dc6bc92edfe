import sharp, { Sharp, SharpOptions } from 'sharp';
import { config } from '../config';

/** The most pixels any image may decode to (IMPORT_MAX_PIXELS). */
export function maxImagePixels(): number {
  return config().IMPORT_MAX_PIXELS;
}

/**
 * sharp on input that came from outside (photos, selfies): decoding stops at the pixel limit, so
 * a small file with huge dimensions cannot take gigabytes of memory.
 */
export function openImage(input: Buffer, options: SharpOptions = {}): Sharp {
  return sharp(input, { limitInputPixels: maxImagePixels(), ...options });
}

/** The reason an image of this size is refused, or null when it is within the limit. */
export function oversizeReason(width: number, height: number, limit = maxImagePixels()): string | null {
  if (width * height <= limit) return null;
  const mp = (n: number) => `${Math.round(n / 1e6)} megapixels`;
  return `image of ${width}x${height} (${mp(width * height)}) is over the limit of ${mp(limit)}`;
}

/** `image` resized (never enlarged) so its longest side is at most `maxSide`: the bounded copy that analysis runs on. */
export async function boundedCopy(image: Buffer, maxSide: number): Promise<{ buffer: Buffer; scale: number }> {
  const meta = await openImage(image).metadata();
  const longest = Math.max(meta.width ?? 0, meta.height ?? 0);
  if (longest <= maxSide) return { buffer: image, scale: 1 };
  const buffer = await openImage(image)
    .rotate()
    .resize(maxSide, maxSide, { fit: 'inside' })
    .jpeg({ quality: 92 })
    .toBuffer();
  return { buffer, scale: maxSide / longest };
}
