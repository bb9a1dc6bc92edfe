import type { JpegOptions, Sharp } from 'sharp';
import { openImage } from '@em/core/media';
import { boundedPixels, decodePhoto, fromPixels, RgbPixels } from './photo-pixels';

export interface RenderedImage {
  buffer: Buffer;
  width: number;
  height: number;
}

export const PREVIEW_SIZES = { large: 1600, thumbnail: 400 } as const;

/**
 * The JPEG faces are found on (the large preview without watermark): mozjpeg at 82 without scan
 * search, which decodes to the same pixels bit for bit. Faces read this JPEG, not the pixels before
 * encoding: those found a stranger's face that selfies matched (docs/benchmarks.md: faces on the preview's pixels).
 */
const ANALYSED_JPEG = { quality: 82, mozjpeg: true, optimiseScans: false } as const;

/**
 * Previews only people see (the thumbnail, a watermarked large preview): progressive JPEG without
 * trellis quantisation or scan search, a few quality steps lower: mozjpeg's bytes and fidelity at a
 * fifth of the CPU (docs/benchmarks.md, preview JPEG settings).
 */
const SEEN_JPEG = {
  large: { quality: 79, progressive: true, quantisationTable: 3, optimiseCoding: true },
  thumbnail: { quality: 71, progressive: true, quantisationTable: 3, optimiseCoding: true },
} as const;

function encode(image: Sharp, options: JpegOptions): Promise<RenderedImage> {
  return image
    .jpeg(options)
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ buffer: data, width: info.width, height: info.height }));
}

const escapeXml = (s: string) =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

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
    encode(
      fromPixels(largePixels).resize(PREVIEW_SIZES.thumbnail, PREVIEW_SIZES.thumbnail, {
        fit: 'inside',
        withoutEnlargement: true,
      }),
      SEEN_JPEG.thumbnail,
    ),
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
