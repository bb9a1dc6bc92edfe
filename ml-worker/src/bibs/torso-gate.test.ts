import {
  besideTheirBib,
  DEFAULT_TORSO_RULES,
  onATorso,
  PersonBox,
  placedLikeABib,
  printOnTheirShirt,
  torsoRegion,
} from './torso-gate';

/** A 2000x1000 photo; a runner standing at x 0.4-0.5, y 0.2-0.8 (relative). */
const runner: PersonBox = { x: 0.4, y: 0.2, width: 0.1, height: 0.6, score: 0.6 };
/** A text box of 40x20 px centred on (cx, cy) relative to the photo. */
const textAt = (cx: number, cy: number, width = 40) => ({
  x: cx * 2000 - width / 2,
  y: cy * 1000 - 10,
  width,
  height: 20,
  imageWidth: 2000,
  imageHeight: 1000,
});

describe('onATorso', () => {
  it('keeps a number on the chest or the belly of a runner', () => {
    expect(onATorso(textAt(0.45, 0.4), [runner])).toBe(true);
    expect(onATorso(textAt(0.45, 0.6), [runner])).toBe(true);
  });

  it('refuses a number away from every person (a sign above the heads, a plate on the road)', () => {
    expect(onATorso(textAt(0.2, 0.05), [runner])).toBe(false);
    expect(onATorso(textAt(0.8, 0.9), [runner])).toBe(false);
    expect(onATorso(textAt(0.45, 0.4), [])).toBe(false);
  });

  it('refuses a number beside the torso, on the head or on the shins', () => {
    expect(onATorso(textAt(0.403, 0.4), [runner])).toBe(false); // left edge of the box: an arm, a neighbour
    expect(onATorso(textAt(0.45, 0.22), [runner])).toBe(false); // the head
    expect(onATorso(textAt(0.45, 0.75), [runner])).toBe(false); // the shins
  });

  it('keeps the tolerance at the torso edges', () => {
    expect(onATorso(textAt(0.415, 0.28), [runner])).toBe(true); // 0.15 across, 0.13 down: a bib pinned high and aside
    expect(onATorso(textAt(0.485, 0.66), [runner])).toBe(true); // 0.85 across, 0.77 down: a bib on the shorts
  });

  it('refuses a text wider than the person it would be on (a banner behind a runner)', () => {
    expect(onATorso(textAt(0.45, 0.4, 400), [runner])).toBe(false);
  });

  it('refuses a number too tall to be printed on that person (a sign in front of a spectator far behind)', () => {
    // The runner is 600 px tall: a 40 px number is 7% of it (a bib), a 90 px one 15%.
    expect(onATorso({ ...textAt(0.45, 0.4), height: 40 }, [runner])).toBe(true);
    expect(onATorso({ ...textAt(0.45, 0.4), height: 90 }, [runner])).toBe(false);
  });

  it("caps a number's height on the height a wide person's width implies (heightCapFromWidth)", () => {
    // A runner filling the frame, seen from the knees up: box 0.5 x 0.8 of a 3:2 photo, a 50 px number (0.104 of
    // the height, 0.13 of the box's): a bib of a close-up. The thin runner keeps the cap of their own box.
    const close: PersonBox = { x: 0.25, y: 0.1, width: 0.5, height: 0.8, score: 0.6 };
    const number = { x: 310, y: 215, width: 110, height: 50, imageWidth: 720, imageHeight: 480 };
    const boxCap = { ...DEFAULT_TORSO_RULES, heightCapFromWidth: false };
    expect(onATorso(number, [close], boxCap)).toBe(false);
    expect(onATorso(number, [close])).toBe(true);
    expect(onATorso({ ...textAt(0.45, 0.4), height: 90 }, [runner])).toBe(false);
  });

  it("refuses a number on a person's head even where the torso's tolerance reaches (a banner behind the head)", () => {
    // The runner is 600 px tall from y 200: the head ends near y 275 (an eighth); the torso's tolerance starts at 248.
    expect(onATorso(textAt(0.45, 0.26), [runner])).toBe(false); // y 260: the head
    expect(onATorso(textAt(0.45, 0.26), [runner], { ...DEFAULT_TORSO_RULES, headShare: 0 })).toBe(true);
    expect(onATorso(textAt(0.45, 0.28), [runner])).toBe(true); // y 280: below the head
    // A person cut by the photo's top edge shows no head: a number high on their box is on the chest.
    const chestUp: PersonBox = { x: 0.4, y: 0, width: 0.1, height: 0.6, score: 0.6 };
    expect(onATorso(textAt(0.45, 0.06), [chestUp])).toBe(true);
  });

  it('ignores person boxes the detector is unsure of', () => {
    expect(onATorso(textAt(0.45, 0.4), [{ ...runner, score: 0.1 }])).toBe(false);
  });

  it('places the torso of a runner cut by the bottom edge on the height the runner would have', () => {
    // 0.2 wide on a 2:1 photo: a full runner would be 2.6 x 0.2 x 2 = 1.04 of the height; the box shows 0.5 of it.
    const halfRunner: PersonBox = { x: 0.4, y: 0.5, width: 0.2, height: 0.5, score: 0.7 };
    expect(torsoRegion(halfRunner, undefined, 2).y1).toBe(1);
    expect(onATorso(textAt(0.5, 0.95), [halfRunner])).toBe(true);
    expect(onATorso(textAt(0.5, 0.95), [{ ...halfRunner, height: 0.45 }])).toBe(false); // not cut: 0.95 is below its torso
    // A narrow box cut at the bottom (a runner seen whole but for the feet): the shins stay out.
    const tall: PersonBox = { x: 0.4, y: 0.3, width: 0.1, height: 0.7, score: 0.7 };
    expect(onATorso(textAt(0.45, 0.5), [tall])).toBe(true);
    expect(onATorso(textAt(0.45, 0.95), [tall])).toBe(false);
  });
});

