import sharp from 'sharp';

export type HardKind = 'occluded-low' | 'occluded-side' | 'turned' | 'small' | 'lowlight';

/** A photo made from a fixture crop (`source`) so that the face is harder to find and to match. */
export interface HardPhoto {
  kind: HardKind;
  person: string;
  source: string;
  image: Buffer;
}

const BACKGROUND = { r: 110, g: 110, b: 110 };
const black = (width: number, height: number) => ({
  create: { width, height, channels: 3 as const, background: { r: 0, g: 0, b: 0 } },
});

async function onCanvas(face: Buffer, width: number, height: number, left: number, top: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: BACKGROUND } })
    .composite([{ input: face, left, top }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * The harder face set (the misses on unseen photos are partial, occluded, turned and small faces): each crop, scaled to 200 px, becomes five photos: the lower 35% blacked out (a mask, a
 * hand), the left 30% blacked out (someone in front), squeezed to 70% width and tilted 15 degrees
 * (a head turned towards 3/4 profile foreshortens so), 90 px in a 1920x1080 frame, and at 30% of the
 * light.
 */
export async function hardFaceSet(crops: Array<{ person: string; name: string; image: Buffer }>): Promise<HardPhoto[]> {
  const out: HardPhoto[] = [];
  for (const crop of crops) {
    const face = await sharp(crop.image).removeAlpha().toColourspace('srgb').resize(200, 200).png().toBuffer();
    const add = (kind: HardKind, image: Buffer) => out.push({ kind, person: crop.person, source: crop.name, image });
    add(
      'occluded-low',
      await onCanvas(
        await sharp(face)
          .composite([{ input: black(200, 70), left: 0, top: 130 }])
          .png()
          .toBuffer(),
        640,
        480,
        220,
        140,
      ),
    );
    add(
      'occluded-side',
      await onCanvas(
        await sharp(face)
          .composite([{ input: black(60, 200), left: 0, top: 0 }])
          .png()
          .toBuffer(),
        640,
        480,
        220,
        140,
      ),
    );
    const squeezed = await sharp(face).resize(140, 200, { fit: 'fill' }).png().toBuffer();
    add(
      'turned',
      await onCanvas(await sharp(squeezed).rotate(15, { background: BACKGROUND }).png().toBuffer(), 640, 480, 200, 120),
    );
    add('small', await onCanvas(await sharp(face).resize(90, 90).png().toBuffer(), 1920, 1080, 1200, 400));
    add('lowlight', await onCanvas(await sharp(face).linear(0.3, 4).png().toBuffer(), 640, 480, 220, 140));
  }
  return out;
}
