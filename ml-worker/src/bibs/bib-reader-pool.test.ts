import path from 'node:path';
import sharp from 'sharp';
import { decodePhoto } from '../photos/photo-pixels';
import { OCR_MAX_SIDE } from './bib-reader';
import { BibReaderPool } from './bib-reader-pool';

jest.setTimeout(240_000);

/** A runner's torso with a number: a bib (black on a white patch) or a jersey print (white on red). */
function torso(number: string, print: 'bib' | 'jersey'): Promise<Buffer> {
  const [patch, ink] = print === 'bib' ? ['white', 'black'] : ['#b01020', 'white'];
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><rect width="1200" height="900" fill="#5b8c6e"/>
    <rect x="400" y="250" width="400" height="450" rx="40" fill="#b01020"/>
    <rect x="440" y="380" width="320" height="200" fill="${patch}"/>
    <text x="600" y="530" font-size="130" font-family="DejaVu Sans, sans-serif" font-weight="bold" text-anchor="middle" fill="${ink}">${number}</text></svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

/**
 * A bib pasted on a real photo of three people (a demo photo shipped in @vladmandic/face-api):
 * on the chest of the woman on the right, or on the wall above the others' heads.
 */
async function bibOnPhoto(number: string, where: 'torso' | 'wall'): Promise<Buffer> {
  const photo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
  const bib = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120"><rect width="200" height="120" fill="white"/>
    <text x="100" y="88" font-size="80" font-family="DejaVu Sans, sans-serif" font-weight="bold" text-anchor="middle" fill="black">${number}</text></svg>`;
  const [left, top] = where === 'torso' ? [1300, 690] : [60, 90];
  return sharp(photo)
    .composite([{ input: Buffer.from(bib), left, top }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

/**
 * The demo photo with a bib on the right woman's chest, shrunk to `width` px wide after pasting, the
 * bib's digits `digitHeight` px high there; `cutAt` (share of the width) crops the photo's right side.
 */
async function smallPhoto(number: string, width: number, digitHeight: number, cutAt = 1): Promise<Buffer> {
  const photo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample1.jpg');
  const shrink = width / 1920;
  const bibWidth = Math.round(((number.length * 0.62 + 0.5) * (digitHeight / 0.72)) / shrink);
  const bibHeight = Math.round((digitHeight * 1.6) / shrink);
  const font = Math.round(digitHeight / 0.72 / shrink);
  const bib = `<svg xmlns="http://www.w3.org/2000/svg" width="${bibWidth}" height="${bibHeight}"><rect width="${bibWidth}" height="${bibHeight}" fill="white"/>
    <text x="${bibWidth / 2}" y="${Math.round(bibHeight / 2 + font * 0.36)}" font-size="${font}" font-family="DejaVu Sans, sans-serif" font-weight="bold" text-anchor="middle" fill="black">${number}</text></svg>`;
  const pasted = await sharp(photo)
    .composite([{ input: Buffer.from(bib), left: 1480 - Math.round(bibWidth / 2), top: 700 }])
    .toBuffer();
  const cropped = await sharp(pasted)
    .extract({ left: 0, top: 0, width: Math.round(1920 * cutAt), height: 1280 })
    .toBuffer();
  return sharp(cropped)
    .resize(Math.round(width * cutAt))
    .jpeg({ quality: 92 })
    .toBuffer();
}

describe('BibReaderPool (OCR on a worker thread, the real models)', () => {
  // Tests run from src/; the thread runs the compiled script (turbo builds before tests).
  const pool = new BibReaderPool(1, {}, path.join(__dirname, '..', '..', 'dist', 'bibs', 'bib-thread.js'));
  afterAll(() => pool.close());

  it('reads the number of a bib, not the same number printed light on a jersey', async () => {
    expect([...(await pool.read(await torso('4817', 'bib'))).keys()]).toEqual(['4817']);
    expect([...(await pool.read(await torso('4817', 'jersey'))).keys()]).toEqual([]);
  });

  it('fails the read of a file that is not an image, and the thread goes on reading', async () => {
    await expect(pool.read(Buffer.from('not an image at all'))).rejects.toThrow();
    expect([...(await pool.read(await torso('253', 'bib'))).keys()]).toEqual(['253']);
  });

  it("reads a number on a person's torso and refuses the same print on a wall (the torso gate)", async () => {
    expect([...(await pool.read(await bibOnPhoto('4817', 'torso'))).keys()]).toEqual(['4817']);
    expect([...(await pool.read(await bibOnPhoto('4817', 'wall'))).keys()]).toEqual([]);
  });

  it('hands back the people it found with the bibs (the face step looks at their heads)', async () => {
    const { bibs, people } = await pool.readPhoto(await bibOnPhoto('4817', 'torso'));
    expect([...bibs.keys()]).toEqual(['4817']);
    // The three people of the demo photo, boxes relative to it.
    expect(people!.filter((p) => p.score >= 0.3).length).toBeGreaterThanOrEqual(3);
    for (const p of people!)
      expect(p.x >= -0.01 && p.y >= -0.01 && p.x + p.width <= 1.01 && p.y + p.height <= 1.01).toBe(true);
  });

  it("reads a photo already decoded (the photo job's one decode) as it reads the encoded photo: same bibs, same people", async () => {
    const photo = await bibOnPhoto('4817', 'torso');
    const encoded = await pool.readPhoto(photo);
    const decoded = await pool.readPixels(await decodePhoto(photo, OCR_MAX_SIDE));
    expect([...decoded.bibs]).toEqual([...encoded.bibs]);
    expect(decoded.people).toEqual(encoded.people);
  });

  it('reads a sharp bib 20 px high on a 640 px photo (the runner is enlarged for the text detector)', async () => {
    expect([...(await pool.read(await smallPhoto('4817', 640, 20))).keys()]).toEqual(['4817']);
  });

  it('reads a 6-digit bib whole, with its box on the photo', async () => {
    const { bibs, reads } = await pool.readPhoto(await smallPhoto('102648', 1280, 40));
    expect([...bibs.keys()]).toEqual(['102648']);
    const [read] = reads;
    expect(read).toMatchObject({ bib: '102648', partial: false });
    expect(read.box!.x).toBeGreaterThan(0.6);
    expect(read.box!.x + read.box!.width).toBeLessThan(0.9);
  });

  it('keeps a bib cut by the frame edge as a partial read, never stored as a shorter number', async () => {
    const { bibs, reads } = await pool.readPhoto(await smallPhoto('48173', 1280, 40, 0.775));
    expect(bibs.size).toBe(0);
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) {
      expect(read.partial).toBe(true);
      expect('48173'.startsWith(read.bib)).toBe(true);
    }
  });

  it('without the gate, reads the print on the wall too (what the gate refuses)', async () => {
    const ungated = new BibReaderPool(
      1,
      { torsoGate: false },
      path.join(__dirname, '..', '..', 'dist', 'bibs', 'bib-thread.js'),
    );
    try {
      expect([...(await ungated.read(await bibOnPhoto('4817', 'wall'))).keys()]).toEqual(['4817']);
      // Without the gate no person detector runs: the face step gets nobody.
      expect((await ungated.readPhoto(await bibOnPhoto('4817', 'wall'))).people).toBeNull();
    } finally {
      await ungated.close();
    }
  });
});
