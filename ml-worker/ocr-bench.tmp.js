// Temporary measurement (not committed): BIB OCR time and peak RSS on a large drawn photo.
const sharp = require('sharp');
const { BibReader } = require('./dist/bibs/bib-reader');
(async () => {
  const side = Number(process.argv[2] || 4000);
  const scale = side / 1400;
  const w = side, h = side;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="#4a6d8c"/>
    <rect x="${480 * scale}" y="${(h - 300 * scale) / 2}" width="${440 * scale}" height="${300 * scale}" fill="white"/>
    <text x="${w / 2}" y="${h / 2 + 60 * scale}" font-size="${170 * scale}" font-family="DejaVu Sans, sans-serif" font-weight="bold" text-anchor="middle" fill="black">4817</text></svg>`;
  const img = await sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
  const reader = new BibReader();
  await reader.load();
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
  const base = process.memoryUsage().rss;
  const t = Date.now();
  const bibs = await reader.read(img);
  clearInterval(timer);
  console.log(JSON.stringify({ side, seconds: (Date.now() - t) / 1000, baseMB: Math.round(base / 1e6), peakMB: Math.round(peak / 1e6), bibs: [...bibs.keys()] }));
})();