describe('placedLikeABib', () => {
  it('is the torso gate when someone is on the photo', () => {
    expect(placedLikeABib(textAt(0.45, 0.4), [runner])).toBe(true);
    expect(placedLikeABib({ ...textAt(0.2, 0.5), height: 200 }, [runner])).toBe(false); // large, but on nobody
  });

  it('with nobody found, keeps a close-up number and refuses the small numbers of a scene', () => {
    expect(placedLikeABib({ ...textAt(0.5, 0.5), height: 120 }, [])).toBe(true); // 12% of the height
    expect(placedLikeABib(textAt(0.5, 0.5), [])).toBe(false); // 2%: a sign, a plate, a clock
    expect(placedLikeABib({ ...textAt(0.5, 0.5), height: 120 }, [{ ...runner, score: 0.1 }])).toBe(true); // unsure boxes are nobody
  });
});

describe('besideTheirBib: a runner wears one bib', () => {
  // RBNR set1_74 (480x720) as the person detector and the reader saw it: the front runner found twice, the runner
  // behind him (whose sheet shows past his red shirt, its first digit hidden) found only at 0.15.
  const front: PersonBox = { x: 0.2418, y: 0.0674, width: 0.466, height: 0.8986, score: 0.63 };
  const frontAgain: PersonBox = { x: 0.2513, y: 0.0455, width: 0.4688, height: 0.8878, score: 0.2 };
  const behind: PersonBox = { x: 0.5194, y: 0.1014, width: 0.2025, height: 0.679, score: 0.15 };
  const photo = { imageWidth: 480, imageHeight: 720 };
  const own = { x: 200, y: 320, width: 67, height: 25, ...photo }; // 341
  const past = { x: 281, y: 318, width: 30, height: 26, ...photo }; // 297

  it("marks the number beside a runner's own, more central bib (a runner found twice is one runner)", () => {
    expect(besideTheirBib([own, past], [front, frontAgain, behind])).toEqual([false, true]);
    expect(besideTheirBib([past, own], [front])).toEqual([true, false]);
  });

  it('leaves a lone number, and a number the torso of another runner found holds too', () => {
    expect(besideTheirBib([past], [front])).toEqual([false]);
    expect(besideTheirBib([own, past], [front, { ...behind, score: 0.5 }])).toEqual([false, false]);
  });

  it("leaves a number above the runner's bib: seen over a shoulder, clear of their body (bibs-long prom2's 263)", () => {
    const overShoulder = { ...past, y: 200 };
    expect(besideTheirBib([own, overShoulder], [front])).toEqual([false, false]);
  });

  it('leaves a number clearly larger than the central print: it is nearer, not behind (a shirt print in the middle)', () => {
    const print = { ...own, x: 220, width: 20, height: 12 };
    expect(besideTheirBib([print, past], [front])).toEqual([false, false]);
  });
});

describe("printOnTheirShirt: a runner's bib is the largest number they wear", () => {
  // RBNR set1_71 (480x720): a race shirt's "2000" on the chest above the runner's bib 560, and another runner to the side.
  const runner: PersonBox = { x: 0.2031, y: 0.1547, width: 0.4875, height: 0.8104, score: 0.76 };
  const other: PersonBox = { x: 0.7214, y: 0.1746, width: 0.112, height: 0.2712, score: 0.58 };
  const photo = { imageWidth: 480, imageHeight: 720 };
  const bib = { x: 163, y: 398, width: 64, height: 17, ...photo };
  const year = { x: 194, y: 294, width: 37, height: 4, ...photo };

  it('marks a number above or below the bib, within its width and at most half its height', () => {
    expect(printOnTheirShirt([bib, year], [runner, other])).toEqual([false, true]);
    expect(printOnTheirShirt([{ ...year, y: 430 }, bib], [runner])).toEqual([true, false]); // below it (shorts)
    // As tall as half the bib: still print; taller, a number of its own.
    expect(printOnTheirShirt([bib, { ...year, height: 8 }], [runner])).toEqual([false, true]);
    expect(printOnTheirShirt([bib, { ...year, height: 9 }], [runner])).toEqual([false, false]);
  });

  it("leaves a smaller number beside the bib: someone behind, past the body or over a shoulder (bibs-long prom2's 263)", () => {
    // prom2 (2048x1368): the front runner's bib 44535 and, up and to the left of it, the 263 of a runner behind.
    const front: PersonBox = { x: 0.5727, y: 0.0321, width: 0.2188, height: 0.935, score: 0.61 };
    const wide = { imageWidth: 2048, imageHeight: 1368 };
    const own = { x: 1383, y: 533, width: 141, height: 40, ...wide };
    const overShoulder = { x: 1207, y: 335, width: 36, height: 16, ...wide };
    expect(printOnTheirShirt([own, overShoulder], [front])).toEqual([false, false]);
    // On the bib's line: a number beside it (besideTheirBib weighs it), not print.
    expect(printOnTheirShirt([bib, { ...year, y: 400 }], [runner])).toEqual([false, false]);
  });

  it('leaves a number another runner holds too, and a lone number', () => {
    expect(printOnTheirShirt([bib, year], [runner, { ...runner, x: 0.25, width: 0.3, score: 0.5 }])).toEqual([
      false,
      false,
    ]);
    expect(printOnTheirShirt([year], [runner])).toEqual([false]);
  });
});
