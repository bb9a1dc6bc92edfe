import type { Sharp } from 'sharp';
import { openImage } from './pixel-limit';
import { boundedPixels, decodePhoto, fromPixels, RgbPixels } from './photo-pixels';

export interface RenderedImage {
  buffer: Buffer;
  width: number;
  height: number;
}

export const PREVIEW_SIZES = { large: 1600, thumbnail: 400 } as const;

/**
 * mozjpeg's encoder (trellis quantisation, scan search). A faster setting (progressive, mozjpeg's
 * table, no trellis: 157 -> 30 ms per large preview, +10% bytes) was tried and reverted: faces are
 * found on this JPEG, and its pixels turned a borderline stranger on a race photo into a wrong match
 * for a selfie on the face bench (issue 17). Analysing faces on the pixels before encoding is the
 * way to take that CPU back.
 */
const PREVIEW_JPEG = { mozjpeg: true } as const;

function encode(image: Sharp, quality: number): Promise<RenderedImage> {
  return image
    .jpeg({ quality, ...PREVIEW_JPEG })
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
  /** The large preview's pixels before the watermark and JPEG encoding: what faces are analysed on. */
  largePixels: RgbPixels;
}

/**
 * The large preview (1600 px long edge, with the event's watermark when it has one) and the
 * thumbnail (400 px), JPEG, made from a photo's decoded pixels (decodePhoto: orientation applied,
 * no metadata kept), and the large preview's pixels before encoding.
 */
export async function renderPreviewsOf(pixels: RgbPixels, watermarkText?: string | null): Promise<Previews> {
  const largePixels = await boundedPixels(pixels, PREVIEW_SIZES.large);
  const text = watermarkText?.trim();
  const [large, thumbnail] = await Promise.all([
    encode(text ? watermarked(largePixels, text) : fromPixels(largePixels), 82),
    encode(fromPixels(largePixels).resize(PREVIEW_SIZES.thumbnail, PREVIEW_SIZES.thumbnail, { fit: 'inside', withoutEnlargement: true }), 76),
  ]);
  return { large, thumbnail, largePixels };
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
