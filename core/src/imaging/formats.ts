import sharp, { Metadata } from 'sharp';
import { openImage, oversizeReason } from './pixel-limit';

/** Photo formats the pipeline accepts, by what sharp reads in the file (not by its name). */
export const SUPPORTED_FORMATS: Record<string, { mime: string; ext: string }> = {
  jpeg: { mime: 'image/jpeg', ext: '.jpg' },
  png: { mime: 'image/png', ext: '.png' },
  webp: { mime: 'image/webp', ext: '.webp' },
  tiff: { mime: 'image/tiff', ext: '.tif' },
  heif: { mime: 'image/heif', ext: '.heic' },
};

export type ImageProbe =
  | { ok: true; format: string; mime: string; ext: string; width: number; height: number }
  | {
      ok: false;
      reason: string;
      /** over the pixel limit (a 413 where a single file is refused) */ tooLarge?: boolean;
    };

export const CORRUPT_IMAGE = 'corrupt or truncated image';

/**
 * What the file really is: a supported, decodable photo with its size, or the reason it is not.
 * `{ decode: false }` reads the header only: for a caller that decodes the photo next and takes a
 * failed decode as a corrupt or truncated image.
 */
export async function probeImage(file: Buffer, { decode = true }: { decode?: boolean } = {}): Promise<ImageProbe> {
  if (file.length === 0) return { ok: false, reason: 'empty file' };
  let meta: Metadata;
  try {
    // The header only (no decode), without the pixel limit, so an oversized image gets its own reason below.
    meta = await sharp(file, { failOn: 'error', limitInputPixels: false }).metadata();
  } catch {
    return { ok: false, reason: 'not an image, or a corrupt one' };
  }
  const format = SUPPORTED_FORMATS[meta.format ?? ''];
  if (!format)
    return { ok: false, reason: `unsupported format ${meta.format ?? 'unknown'} (JPEG, PNG, WebP, TIFF or HEIF)` };
  if (!meta.width || !meta.height) return { ok: false, reason: 'image without dimensions' };
  const oversize = oversizeReason(meta.width, meta.height);
  if (oversize) return { ok: false, reason: oversize, tooLarge: true };
  if (decode && !endsComplete(file, meta.format) && !(await decodes(file))) return { ok: false, reason: CORRUPT_IMAGE };
  return { ok: true, format: meta.format, ...format, width: meta.width, height: meta.height };
}

/** PNG's closing chunk: IEND, no data, its CRC. */
const PNG_IEND = Buffer.from([0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

/**
 * A JPEG that ends with its end-of-image marker, a PNG with its IEND chunk: not truncated. The decode
 * below fails on truncation only (corrupt data in the middle passes it), so these need no decode.
 */
function endsComplete(file: Buffer, format: string | undefined): boolean {
  if (format === 'jpeg') return file.length > 4 && file[file.length - 2] === 0xff && file[file.length - 1] === 0xd9;
  if (format === 'png') return file.length > PNG_IEND.length && file.subarray(-PNG_IEND.length).equals(PNG_IEND);
  return false;
}

/** Decoding a few pixels catches truncated files that still have a valid header. */
async function decodes(file: Buffer): Promise<boolean> {
  try {
    await openImage(file, { failOn: 'truncated' }).resize(8, 8, { fit: 'inside' }).raw().toBuffer();
    return true;
  } catch {
    return false;
  }
}
