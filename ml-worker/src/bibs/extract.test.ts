import {
  weakEnd,
  BoxGeometry,
  TextBox,
  cutNumber,
  DEFAULT_BIB_RULES,
  extractBibs,
  looksLikeBib,
  readBibs,
  readBibsWithUnsure,
} from './extract';

const box = (text: string, confidence = 0.99, geometry?: BoxGeometry) => ({ text, confidence, geometry });
/** Luminances around and inside a box, as measured by the ml-worker (surround median, 10th and 90th percentile inside). */
const printed = (surround: number, dark: number, light: number): BoxGeometry => ({
  x: 0,
  y: 0,
  width: 80,
  height: 30,
  imageWidth: 2048,
  imageHeight: 1365,
  surround,
  dark,
  light,
});

describe('extractBibs', () => {
  it('keeps whole 2-5 digit tokens read with confidence', () => {
    expect([...extractBibs([box('1432'), box('#552.'), box('N°77'), box('46')]).keys()].sort()).toEqual([
      '1432',
      '46',
      '552',
      '77',
    ]);
  });

  it('refuses plates, distances, dates, leading zeros, lone digits and numbers longer than a bib', () => {
    expect([
      ...extractBibs([box('DA-744-KJ'), box('10km'), box('2024-05-17'), box('0552'), box('7'), box('1234567')]).keys(),
    ]).toEqual([]);
  });

  it('reads 5- and 6-digit bibs whole', () => {
    expect([...extractBibs([box('10264'), box('123456')]).keys()].sort()).toEqual(['10264', '123456']);
  });

  it('drops unsure reads, and stores no number contained in a longer one of the same photo', () => {
    expect([...extractBibs([box('1480', 0.75), box('2791'), box('279', 0.99), box('27', 0.4)]).keys()]).toEqual([
      '2791',
    ]);
  });

  it('keeps the best confidence of a bib seen twice', () => {
    expect(extractBibs([box('365', 0.96), box('365', 0.995)]).get('365')).toBe(0.995);
  });

  // Lines read on the harder dev set (bench/bib-hard-set.ts): a bib's number has a line of its own.
  it('refuses a number that shares its line with words or other numbers (signs, plates, banners, phone numbers)', () => {
    const lines = [
      'Rue Grimaldi 14',
      '4821 KLM',
      'NYC 78',
      'MARATHON DE MONACO 2024',
      'RUN CLUB 1987',
      'TAXI 06 12 34 56 78',
      'TEL 493 50 128',
      '1432 PRCM',
    ];
    expect([...extractBibs(lines.map((t) => box(t))).keys()]).toEqual([]);
  });

  it('tolerates stray single characters and punctuation around the number', () => {
    expect([...extractBibs([box('l 2695 .'), box('N° 805')]).keys()].sort()).toEqual(['2695', '805']);
  });
});

