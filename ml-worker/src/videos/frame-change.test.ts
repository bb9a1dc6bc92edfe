import { blockMeans, samePicture } from './frame-change';

const W = 320;
const H = 180;
/** A grey frame with a bright square (a face) at x, y of `side` pixels, and noise of +-`noise`. */
function frame(opts: { face?: { x: number; y: number; side: number }; noise?: number; seed?: number } = {}): Buffer {
  const rgb = Buffer.alloc(W * H * 3);
  let seed = opts.seed ?? 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const f = opts.face;
      const inFace = f && x >= f.x && x < f.x + f.side && y >= f.y && y < f.y + f.side;
      const value = (inFace ? 190 : 110) + Math.round((random() * 2 - 1) * (opts.noise ?? 0));
      rgb.fill(value, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  }
  return rgb;
}

describe('frame change', () => {
  it('the same still shot with encoder-like noise is the same picture', () => {
    expect(
      samePicture(blockMeans(frame({ noise: 3, seed: 1 }), W, H), blockMeans(frame({ noise: 3, seed: 7 }), W, H)),
    ).toBe(true);
  });

  it('a 40 px face coming, or moving by a quarter of its width, is a change', () => {
    const empty = blockMeans(frame(), W, H);
    const face = blockMeans(frame({ face: { x: 100, y: 60, side: 40 } }), W, H);
    expect(samePicture(empty, face)).toBe(false);
    expect(samePicture(face, blockMeans(frame({ face: { x: 110, y: 60, side: 40 } }), W, H))).toBe(false);
  });

  it('a buffer that is not the frame size, or no frame, is never the same picture', () => {
    expect(blockMeans(Buffer.alloc(4), W, H)).toBeNull();
    expect(samePicture(null, blockMeans(frame(), W, H))).toBe(false);
    expect(samePicture(blockMeans(frame(), W, H), blockMeans(frame(), W, H / 2))).toBe(false);
  });
});
