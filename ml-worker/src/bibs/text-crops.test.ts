import { DEFAULT_TORSO_RULES, torsoRegion } from './torso-gate';
import {
  cropRgba,
  DEFAULT_TEXT_CROP_OPTIONS,
  planSecondLook,
  planTextCrops,
  readOnce,
  touchesInnerEdge,
  otherViews,
} from './text-crops';

const W = 2000;
const H = 1000;
/** A person box (relative to the image) `h` of the image's height tall, 0.35 of that wide. */
const person = (x: number, y: number, h: number, score = 0.6) => ({
  x,
  y,
  width: (0.35 * h * H) / W,
  height: h,
  score,
});

describe('planTextCrops', () => {
  it('is one crop per person: the torso region with a margin, in whole pixels', () => {
    const p = person(0.4, 0.2, 0.5);
    const [crop, ...others] = planTextCrops([p], W, H);
    expect(others).toEqual([]);
    const t = torsoRegion(p, DEFAULT_TORSO_RULES, W / H);
    // the whole torso region the gate accepts bib centres in, and not the legs
    expect(crop.x).toBeLessThanOrEqual(t.x0 * W);
    expect(crop.x + crop.width).toBeGreaterThanOrEqual(t.x1 * W);
    expect(crop.y).toBeLessThanOrEqual(t.y0 * H);
    expect(crop.y + crop.height).toBeGreaterThanOrEqual(t.y1 * H);
    expect(crop.y + crop.height).toBeLessThan((p.y + p.height) * H);
    expect(Number.isInteger(crop.x) && Number.isInteger(crop.width)).toBe(true);
  });

  it('scales a crop so that the bib its person implies is textHeight pixels for the detector', () => {
    const { textHeight, bibShare } = DEFAULT_TEXT_CROP_OPTIONS;
    // a near runner 900 px tall: bib text ~31 px at full resolution, read smaller
    const [near] = planTextCrops([person(0.1, 0.05, 0.9)], W, H);
    expect(near.scale).toBeCloseTo(textHeight / (bibShare * 900), 5);
    expect(near.scale).toBeLessThan(1);
    // a far runner 300 px tall (a bib ~10 px high): enlarged so that the detector finds it
    const [far] = planTextCrops([person(0.6, 0.3, 0.3)], W, H);
    expect(far.scale).toBeCloseTo(textHeight / (bibShare * 300), 5);
    expect(far.scale).toBeGreaterThan(2);
  });

  it('on a 640 px photo, enlarges a runner whose bib is 20 px high for the detector, within maxScale', () => {
    const runner = { x: 0.4, y: 0.1, width: 0.2, height: 0.85, score: 0.8 }; // 363 px tall on 640x427
    const [crop] = planTextCrops([runner], 640, 427);
    expect(crop.scale).toBeGreaterThan(1.5);
    expect(crop.scale).toBeLessThanOrEqual(DEFAULT_TEXT_CROP_OPTIONS.maxScale);
  });

  it('enlarges someone under half the tallest person only until their implied bib is behindTextHeight pixels', () => {
    const { behindTextHeight, bibShare } = DEFAULT_TEXT_CROP_OPTIONS;
    // a runner behind, 300 px tall beside one of 900: a bib of ~10 px, brought to 15 px for the detector
    const crops = planTextCrops([person(0.05, 0.05, 0.9), person(0.6, 0.3, 0.3)], W, H);
    expect(crops.map((c) => c.scale)).toEqual([expect.any(Number), expect.closeTo(15 / (bibShare * 300), 5)]);
    expect(behindTextHeight).toBe(15);
    // without behindTextHeight, held at the photo's own pixels
    const held = planTextCrops([person(0.05, 0.05, 0.9), person(0.6, 0.3, 0.3)], W, H, undefined, {
      ...DEFAULT_TEXT_CROP_OPTIONS,
      behindTextHeight: 0,
    });
    expect(held[1].scale).toBe(1);
  });

  it('with behindTextHeight, gives a runner behind the same bib height on a small photo as on a large one', () => {
    const options = { ...DEFAULT_TEXT_CROP_OPTIONS, behindTextHeight: 15 };
    // the same scene at 1000 and 2000 px high: a runner in front and one behind at 0.3 of their height
    const scene = [person(0.05, 0.05, 0.6), person(0.6, 0.3, 0.18)];
    const behindHeight = (height: number) => {
      const crops = planTextCrops(scene, W, height, undefined, options);
      const behind = crops.find((c) => c.x > 0.5 * W)!;
      return behind.scale * options.bibShare * 0.18 * height; // the implied bib as the detector sees it
    };
    expect(behindHeight(1000)).toBeCloseTo(15, 5);
    expect(behindHeight(2000)).toBeCloseTo(15, 5);
    // never read smaller than without the rule: on a 4000 px photo (an implied bib of 25 px) it stays at 1x
    expect(planTextCrops(scene, W, 4000, undefined, options).find((c) => c.x > 0.5 * W)!.scale).toBe(1);
  });

  describe('the tallest person, who says who stands behind', () => {
    // a box cut by the photo's bottom edge, 0.6 of the photo wide: as one person, 3.1 photo heights tall
    const wideCutBox = { x: 0.1, y: 0.17, width: 0.6, height: 0.83, score: 0.7 };
    const beside = person(0.15, 0.35, 0.5); // a runner half the photo's height, inside that box
    const runnerScale = (crops: ReturnType<typeof planTextCrops>) => crops.find((c) => c.width < 0.2 * W)?.scale;

    it('is not a box spanning people side by side: the runner it holds counts as in front, and is enlarged', () => {
      const { textHeight, bibShare, maxScale } = DEFAULT_TEXT_CROP_OPTIONS;
      const crops = planTextCrops([wideCutBox, beside], W, H);
      expect(runnerScale(crops)).toBeCloseTo(Math.min(maxScale, textHeight / (bibShare * 0.5 * H)), 5);
    });

    it('is a runner filling the frame, cut by its bottom edge, as tall as their width implies', () => {
      // the same box holding nobody of half its width: the runner at 0.15 of its implied height stays behind at 1x
      const far = person(0.75, 0.3, 0.45);
      expect(planTextCrops([wideCutBox, far], W, H).find((c) => c.x >= 0.7 * W)?.scale).toBe(1);
      // a box found twice (the same width) is one person, not a group
      const twice = { ...wideCutBox, x: 0.11, width: 0.58 };
      expect(planTextCrops([wideCutBox, twice, far], W, H).find((c) => c.x >= 0.7 * W)?.scale).toBe(1);
    });
  });

  it('tells the crops of the people in front (the later looks look there only) from those of the people behind', () => {
    const frontOf = (people: ReturnType<typeof person>[]) =>
      planTextCrops(people, W, H)
        .sort((a, b) => a.x - b.x)
        .map((c) => c.front);
    // a runner of 900 px and one of 300 px behind; one of 500 px is at least half the tallest's height
    expect(frontOf([person(0.05, 0.05, 0.9), person(0.6, 0.3, 0.3)])).toEqual([true, false]);
    expect(frontOf([person(0.05, 0.05, 0.9), person(0.6, 0.3, 0.5)])).toEqual([true, true]);
    // a crop merged from a runner in front and one behind holds someone in front
    const behind = person(0.405, 0.06, 0.44);
    expect(frontOf([person(0.05, 0.05, 0.9), behind])).toEqual([true, false]);
    expect(frontOf([person(0.05, 0.05, 0.9), person(0.4, 0.05, 0.5), behind])).toEqual([true, true]);
    // nobody found: the whole frame is looked at as a close-up's
    expect(frontOf([])).toEqual([true]);
  });

  it('keeps scales within the bounds', () => {
    const options = { ...DEFAULT_TEXT_CROP_OPTIONS, minScale: 0.5, maxScale: 1.5 };
    expect(planTextCrops([person(0.1, 0, 1)], W, 10_000, undefined, options)[0].scale).toBe(0.5);
    expect(planTextCrops([person(0.1, 0.5, 0.1)], W, H, undefined, options)[0].scale).toBe(1.5);
  });

  it('merges overlapping crops when the merged one costs the detector no more (the same runner found twice)', () => {
    const crops = planTextCrops([person(0.4, 0.2, 0.5), person(0.405, 0.21, 0.49)], W, H);
    expect(crops).toHaveLength(1);
  });

  it('keeps overlapping crops apart when merging would cost more (a far runner beside a near one)', () => {
    const near = person(0.1, 0.05, 0.9);
    const far = person(0.1 + near.width * 0.9, 0.3, 0.25);
    const crops = planTextCrops([near, far], W, H);
    expect(crops).toHaveLength(2);
    const [a, b] = crops;
    expect(a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height).toBe(true);
    // the far runner, behind: enlarged only until their implied bib is behindTextHeight pixels
    const { behindTextHeight, bibShare } = DEFAULT_TEXT_CROP_OPTIONS;
    expect(crops.map((c) => c.scale).sort()).toEqual([
      expect.any(Number),
      expect.closeTo(behindTextHeight / (bibShare * 250), 5),
    ]);
  });

  it('keeps apart people apart', () => {
    expect(planTextCrops([person(0.05, 0.2, 0.5), person(0.7, 0.2, 0.5)], W, H)).toHaveLength(2);
  });

  it('skips people the gate would not trust; with nobody, the whole frame at the scale of a close-up bib', () => {
    const crops = planTextCrops([person(0.4, 0.2, 0.5, 0.05)], W, H);
    expect(crops).toHaveLength(1);
    const [whole] = crops;
    expect(whole).toMatchObject({ x: 0, y: 0, width: W, height: H });
    // the gate then accepts only numbers >= closeUpHeight of the photo: 80 px here, read at textHeight
    expect(whole.scale).toBeCloseTo(DEFAULT_TEXT_CROP_OPTIONS.textHeight / (DEFAULT_TORSO_RULES.closeUpHeight * H), 5);
  });

  it('stays inside the image for a person cut by its edges', () => {
    const [crop] = planTextCrops([{ x: -0.05, y: 0.3, width: 0.2, height: 0.75, score: 0.9 }], W, H);
    expect(crop.x).toBe(0);
    expect(crop.y + crop.height).toBeLessThanOrEqual(H);
  });
});