describe('looksLikeBib: dark ink on a lighter patch', () => {
  // Measured on the fixture race photos: bibs in sun, in shade, and one whose strip around it falls on a red band.
  it.each([
    ['6291 in sun', printed(183, 36, 249)],
    ['1580 in shade', printed(48, 16, 122)],
    ['7738 next to the red band', printed(82, 61, 238)],
    ['552, a small far bib', printed(118, 66, 166)],
  ])('accepts %s', (_name, geometry) => {
    expect(looksLikeBib(box('2695', 0.99, geometry))).toBe(true);
  });

  // RBNR: red digits filling a small sheet, the strip around the number on a black shirt;
  // the ground between the strokes is the sheet.
  it('accepts a number filling its sheet, judged on the ground between its strokes', () => {
    expect(looksLikeBib(box('2605', 0.99, { ...printed(71, 119, 248), inner: 240 }))).toBe(true);
    // Without that ground the shirt is the patch.
    expect(looksLikeBib(box('2605', 0.99, printed(71, 119, 248)))).toBe(false);
  });

  // Print reflects a share of the light it is seen in: two stops under, a small far bib keeps a quarter of its range.
  it('accepts a bib in an under-exposed photo, its least range scaled by the light (printContrastOfLight)', () => {
    const underExposed = printed(30, 16, 42);
    expect(looksLikeBib(box('552', 0.99, underExposed))).toBe(true);
    expect(looksLikeBib(box('552', 0.99, underExposed), { ...DEFAULT_BIB_RULES, printContrastOfLight: false })).toBe(
      false,
    );
    expect(looksLikeBib(box('23', 0.99, printed(49, 47, 52)))).toBe(false);
  });

  it('refuses light digits on a dark ground, however they fill the box', () => {
    expect(looksLikeBib(box('23', 0.99, { ...printed(66, 65, 253), inner: 80 }))).toBe(false);
  });

  // Measured on the harder set: the darkest pixels of the box are the ground, as dark as around it.
  it.each([
    ['a jersey number, white on red', printed(66, 65, 253)],
    ['a house number, white on blue enamel', printed(62, 61, 254)],
    ['an LED race clock', printed(11, 10, 180)],
    ['a blurred patch without print', printed(49, 47, 52)],
  ])('refuses %s', (_name, geometry) => {
    expect(looksLikeBib(box('23', 0.99, geometry))).toBe(false);
  });
});

