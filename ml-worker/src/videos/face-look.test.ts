import { faceLook, sameLook } from './face-look';

const W = 320;
const H = 180;
/** A grey frame with a face-like pattern (a light oval, two dark eyes, a mouth) in a `side` px square at x, y; `light` added to every value, `noise` +-. */
function frame(
  opts: { x?: number; y?: number; side?: number; light?: number; noise?: number; seed?: number; eyes?: number } = {},
): Buffer {
  const { x: fx = 100, y: fy = 40, side = 80, light = 0, noise = 0, eyes = 0.3 } = opts;
  let seed = opts.seed ?? 1;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const rgb = Buffer.alloc(W * H * 3);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const u = (x - fx) / side;
      const v = (y - fy) / side;
      let value = 110;
      if ((u - 0.5) ** 2 / 0.16 + (v - 0.5) ** 2 / 0.22 < 1) value = 180 - 40 * v;
      if (Math.hypot(u - eyes, v - 0.4) < 0.07 || Math.hypot(u - (1 - eyes), v - 0.4) < 0.07) value = 40;
      if (Math.abs(u - 0.5) < 0.15 && Math.abs(v - 0.72) < 0.03) value = 70;
      value = Math.max(0, Math.min(255, Math.round(value + light + (random() * 2 - 1) * noise)));
      rgb.fill(value, (y * W + x) * 3, (y * W + x) * 3 + 3);
    }
  }
  return rgb;
}
const box = (x = 100, y = 40, side = 80) => ({ x: x / W, y: y / H, width: side / W, height: side / H });

describe('face look', () => {
  const before = faceLook(frame(), W, H, box());

  it('the same face under encoder-like noise and 10 levels more light looks the same', () => {
    expect(sameLook(before, faceLook(frame({ noise: 3, seed: 5, light: 10 }), W, H, box()))).toBe(true);
  });

  it('a face that moved in its box by a tenth of its width, or changed (eyes elsewhere: turned), looks different', () => {
    expect(sameLook(before, faceLook(frame({ x: 108 }), W, H, box()))).toBe(false);
    expect(sameLook(before, faceLook(frame({ eyes: 0.2 }), W, H, box()))).toBe(false);
  });

  it('the same face seen 20% larger looks different (a closer view may describe better)', () => {
    expect(sameLook(before, faceLook(frame({ side: 96 }), W, H, box(100, 40, 96)))).toBe(false);
  });

  it('a buffer that is not the frame size, or an empty box, has no look, and no look is ever the same', () => {
    expect(faceLook(Buffer.alloc(4), W, H, box())).toBeNull();
    expect(faceLook(frame(), W, H, { x: 2, y: 0, width: 0.1, height: 0.1 })).toBeNull();
    expect(sameLook(null, before)).toBe(false);
    expect(sameLook(before, undefined)).toBe(false);
  });
});
