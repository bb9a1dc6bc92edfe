// node scripts/bench/probe/preview-jpeg.cjs: JPEG settings for the previews, on the large preview's pixels (1600 px)
// and the thumbnail's (400 px) of the race and group fixtures: encode CPU, bytes, and how faithful the decoded
// JPEG is to the pixels (PSNR and SSIM of luma over 8x8 blocks).
const fs = require('node:fs'); const path = require('node:path');
const sharp = require('sharp');
const { decodePhoto, boundedPixels } = require('@em/core/media');
sharp.concurrency(1);
const fixtures = path.resolve(__dirname, '../../../../shared/fixtures');
const SETTINGS = {
  'mozjpeg (trellis, scan search)': { mozjpeg: true },
  'mozjpeg without scan search': { mozjpeg: true, optimiseScans: false },
  'progressive, table 3, optimised Huffman (no trellis)': { progressive: true, quantisationTable: 3, optimiseCoding: true },
  'baseline libjpeg table, optimised Huffman': { optimiseCoding: true },
};
// The setting without trellis at lower qualities (PREVIEW_QUALITY_SHIFT=-3: large q79, thumbnail q73), to compare at equal bytes.
const shift = Number(process.env.PREVIEW_QUALITY_SHIFT ?? 0);
const luma = (d, n, ch) => { const y = new Float64Array(n); for (let i = 0; i < n; i++) y[i] = 0.299 * d[i * ch] + 0.587 * d[i * ch + 1] + 0.114 * d[i * ch + 2]; return y; };
function fidelity(a, b, w, h) {
  const ya = luma(a, w * h, 3), yb = luma(b, w * h, 3);
  let se = 0; for (let i = 0; i < ya.length; i++) se += (ya[i] - yb[i]) ** 2;
  const psnr = 10 * Math.log10(255 ** 2 / (se / ya.length));
  const c1 = (0.01 * 255) ** 2, c2 = (0.03 * 255) ** 2; let ssim = 0, blocks = 0;
  for (let by = 0; by + 8 <= h; by += 8) for (let bx = 0; bx + 8 <= w; bx += 8) {
    let ma = 0, mb = 0; for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) { const i = (by + y) * w + bx + x; ma += ya[i]; mb += yb[i]; }
    ma /= 64; mb /= 64; let va = 0, vb = 0, cov = 0;
    for (let y = 0; y < 8; y++) for (let x = 0; x < 8; x++) { const i = (by + y) * w + bx + x; va += (ya[i] - ma) ** 2; vb += (yb[i] - mb) ** 2; cov += (ya[i] - ma) * (yb[i] - mb); }
    va /= 63; vb /= 63; cov /= 63;
    ssim += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2)); blocks++;
  }
  return { psnr, ssim: ssim / blocks };
}
(async () => {
  const images = [];
  for (const dir of ['bibs', 'faces/group']) for (const f of fs.readdirSync(path.join(fixtures, dir)).filter((n) => /\.jpe?g$/i.test(n)).sort()) {
    const large = await boundedPixels(await decodePhoto(fs.readFileSync(path.join(fixtures, dir, f)), 2560), 1600);
    const { data, info } = await sharp(large.data, { raw: { width: large.width, height: large.height, channels: 3 } }).resize(400, 400, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
    images.push({ large, thumb: { data, width: info.width, height: info.height } });
  }
  for (const [label, setting] of Object.entries(shift ? { [Object.keys(SETTINGS)[2]]: Object.values(SETTINGS)[2] } : SETTINGS)) {
    for (const [kind, quality] of [['large', 82 + shift], ['thumb', 76 + shift]]) {
      let cpu = 0, bytes = 0, psnr = 0, ssim = 0;
      for (const image of images) {
        const p = image[kind];
        const encode = () => sharp(p.data, { raw: { width: p.width, height: p.height, channels: 3 } }).jpeg({ quality, ...setting }).toBuffer();
        await encode();
        const c0 = process.cpuUsage();
        const jpeg = await encode();
        const c = process.cpuUsage(c0);
        cpu += (c.user + c.system) / 1000;
        bytes += jpeg.length;
        const back = await sharp(jpeg).raw().toBuffer();
        const f = fidelity(p.data, back, p.width, p.height);
        psnr += f.psnr; ssim += f.ssim;
      }
      const n = images.length;
      console.log(`${label}, ${kind} q${quality}: ${(cpu / n).toFixed(1)} ms CPU, ${(bytes / n / 1024).toFixed(1)} kB, PSNR ${(psnr / n).toFixed(2)} dB, SSIM ${(ssim / n).toFixed(4)} (mean of ${n})`);
    }
  }
})();