describe('planSecondLook (people on whom the first pass read no number)', () => {
  const { maxScale } = DEFAULT_TEXT_CROP_OPTIONS;
  const near = person(0.05, 0.05, 0.9);
  const far = person(0.6, 0.3, 0.3); // 300 px tall, behind someone three times as tall: read under maxScale at first
  const nobodyRead = () => false;

  it('looks again at the largest scale at a far person the first pass did not enlarge', () => {
    expect(planTextCrops([near, far], W, H).find((c) => c.x > 1000)?.scale).toBeLessThan(maxScale);
    const looks = planSecondLook([near, far], nobodyRead, W, H);
    expect(looks).toHaveLength(1);
    expect(looks[0].scale).toBe(maxScale);
    const t = torsoRegion(far, DEFAULT_TORSO_RULES, W / H);
    expect(looks[0].x).toBeLessThanOrEqual(t.x0 * W);
    expect(looks[0].x + looks[0].width).toBeGreaterThanOrEqual(t.x1 * W);
  });

  it('does not look again at someone a number was read on, nor at a near person whose bib was seen at full size', () => {
    expect(planSecondLook([near, far], (p) => p === far, W, H)).toEqual([]);
    expect(planSecondLook([near], nobodyRead, W, H)).toEqual([]);
  });

  it('does not look again at a person already read at the largest scale, nor at one too small to carry a bib', () => {
    const small = person(0.6, 0.3, 0.2); // alone, in front: enlarged at once to the largest scale
    expect(planTextCrops([small], W, H)[0].scale).toBe(maxScale);
    expect(planSecondLook([small], nobodyRead, W, H)).toEqual([]);
    const tiny = person(0.8, 0.5, 0.05); // 50 px tall: a bib of 2-4 px
    expect(planSecondLook([near, tiny], nobodyRead, W, H)).toEqual([]);
  });
});

