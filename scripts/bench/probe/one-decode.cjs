// node scripts/bench/probe/one-decode.cjs: the photo job's one decode (decodePhoto at OCR_MAX_SIDE) against what
// each step decoded for itself up to stop 19, per photo: the BIB reader's RGBA pixels, the large preview's
// pixels and its JPEG (mozjpeg), the thumbnail's pixels. "same" is bit for bit; else the largest difference.
const fs = require('node:fs'); const path = require('node:path');
const sharp = require('sharp');
const { decodePhoto, boundedPixels, withAlpha } = require('@em/core/media');
const OCR_MAX_SIDE = 2560;
const fixtures = path.resolve(__dirname, '../../../../shared/fixtures');
const compare = (a, b) => {
  if (a.length !== b.length) return `size ${a.length} vs ${b.length}`;
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs(a[i] - b[i]));
  return max === 0 ? 'same' : `max diff ${max}`;
};
const raw = (p) => sharp(p.data, { raw: { width: p.width, height: p.height, channels: 3 } });
async function synthetic(width, height, orientation) {
  const noise = Buffer.alloc(width * height * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919 + (i >> 12)) % 251;
  return sharp(noise, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).withMetadata({ orientation }).toBuffer();
}
(async () => {
  const photos = [];
  for (const dir of ['bibs', 'faces/group']) for (const f of fs.readdirSync(path.join(fixtures, dir)).filter((n) => /\.jpe?g$/i.test(n)).sort()) photos.push([`${dir}/${f}`, fs.readFileSync(path.join(fixtures, dir, f))]);
  photos.push(['synthetic 6000x4000', await synthetic(6000, 4000, 1)], ['synthetic 2048x1365 EXIF 6', await synthetic(2048, 1365, 6)], ['synthetic 3000x2000 EXIF 6', await synthetic(3000, 2000, 6)]);
  for (const [name, original] of photos) {
    const pixels = await decodePhoto(original, OCR_MAX_SIDE);
    const bibBefore = await sharp(original).rotate().resize(OCR_MAX_SIDE, OCR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true }).ensureAlpha().raw().toBuffer();
    const large = await boundedPixels(pixels, 1600);
    const largeBefore = sharp(original, { failOn: 'error' }).rotate().resize(1600, 1600, { fit: 'inside', withoutEnlargement: true });
    const jpeg = await raw(large).jpeg({ quality: 82, mozjpeg: true }).toBuffer();
    const jpegBefore = await largeBefore.clone().jpeg({ quality: 82, mozjpeg: true }).toBuffer();
    const thumb = await raw(large).resize(400, 400, { fit: 'inside', withoutEnlargement: true }).raw().toBuffer();
    const thumbBefore = await sharp(original, { failOn: 'error' }).rotate().resize(400, 400, { fit: 'inside', withoutEnlargement: true }).raw().toBuffer();
    console.log(`${name}: BIB pixels ${compare(withAlpha(pixels).data, bibBefore)}; large preview pixels ${compare(large.data, await largeBefore.raw().toBuffer())}; large JPEG ${jpeg.equals(jpegBefore) ? 'same' : 'differs'}; thumbnail pixels ${compare(thumb, thumbBefore)}`);
  }
})();
