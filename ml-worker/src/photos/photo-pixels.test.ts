import sharp from 'sharp';
import { boundedPixels, decodePhoto, withAlpha } from './photo-pixels';

/** Raw pixels with detail (resizing a flat colour proves nothing). */
function detail(width: number, height: number) {
  const noise = Buffer.alloc(width * height * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
  return sharp(noise, { raw: { width, height, channels: 3 } });
}

const largestDifference = (a: Buffer, b: Buffer) =>
  a.reduce((max, v, i) => Math.max(max, Math.abs(v - b[i])), a.length === b.length ? 0 : Infinity);

/** A photo with detail (resizing a flat colour proves nothing), stored 900x600 and shown upright 600x900 (EXIF orientation 6). */
async function turnedPhoto(): Promise<Buffer> {
  return detail(900, 600).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
}

describe('decodePhoto', () => {
  it("gives the pixels sharp gives each step decoding the original itself: oriented, bounded, RGB; with alpha, ensureAlpha's", async () => {
    const original = await turnedPhoto();
    const pixels = await decodePhoto(original, 2560);
    expect([pixels.width, pixels.height]).toEqual([600, 900]);
    expect(pixels.data.equals(await sharp(original).rotate().raw().toBuffer())).toBe(true);
    expect(
      Buffer.from(withAlpha(pixels).data).equals(await sharp(original).rotate().ensureAlpha().raw().toBuffer()),
    ).toBe(true);
    // Resized from the decode: the pixels of a resize of the original, to within 2 levels (sharp resizes
    // a photo turned by 90 degrees before turning it).
    const smaller = await boundedPixels(pixels, 600);
    expect([smaller.width, smaller.height]).toEqual([400, 600]);
    expect(
      largestDifference(
        smaller.data,
        await sharp(original).rotate().resize(600, 600, { fit: 'inside' }).raw().toBuffer(),
      ),
    ).toBeLessThanOrEqual(2);
    expect(await boundedPixels(pixels, 900)).toBe(pixels);
  });

  it('resized from the decode, the same pixels bit for bit as resized from the original, when upright or upside down and shrunk by less than half', async () => {
    // From half on, the JPEG decoder shrinks on load and the pixels differ a little.
    for (const orientation of [1, 3]) {
      const original = await detail(900, 600).jpeg({ quality: 90 }).withMetadata({ orientation }).toBuffer();
      const smaller = await boundedPixels(await decodePhoto(original, 2560), 600);
      expect(
        smaller.data.equals(await sharp(original).rotate().resize(600, 600, { fit: 'inside' }).raw().toBuffer()),
      ).toBe(true);
    }
  });

  it('refuses a truncated image', async () => {
    const whole = await sharp({ create: { width: 800, height: 600, channels: 3, background: '#3a6' } })
      .jpeg()
      .toBuffer();
    await expect(decodePhoto(whole.subarray(0, Math.round(whole.length * 0.6)), 2560)).rejects.toThrow();
  });
});
