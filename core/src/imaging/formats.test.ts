import sharp from 'sharp';
import { CORRUPT_IMAGE, jpegEnd, probeImage } from './formats';

const photo = (format: 'jpeg' | 'png') => {
  const image = sharp({ create: { width: 320, height: 200, channels: 3, background: '#468' } }).composite([
    { input: Buffer.from('<svg width="320" height="200"><circle cx="90" cy="90" r="60"/></svg>') },
  ]);
  return (format === 'jpeg' ? image.jpeg() : image.png()).toBuffer();
};

describe('probeImage', () => {
  it('accepts a whole JPEG and PNG with their format and size', async () => {
    expect(await probeImage(await photo('jpeg'))).toMatchObject({ ok: true, mime: 'image/jpeg', width: 320 });
    expect(await probeImage(await photo('png'))).toMatchObject({ ok: true, mime: 'image/png', height: 200 });
  });

  it('refuses a truncated JPEG or PNG whose header is intact', async () => {
    for (const file of [await photo('jpeg'), await photo('png')])
      expect(await probeImage(file.subarray(0, Math.floor(file.length * 0.6)))).toEqual({
        ok: false,
        reason: CORRUPT_IMAGE,
      });
  });

  it('accepts a JPEG with data after its end marker (a camera trailer)', async () => {
    const file = Buffer.concat([await photo('jpeg'), Buffer.from('trailer written by a phone camera')]);
    expect(await probeImage(file)).toMatchObject({ ok: true, format: 'jpeg' });
  });

  it('finds the end of a JPEG by its segments and scans, before a trailer, and none in a truncated one', async () => {
    for (const image of [
      await photo('jpeg'),
      await sharp(await photo('jpeg'))
        .jpeg({ progressive: true })
        .toBuffer(),
    ]) {
      expect(jpegEnd(image)).toBe(image.length);
      const trailer = Buffer.from([0xff, 0xd9, 0x00, 0xff, 0xd8, 0x12]);
      expect(jpegEnd(Buffer.concat([image, trailer]))).toBe(image.length);
      // Cut anywhere, even inside the trailer's lookalike of an end marker: no end before the cut.
      for (const share of [0.05, 0.5, 0.9, 0.999])
        expect(jpegEnd(image.subarray(0, Math.floor(image.length * share)))).toBe(-1);
      expect(jpegEnd(image.subarray(0, image.length - 1))).toBe(-1);
    }
    expect(jpegEnd(Buffer.from('just some text'))).toBe(-1);
  });

  it('refuses a truncated JPEG followed by other bytes (no end marker before them)', async () => {
    const file = await photo('jpeg');
    const cut = file.subarray(0, Math.floor(file.length * 0.6));
    expect(await probeImage(Buffer.concat([cut, Buffer.from('trailer')]))).toEqual({
      ok: false,
      reason: CORRUPT_IMAGE,
    });
  });

  it('refuses what is not an image, an empty file and an unsupported format', async () => {
    expect(await probeImage(Buffer.from('just some text'))).toMatchObject({ ok: false, reason: /not an image/ });
    expect(await probeImage(Buffer.alloc(0))).toEqual({ ok: false, reason: 'empty file' });
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
      .gif()
      .toBuffer();
    expect(await probeImage(gif)).toMatchObject({ ok: false, reason: /unsupported format gif/ });
  });

  it('with { decode: false } reads the header only: a truncated file passes to the decoder that follows', async () => {
    const file = await photo('jpeg');
    expect(await probeImage(file.subarray(0, Math.floor(file.length * 0.6)), { decode: false })).toMatchObject({
      ok: true,
    });
  });
});
