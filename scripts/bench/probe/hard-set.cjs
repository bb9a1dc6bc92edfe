// A harder face set made from the fixture crops: occluded, turned, small, low light; each face on a larger canvas.
const sharp = require('sharp');
const BG = { r: 110, g: 110, b: 110 };
async function onCanvas(face, cw, ch, x, y) {
  return sharp({ create: { width: cw, height: ch, channels: 3, background: BG } }).composite([{ input: face, left: x, top: y }]).jpeg({ quality: 90 }).toBuffer();
}
async function hardSet(crops) {
  const out = [];
  for (const c of crops) {
    const rgb = await sharp(c.buf).removeAlpha().toColourspace('srgb').resize(200, 200).png().toBuffer();
    const add = async (kind, buf) => out.push({ kind, person: c.person, source: c.name, name: `${kind}:${c.name}`, buf });
    // occluded: the lower 35% (mask, hand) or one side (someone in front) blacked out
    const low = await sharp(rgb).composite([{ input: { create: { width: 200, height: 70, channels: 3, background: { r: 0, g: 0, b: 0 } } }, left: 0, top: 130 }]).png().toBuffer();
    await add('occluded-low', await onCanvas(low, 640, 480, 220, 140));
    const side = await sharp(rgb).composite([{ input: { create: { width: 60, height: 200, channels: 3, background: { r: 0, g: 0, b: 0 } } }, left: 0, top: 0 }]).png().toBuffer();
    await add('occluded-side', await onCanvas(side, 640, 480, 220, 140));
    // turned: squeezed to 70% width (a head turned ~45 degrees foreshortens so) and tilted 15 degrees
    const turned = await sharp(await sharp(rgb).resize(140, 200, { fit: 'fill' }).png().toBuffer()).rotate(15, { background: BG }).png().toBuffer();
    await add('turned', await onCanvas(turned, 640, 480, 200, 120));
    // small: the crop at 90 px (a face of ~60 px) in a 1920x1080 frame
    const small = await sharp(rgb).resize(90, 90).png().toBuffer();
    await add('small', await onCanvas(small, 1920, 1080, 1200, 400));
    // low light: 35% brightness, gamma, noise-free
    const dark = await sharp(rgb).linear(0.3, 4).gamma(2.2, 2.2).png().toBuffer();
    await add('lowlight', await onCanvas(dark, 640, 480, 220, 140));
  }
  return out;
}
module.exports = { hardSet };
