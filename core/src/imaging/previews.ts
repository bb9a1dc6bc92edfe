import sharp from 'sharp';

export interface RenderedImage {
  buffer: Buffer;
  width: number;
  height: number;
}

export const PREVIEW_SIZES = { large: 1600, thumbnail: 400 } as const;

async function render(input: Buffer, maxEdge: number, quality: number): Promise<RenderedImage> {
  const { data, info } = await sharp(input, { failOn: 'error' })
    .rotate() // apply EXIF orientation
    .resize({ width: maxEdge, height: maxEdge, fit: 'inside', withoutEnlargement: true })
    .jpeg({ quality, mozjpeg: true })
    .toBuffer({ resolveWithObject: true });
  return { buffer: data, width: info.width, height: info.height };
}

/** The large preview (1600 px long edge) and the thumbnail (400 px), JPEG, orientation applied, metadata stripped. */
export async function renderPreviews(original: Buffer): Promise<{ large: RenderedImage; thumbnail: RenderedImage }> {
  const [large, thumbnail] = await Promise.all([render(original, PREVIEW_SIZES.large, 82), render(original, PREVIEW_SIZES.thumbnail, 76)]);
  return { large, thumbnail };
}

/** Dimensions as displayed (EXIF orientation applied). */
export async function displayedSize(original: Buffer): Promise<{ width: number; height: number }> {
  const meta = await sharp(original).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  return { width: (swap ? meta.height : meta.width) ?? 0, height: (swap ? meta.width : meta.height) ?? 0 };
}
