// Shared by the turned-heads probes: an audience frame (1280x720) of fixture face crops, some turned as the harder set turns them.
const path = require('node:path');
const fs = require('node:fs');
const sharp = require('sharp');

const DIR = path.resolve(__dirname, '../../../../shared/fixtures/faces');
const BG = { r: 110, g: 110, b: 110 };

/** The frame as a sharp pipeline (callers choose raw or png); `faces`: [{ crop: 'howard/2.png', turned: true }]. */
async function composeFrame(faces, scale) {
  const side = Math.round(200 * scale);
  const layers = [];
  for (const [i, f] of faces.entries()) {
    const face = await sharp(fs.readFileSync(path.join(DIR, f.crop))).removeAlpha().toColourspace('srgb').resize(side, side).png().toBuffer();
    const input = f.turned ? await sharp(await sharp(face).resize(Math.round(side * 0.7), side, { fit: 'fill' }).png().toBuffer()).rotate(15, { background: BG }).png().toBuffer() : face;
    layers.push({ input, left: 120 + i * 380, top: 200 + (i % 2) * 60 });
  }
  return sharp({ create: { width: 1280, height: 720, channels: 3, background: BG } }).composite(layers);
}

const dist = (a, b) => {
  let s = 0;
  for (let i = 0; i < 128; i++) s += (a[i] - b[i]) ** 2;
  return Math.sqrt(s).toFixed(3);
};

/** Two turned heads and a frontal face, and the selfies (other crops) of the three. */
const TURNED_SHOT = [{ crop: 'howard/2.png', turned: true }, { crop: 'bernadette/2.png', turned: true }, { crop: 'penny/1.png', turned: false }];
async function turnedSelfies(faces) {
  const selfies = {};
  for (const n of ['howard/1.png', 'bernadette/4.png', 'penny/3.png']) selfies[n] = (await faces.embedSelfie(fs.readFileSync(path.join(DIR, n)))).descriptor;
  return selfies;
}

module.exports = { DIR, BG, composeFrame, dist, TURNED_SHOT, turnedSelfies };