/** A text line's four corners, clockwise from the top left. */
const box = (x0: number, y0: number, x1: number, y1: number) => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
];
// Two crops side by side overlapping on x 400-600 of a 1000x1000 image.
const left = { x: 0, y: 0, width: 600, height: 800 };
const right = { x: 400, y: 0, width: 600, height: 800 };

describe('touchesInnerEdge', () => {
  const crop = { x: 100, y: 100, width: 200, height: 200 };

  it('is true for a box cut by an edge that lies inside the image', () => {
    expect(touchesInnerEdge(box(100, 150, 160, 180), crop, 1000, 1000)).toBe(true);
    expect(touchesInnerEdge(box(150, 150, 300, 180), crop, 1000, 1000)).toBe(true);
    expect(touchesInnerEdge(box(150, 260, 200, 300), crop, 1000, 1000)).toBe(true);
  });

  it('is false for a box inside the crop, or at an edge of the image itself', () => {
    expect(touchesInnerEdge(box(120, 150, 280, 180), crop, 1000, 1000)).toBe(false);
    const atImageEdge = { x: 0, y: 0, width: 200, height: 200 };
    expect(touchesInnerEdge(box(0, 0, 50, 30), atImageEdge, 1000, 1000)).toBe(false);
    expect(touchesInnerEdge(box(150, 150, 200, 200), atImageEdge, 200, 200)).toBe(false);
  });
});

