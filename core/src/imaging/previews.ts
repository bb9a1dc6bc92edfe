import type { JpegOptions, Sharp } from 'sharp';
import { openImage } from './pixel-limit';
import { boundedPixels, decodePhoto, fromPixels, RgbPixels } from './photo-pixels';

export interface RenderedImage {
  buffer: Buffer;
  width: number;
  height: number;
}

export const PREVIEW_SIZES = { large: 1600, thumbnail: 400 } as const;

/**
 * The JPEG faces are found on (the large preview without watermark): mozjpeg's encoder (trellis
 * quantisation) at 82 as before, without its scan search: that only rearranges the same
 * coefficients into progressive scans (+0.5% bytes, a third less CPU), so the JPEG decodes to the
 * same pixels bit for bit, and faces are found as before. Faces found on the pixels before
 * encoding differ on borderline faces: on the face bench those pixels show a stranger's face cut by
 * the frame that two selfies of someone else then match (2 wrong-person photos, nearest wrong
 * 0.561 -> 0.545; issue 17, docs/benchmarks.md). So faces still read this JPEG.
 */
const ANALYSED_JPEG = { quality: 82, mozjpeg: true, optimiseScans: false } as const;

/**
 * Previews only people see (the thumbnail, a watermarked large preview): progressive JPEG with
 * mozjpeg's quantisation table and optimised Huffman coding, without trellis quantisation and scan
 * search, a few quality steps lower: on the race and group fixtures the bytes and fidelity of
 * mozjpeg's encoder at 82 / 76 (large 181 kB, PSNR 37.98 vs 37.94 dB, SSIM 0.9732 vs 0.9737;
 * thumbnail +1.5% bytes, PSNR 33.11 vs 32.78 dB) for a fifth of the CPU
 * (scripts/bench/probe/preview-jpeg.cjs).
 */
const SEEN_JPEG = { large: { quality: 79, progressive: true, quantisationTable: 3, optimiseCoding: true }, thumbnail: { quality: 71, progressive: true, quantisationTable: 3, optimiseCoding: true } } as const;

function encode(image: Sharp, options: JpegOptions): Promise<RenderedImage> {
  return image
    .jpeg(options)
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ buffer: data, width: info.width, height: info.height }));
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** The event's watermark drawn on `pixels`, bottom right, semi-transparent, sized to the image. */
function watermarked(pixels: RgbPixels, text: string): Sharp {
  const { width, height } = pixels;
  const size = Math.max(14, Math.round(Math.min(width, height) * 0.045));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <text x="${width - size}" y="${height - size}" text-anchor="end" font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold"
      font-size="${size}" fill="white" fill-opacity="0.6" stroke="black" stroke-opacity="0.35" stroke-width="${Math.max(1, size / 18)}">${escapeXml(text)}</text></svg>`;
  return fromPixels(pixels).composite([{ input: Buffer.from(svg), top: 0, left: 0 }]);
}

export interface Previews {
  /** 1600 px long edge, with the event's watermark when it has one. */
  large: RenderedImage;
  thumbnail: RenderedImage;
  /** The large preview without watermark, the JPEG faces are found on (`large` itself without a watermark). */
  plainLarge: RenderedImage;
  /** The large preview's pixels before the watermark and JPEG encoding. */
  largePixels: RgbPixels;
}

/**
 * The large preview (1600 px long edge, with the event's watermark when it has one) and the
 * thumbnail (400 px), JPEG, made from a photo's decoded pixels (decodePhoto: orientation applied,
 * no metadata kept); the large preview without watermark and its pixels, for analysis.
 */
export async function renderPreviewsOf(pixels: RgbPixels, watermarkText?: string | null): Promise<Previews> {
  const largePixels = await boundedPixels(pixels, PREVIEW_SIZES.large);
  const text = watermarkText?.trim();
  const [plainLarge, marked, thumbnail] = await Promise.all([
    encode(fromPixels(largePixels), ANALYSED_JPEG),
    text ? encode(watermarked(largePixels, text), SEEN_JPEG.large) : null,
    encode(fromPixels(largePixels).resize(PREVIEW_SIZES.thumbnail, PREVIEW_SIZES.thumbnail, { fit: 'inside', withoutEnlargement: true }), SEEN_JPEG.thumbnail),
  ]);
  return { large: marked ?? plainLarge, thumbnail, plainLarge, largePixels };
}

/** renderPreviewsOf an encoded original. */
export async function renderPreviews(original: Buffer, watermarkText?: string | null): Promise<Previews> {
  return renderPreviewsOf(await decodePhoto(original, PREVIEW_SIZES.large), watermarkText);
}

/** Dimensions as displayed (EXIF orientation applied). */
export async function displayedSize(original: Buffer): Promise<{ width: number; height: number }> {
  const meta = await openImage(original).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  return { width: (swap ? meta.height : meta.width) ?? 0, height: (swap ? meta.width : meta.height) ?? 0 };
}