describe('readBibs: partial reads', () => {
  it("marks a number beside a runner's own bib partial (oneBibPerRunner: RBNR set1_74's 297 past the front runner)", () => {
    const photo = { imageWidth: 480, imageHeight: 720 };
    const boxes: TextBox[] = [
      {
        text: '341',
        confidence: 0.996,
        geometry: { x: 200, y: 320, width: 67, height: 25, ...photo, surround: 115, inner: 226, dark: 97, light: 252 },
      },
      {
        text: '297',
        confidence: 0.991,
        geometry: { x: 281, y: 318, width: 30, height: 26, ...photo, surround: 77, inner: 226, dark: 87, light: 251 },
      },
    ];
    const people = [
      { x: 0.2418, y: 0.0674, width: 0.466, height: 0.8986, score: 0.63 },
      { x: 0.5194, y: 0.1014, width: 0.2025, height: 0.679, score: 0.15 },
    ];
    const partial = (rules = DEFAULT_BIB_RULES) =>
      Object.fromEntries(readBibs(boxes, rules, people).map((r) => [r.bib, r.partial]));
    expect(partial()).toEqual({ '341': false, '297': true });
    expect([...extractBibs(boxes, DEFAULT_BIB_RULES, people).keys()]).toEqual(['341']);
    expect(partial({ ...DEFAULT_BIB_RULES, oneBibPerRunner: false })).toEqual({ '341': false, '297': false });
  });

  it("reads no number printed on a runner's shirt above their bib (shirtPrint: RBNR set1_71's 2000 over 560)", () => {
    const photo = { imageWidth: 480, imageHeight: 720 };
    const boxes: TextBox[] = [
      {
        text: '560',
        confidence: 0.999,
        geometry: { x: 163, y: 398, width: 64, height: 17, ...photo, surround: 215, inner: 234, dark: 156, light: 252 },
      },
      {
        text: '2000',
        confidence: 0.914,
        geometry: { x: 194, y: 294, width: 37, height: 4, ...photo, surround: 75, inner: 46, dark: 13, light: 192 },
      },
    ];
    const people = [{ x: 0.2031, y: 0.1547, width: 0.4875, height: 0.8104, score: 0.76 }];
    const read = (rules = DEFAULT_BIB_RULES) =>
      readBibs(boxes, rules, people).map((r) => `${r.bib}${r.partial ? '~' : ''}`);
    // Not even a partial read: a start list would complete it to a listed number.
    expect(read()).toEqual(['560']);
    expect(read({ ...DEFAULT_BIB_RULES, shirtPrint: false })).toEqual(['560', '2000']);
  });

  it("does not take a part of a number read on the photo for another bib beside a runner's own (941 and its 94)", () => {
    // RBNR set1_62 yellowed: the tilted look read 94 of the runner's 941, more central on the torso than 941's box.
    const photo = { imageWidth: 480, imageHeight: 720 };
    const boxes: TextBox[] = [
      {
        text: '941',
        confidence: 0.996,
        geometry: { x: 281, y: 318, width: 45, height: 26, ...photo, surround: 115, inner: 226, dark: 97, light: 252 },
      },
      {
        text: '94',
        confidence: 0.991,
        geometry: { x: 200, y: 320, width: 30, height: 25, ...photo, surround: 115, inner: 226, dark: 87, light: 251 },
      },
    ];
    const people = [{ x: 0.2418, y: 0.0674, width: 0.466, height: 0.8986, score: 0.63 }];
    expect(Object.fromEntries(readBibs(boxes, DEFAULT_BIB_RULES, people).map((r) => [r.bib, r.partial]))).toEqual({
      '941': false,
      '94': true,
    });
  });

  it('marks a number the tilted look alone found partial when it does not end in paper (tiltedEndsInPaper)', () => {
    // RBNR set1_08 under-exposed: the tilted look's box held "79" of the belt's 979, its first 9 beside it.
    const geometry = (endsInInk: boolean): BoxGeometry => ({ ...printed(200, 60, 220), x: 240, endsInInk });
    const boxes: TextBox[] = [
      { text: '79', confidence: 1, geometry: geometry(true), look: 'tilted' },
      { text: '979', confidence: 1, geometry: geometry(false), look: 'tilted' },
      { text: '46', confidence: 1, geometry: geometry(true) },
    ];
    const partial = (rules = DEFAULT_BIB_RULES) =>
      Object.fromEntries(readBibs(boxes, rules).map((r) => [r.bib, r.partial]));
    // 79 is also in 979 here; alone on its photo it is judged by its ends.
    expect(Object.fromEntries(readBibs([boxes[0]]).map((r) => [r.bib, r.partial]))).toEqual({ '79': true });
    expect(partial()).toEqual({ '79': true, '979': false, '46': false });
    expect(readBibs([boxes[0]], { ...DEFAULT_BIB_RULES, tiltedEndsInPaper: false })[0].partial).toBe(false);
  });

  /** A number's box at `x` (pixels) on a 640 x 480 photo, printed as a bib is, the ground reaching `left` / `right` box heights. */
  const at = (x: number, left = 0.3, right = 0.3): BoxGeometry => ({
    x,
    y: 200,
    width: 60,
    height: 20,
    imageWidth: 640,
    imageHeight: 480,
    surround: 220,
    dark: 20,
    light: 240,
    groundReach: { left, right, up: 0.2, down: 0.2 },
  });

  it('gives each read its box as shares of the photo', () => {
    const [read] = readBibs([box('4454', 0.99, at(320))]);
    expect(read).toEqual({
      bib: '4454',
      confidence: 0.99,
      box: { x: 0.5, y: 200 / 480, width: 60 / 640, height: 20 / 480 },
      partial: false,
      weakEnd: null,
    });
  });

  it('marks a number cut by the frame edge as partial, and does not store it as a bib', () => {
    const boxes = [box('445', 0.99, at(0)), box('254', 0.99, at(579))];
    expect(readBibs(boxes).map((r) => [r.bib, r.partial])).toEqual([
      ['445', true],
      ['254', true],
    ]);
    expect(extractBibs(boxes).size).toBe(0);
  });

  it('marks a number ending closer to the frame than half its height as cut (a digit may lie beyond)', () => {
    // 20 px high: 5 px from the right edge is too narrow a gap for a digit's absence to be known, 15 px is not.
    expect(cutNumber(at(640 - 60 - 5))).toBe(true);
    expect(cutNumber(at(5))).toBe(true);
    expect(cutNumber(at(640 - 60 - 15))).toBe(false);
    expect(cutNumber(at(15))).toBe(false);
    expect(cutNumber(at(5), { ...DEFAULT_BIB_RULES, frameMargin: 0.1 })).toBe(false); // within a tenth only
    expect(extractBibs([box('365', 0.99, at(640 - 60 - 5))]).size).toBe(0);
  });

  it('marks a number inside a longer one read on the photo as partial (a fragment seen again)', () => {
    const reads = readBibs([box('10264', 0.99, at(100)), box('1026', 0.99, at(300))]);
    expect(reads.map((r) => [r.bib, r.partial])).toEqual([
      ['10264', false],
      ['1026', true],
    ]);
  });

  it('with cutReach on, a ground ending at the last digit while the other side goes on is an occluder', () => {
    const rules = { ...DEFAULT_BIB_RULES, cutReach: 0.1 };
    expect(cutNumber(at(300, 0.5, 0.02), rules)).toBe(true);
    expect(cutNumber(at(300, 0.05, 0.05), rules)).toBe(false); // print filling its sheet: both sides end
    expect(cutNumber(at(300, 0.5, 0.02))).toBe(false); // off by default
  });
});