describe('cropRgba', () => {
  it('copies the rows of the rectangle', () => {
    const data = Uint8Array.from({ length: 4 * 4 * 4 }, (_, i) => i);
    const crop = cropRgba({ data, width: 4, height: 4 }, { x: 1, y: 2, width: 2, height: 1 });
    expect([...crop.data]).toEqual([...data.slice((2 * 4 + 1) * 4, (2 * 4 + 3) * 4)]);
  });
});

describe('readOnce (text found in two overlapping crops is read once)', () => {
  it('keeps one of two boxes of the same text from different crops: the one farther from an inner crop edge', () => {
    const inLeft = { corners: box(420, 300, 540, 340), crop: left, id: 'left' }; // 60 px from the left crop's inner edge (600)
    const inRight = { corners: box(421, 301, 541, 341), crop: right, id: 'right' }; // 21 px from the right crop's inner edge (400)
    expect(readOnce([inLeft, inRight], 1000, 1000).map((f) => f.id)).toEqual(['left']);
    expect(readOnce([inRight, inLeft], 1000, 1000).map((f) => f.id)).toEqual(['left']);
  });

  it('prefers the larger box when both are as far from their inner edges, then the first found', () => {
    const a = { corners: box(450, 300, 550, 340), crop: left, id: 'a' };
    const b = { corners: box(450, 300, 550, 342), crop: right, id: 'b' };
    expect(readOnce([a, b], 1000, 1000).map((f) => f.id)).toEqual(['b']);
    const c = { corners: box(450, 300, 550, 340), crop: right, id: 'c' };
    expect(readOnce([a, c], 1000, 1000).map((f) => f.id)).toEqual(['a']);
  });

  it('keeps boxes that do not overlap enough, and overlapping boxes of one crop (two lines the detector told apart)', () => {
    const a = { corners: box(420, 300, 540, 340), crop: left, id: 'a' };
    const shifted = { corners: box(500, 300, 620, 340), crop: right, id: 'shifted' }; // IoU 0.25
    const sameCrop = { corners: box(425, 305, 545, 345), crop: left, id: 'sameCrop' };
    expect(readOnce([a, shifted, sameCrop], 1000, 1000).map((f) => f.id)).toEqual(['a', 'shifted', 'sameCrop']);
  });
});

describe("otherViews (the other crops' views of a kept line)", () => {
  const middle = { x: 430, y: 0, width: 570, height: 800 };

  it('finds the lines of other crops overlapping the kept one by more than half their union', () => {
    const kept = { corners: box(460, 300, 550, 340), crop: left, id: 'kept' };
    const longer = { corners: box(440, 300, 555, 340), crop: right, id: 'longer' };
    const third = { corners: box(462, 301, 552, 341), crop: middle, id: 'third' };
    const found = [kept, longer, third];
    expect(readOnce(found, 1000, 1000).map((f) => f.id)).toEqual(['kept']);
    expect(otherViews(found, kept).map((f) => f.id)).toEqual(['longer', 'third']);
  });

  it("leaves the kept line's own crop and lines of other text", () => {
    const kept = { corners: box(460, 300, 560, 340), crop: left, id: 'kept' };
    const sameCrop = { corners: box(440, 300, 560, 340), crop: left, id: 'sameCrop' };
    const apart = { corners: box(520, 300, 620, 340), crop: right, id: 'apart' }; // IoU 0.25
    expect(otherViews([kept, sameCrop, apart], kept)).toEqual([]);
  });
});
