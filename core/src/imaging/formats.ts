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
 * A JPEG that ends with its end-of-image marker (or has one before a trailer a phone camera appends), a PNG with its
 * IEND chunk: not truncated. The decode below fails on truncation only (corrupt data in the middle passes it), so
 * these need no decode.
 */
function endsComplete(file: Buffer, format: string | undefined): boolean {
  if (format === 'jpeg')
    return (file.length > 4 && file[file.length - 2] === 0xff && file[file.length - 1] === 0xd9) || jpegEnd(file) > 0;
  if (format === 'png') return file.length > PNG_IEND.length && file.subarray(-PNG_IEND.length).equals(PNG_IEND);
  return false;
}

/** Markers that stand alone (no length follows): TEM and the restart markers. */
const lengthless = (marker: number) => marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7);

/**
 * Where a JPEG's end-of-image marker ends, found by walking its segments and the entropy-coded data of each scan (a
 * byte search, no decode); -1 when the file ends before it (truncated) or a segment is not where its length says.
 */
export function jpegEnd(file: Buffer): number {
  if (file.length < 4 || file[0] !== 0xff || file[1] !== 0xd8) return -1;
  let at = 2;
  while (at + 1 < file.length) {
    if (file[at] !== 0xff) return -1;
    const marker = file[at + 1];
    if (marker === 0xd9) return at + 2;
    if (marker === 0xff || lengthless(marker)) {
      at += marker === 0xff ? 1 : 2; // a fill byte before a marker, or a marker without a segment
      continue;
    }
    if (at + 3 >= file.length) return -1;
    const length = file.readUInt16BE(at + 2);
    if (length < 2) return -1;
    at += 2 + length;
    if (marker !== 0xda) continue;
    // A scan's data runs to the next marker: 0xff followed by neither a stuffed 0x00 nor a restart.
    for (;;) {
      const ff = file.indexOf(0xff, at);
      if (ff < 0 || ff + 1 >= file.length) return -1;
      const next = file[ff + 1];
      if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) at = ff + 2;
      else if (next === 0xff) at = ff + 1;
      else {
        at = ff;
        break;
      }
    }
  }
  return -1;
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
