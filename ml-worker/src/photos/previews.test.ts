import sharp from 'sharp';
import { renderPreviews } from './previews';

/** Raw pixels with detail (resizing a flat colour proves nothing). */
function detail(width: number, height: number) {
  const noise = Buffer.alloc(width * height * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919) % 251;
  return sharp(noise, { raw: { width, height, channels: 3 } });
}

/** A photo with detail, stored 900x600 and shown upright 600x900 (EXIF orientation 6). */
async function turnedPhoto(): Promise<Buffer> {
  return detail(900, 600).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
}

describe('renderPreviews', () => {
  it("encodes the large preview faces are found on to the pixels of mozjpeg's full encoder at 82, bit for bit (without its scan search)", async () => {
    const { plainLarge, largePixels: p } = await renderPreviews(
      await detail(800, 500).jpeg({ quality: 90 }).toBuffer(),
    );
    const mozjpeg = await sharp(p.data, { raw: { width: p.width, height: p.height, channels: 3 } })
      .jpeg({ quality: 82, mozjpeg: true })
      .toBuffer();
    expect(plainLarge.buffer.equals(mozjpeg)).toBe(false);
    expect((await sharp(plainLarge.buffer).raw().toBuffer()).equals(await sharp(mozjpeg).raw().toBuffer())).toBe(true);
  });

  it('renders the previews of those pixels, oriented', async () => {
    const { large, thumbnail, largePixels } = await renderPreviews(await turnedPhoto());
    expect([large.width, large.height, thumbnail.width, thumbnail.height]).toEqual([600, 900, 267, 400]);
    expect([largePixels.width, largePixels.height]).toEqual([600, 900]);
    expect((await sharp(large.buffer).metadata()).orientation).toBeUndefined();
  });

  it('draws the watermark on the large preview only, keeping its size', async () => {
    const original = await sharp({ create: { width: 2400, height: 1600, channels: 3, background: '#404040' } })
      .jpeg()
      .toBuffer();
    const marked = await renderPreviews(original, 'Demo City 10K');
    expect([marked.large.width, marked.large.height, marked.thumbnail.width]).toEqual([1600, 1067, 400]);
    const corner = async (image: ReturnType<typeof sharp>) =>
      (await image.extract({ left: 1100, top: 960, width: 480, height: 90 }).stats()).channels[0].max;
    expect(await corner(sharp(marked.large.buffer))).toBeGreaterThan(150);
    // The pixels faces are analysed on have no watermark.
    const { data, width, height } = marked.largePixels;
    expect([width, height]).toEqual([1600, 1067]);
    expect(await corner(sharp(data, { raw: { width, height, channels: 3 } }))).toBeLessThan(90);
    expect(await corner(sharp((await renderPreviews(original)).large.buffer))).toBeLessThan(90);
  });
});
