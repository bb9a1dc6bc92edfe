/** The long side a selfie is sent at: above the search's own 1280 px working size, so the search sees what it saw before. */
export const SELFIE_LONG_SIDE = 1600;
/** Files this small are sent as chosen: nothing to gain on the way. */
export const SMALL_SELFIE_BYTES = 400_000;

/** The size a picture of `width` x `height` is sent at: its long side at most SELFIE_LONG_SIDE. */
export function selfieSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, SELFIE_LONG_SIDE / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** The formats the face search's contract names (JPEG, PNG): a picture in another is sent redrawn as a JPEG. */
const CONTRACT_TYPES = new Set(['image/jpeg', 'image/png']);

/**
 * What the page sends for a chosen selfie: a phone photo (3-6 MB, seconds on a crowded mobile network)
 * redrawn upright at SELFIE_LONG_SIDE as a JPEG, without its metadata (location included), and so is a
 * picture in any other format the browser reads (WebP, HEIC on Safari); the file as chosen when it is a
 * small JPEG or PNG already, when the browser cannot read it, or when the redraw is no smaller.
 */
export async function selfieToSend(file: File): Promise<Blob> {
  const contractType = CONTRACT_TYPES.has(file.type);
  if ((contractType && file.size <= SMALL_SELFIE_BYTES) || typeof createImageBitmap !== 'function') return file;
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
  } catch {
    return file;
  }
  try {
    const { width, height } = selfieSize(bitmap.width, bitmap.height);
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d');
    if (!context) return file;
    context.imageSmoothingQuality = 'high';
    context.drawImage(bitmap, 0, 0, width, height);
    const redrawn = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.92));
    return redrawn && (redrawn.size < file.size || !contractType) ? redrawn : file;
  } finally {
    bitmap.close();
  }
}
