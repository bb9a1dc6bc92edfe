import sharp from 'sharp';
import { openImage } from './pixel-limit';

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

async function render(input: Buffer, maxEdge: number, quality: number): Promise<RenderedImage> {
  const { data, info } = await openImage(input, { failOn: 'error' })
    .rotate() // apply EXIF orientation
    .resize({ width: maxEdge, height: maxEdge, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality, ...PREVIEW_JPEG })
    .toBuffer({ resolveWithObject: true });
  return { buffer: data, width: info.width, height: info.height };
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/** The event's watermark, bottom right, semi-transparent, sized to the image. */
async function watermark(image: RenderedImage, text: string): Promise<RenderedImage> {
  const size = Math.max(14, Math.round(Math.min(image.width, image.height) * 0.045));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${image.width}" height="${image.height}">
    <text x="${image.width - size}" y="${image.height - size}" text-anchor="end" font-family="DejaVu Sans, Arial, sans-serif" font-weight="bold"
      font-size="${size}" fill="white" fill-opacity="0.6" stroke="black" stroke-opacity="0.35" stroke-width="${Math.max(1, size / 18)}">${escapeXml(text)}</text></svg>`;
  const { data, info } = await sharp(image.buffer)
    .composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
    .jpeg({ quality: 82, ...PREVIEW_JPEG })
    .toBuffer({ resolveWithObject: true });
  return { buffer: data, width: info.width, height: info.height };
}

/**
 * The large preview (1600 px long edge, with the event's watermark when it has one), the
 * thumbnail (400 px), and the large preview without watermark; JPEG, orientation applied, metadata
 * stripped.
 */
export async function renderPreviews(
  original: Buffer,
  watermarkText?: string | null,
): Promise<{ large: RenderedImage; thumbnail: RenderedImage; /** the large preview before the watermark, for analysis */ plainLarge: RenderedImage }> {
  const [plainLarge, thumbnail] = await Promise.all([render(original, PREVIEW_SIZES.large, 82), render(original, PREVIEW_SIZES.thumbnail, 76)]);
  const large = watermarkText?.trim() ? await watermark(plainLarge, watermarkText.trim()) : plainLarge;
  return { large, thumbnail, plainLarge };
}

/** Dimensions as displayed (EXIF orientation applied). */
export async function displayedSize(original: Buffer): Promise<{ width: number; height: number }> {
  const meta = await openImage(original).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  return { width: (swap ? meta.height : meta.width) ?? 0, height: (swap ? meta.width : meta.height) ?? 0 };
}