describe('weakEnd: a doubtful end digit', () => {
  const read = (text: string, chars: number[]) => ({ text, confidence: 0.95, chars });

  it("names the end digit that is the number's one least sure, under doubtfulDigit", () => {
    // RBNR set1_69: a sheet's left edge read as a leading 1 (0.87; 0.75 tinted yellow, 0.69 at JPEG quality 40).
    expect(weakEnd(read('13628', [0.87, 1, 1, 1, 0.99]))).toBe('first');
    expect(weakEnd(read('3527', [1, 1, 1, 0.72]))).toBe('last');
    expect(readBibs([read('13628', [0.69, 1, 1, 1, 1])])[0].weakEnd).toBe('first');
  });

  it('leaves sure digits, a weak middle digit, a tie and two-digit numbers alone', () => {
    expect(weakEnd(read('3628', [0.95, 1, 1, 1]))).toBeNull();
    expect(weakEnd(read('3621', [0.98, 0.76, 0.85, 0.99]))).toBeNull();
    expect(weakEnd(read('2000', [0.7, 1, 1, 0.7]))).toBeNull();
    expect(weakEnd(read('21', [0.86, 0.81]))).toBeNull();
    expect(weakEnd(read('#552', [0.5, 1, 1, 0.8]))).toBe('last'); // the stray "#" is no digit
    expect(weakEnd({ text: '552', confidence: 0.9 })).toBeNull(); // no per-character confidences
  });
});

describe('readBibsWithUnsure: numbers read under the confidence bar', () => {
  it('keeps a whole number read from unsureConfidence up to minConfidence, marked unsure, and nothing under it', () => {
    const reads = readBibsWithUnsure([box('1432'), box('311', 0.6), box('80', 0.4)]);
    expect(reads.map((r) => [r.bib, r.unsure ?? false])).toEqual([
      ['1432', false],
      ['311', true],
    ]);
    // The sure reads are readBibs' alone, and without unsureConfidence nothing else is kept.
    expect(reads.filter((r) => !r.unsure)).toEqual(readBibs([box('1432'), box('311', 0.6), box('80', 0.4)]));
    expect(readBibsWithUnsure([box('311', 0.6)], { ...DEFAULT_BIB_RULES, unsureConfidence: undefined })).toEqual([]);
  });

  it('keeps no unsure fragment, and no unsure copy of a number read surely', () => {
    expect(readBibsWithUnsure([box('1463', 0.95), box('463', 0.7), box('1463', 0.6)]).map((r) => r.bib)).toEqual([
      '1463',
    ]);
    const cut = { ...printed(200, 20, 230), x: 0, imageWidth: 720 };
    expect(readBibs([box('2475', 0.95, cut)]).map((r) => r.partial)).toEqual([true]);
    expect(readBibsWithUnsure([box('2475', 0.7, cut)])).toEqual([]);
  });
});
