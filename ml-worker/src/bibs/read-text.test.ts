import { DEFAULT_BIB_RULES, readBibs } from './extract';
import { DEFAULT_TORSO_RULES } from './torso-gate';
import { DEFAULT_TEXT_CROP_OPTIONS, planSecondLook, planTextCrops } from './text-crops';
import type { Rgba } from './box-geometry';
import { endsInInk, readTextBoxes, TextOcr, TracedLine } from './read-text';
import type { TextLine } from './text-detection';

const W = 1000;
const H = 800;
/** Grey ground, a light patch at x 450-590, y 280-360 with dark vertical strokes (a printed number) on it. */
function photo(): Rgba {
  const data = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const patch = x >= 450 && x < 590 && y >= 280 && y < 360;
      const ink = x >= 470 && x < 570 && y >= 300 && y < 340 && x % 8 < 4;
      const v = ink ? 20 : patch ? 230 : 90;
      data.set([v, v, v, 255], (y * W + x) * 4);
    }
  }
  return { data, width: W, height: H };
}
const box = (x0: number, y0: number, x1: number, y1: number) => [
  [x0, y0],
  [x1, y0],
  [x1, y1],
  [x0, y1],
];

/** Two crops overlapping on x 400-600, both holding the number whole; the fake detector finds it in each. */
function ocr(text: string): TextOcr & { recognised: number } {
  const lines: TextLine[][] = [[{ box: box(466, 296, 574, 344) }], [{ box: box(67, 297, 175, 345) }]];
  let call = 0;
  const fake = {
    recognised: 0,
    detect: async () => lines[call++] ?? [],
    recognise: async () => {
      fake.recognised++;
      return { text, mean: 0.99, chars: [...text].map(() => 0.99) };
    },
  };
  return fake;
}
const crops = [
  { x: 0, y: 0, width: 600, height: H, scale: 1 },
  { x: 400, y: 0, width: 600, height: H, scale: 1 },
];

describe('readTextBoxes', () => {
  it('recognises a number that two overlapping crops both find once, in the crop that sees more around it', async () => {
    const fake = ocr('123');
    const boxes = await readTextBoxes(fake, photo(), crops, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(fake.recognised).toBe(1);
    expect(boxes).toHaveLength(1);
    expect(boxes[0].geometry).toMatchObject({ x: 467, y: 297 }); // the right crop's: 67 px from its inner edge (x 400), the left crop's 26 px (x 600)
    expect(boxes[0].geometry?.glyphHeights?.length).toBeGreaterThan(0);
  });

  it("measures how far a number's ground reaches: the patch ends within a box height on every side", async () => {
    const [number] = await readTextBoxes(ocr('123'), photo(), crops, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    const reach = number.geometry?.groundReach;
    expect(reach).toBeDefined();
    for (const side of Object.values(reach!)) expect(side).toBeLessThan(1);
  });

  it('measures glyph heights and ground reach only for what reads as a number', async () => {
    const boxes = await readTextBoxes(ocr('ABC'), photo(), crops, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(boxes).toHaveLength(1);
    expect(boxes[0].geometry?.glyphHeights).toBeUndefined();
    expect(boxes[0].geometry?.groundReach).toBeUndefined();
  });
});

describe('readTextBoxes with everyView (a number read in each crop that sees it, one read kept)', () => {
  // Two crops see the number (the right crop's view is kept by readOnce: farther from its inner edge); each view
  // reads as the fake says.
  const fake = (rightRead: [string, number], leftRead: [string, number]) => {
    const lines: TextLine[][] = [[{ box: box(446, 296, 574, 344) }], [{ box: box(67, 297, 175, 345) }]];
    let call = 0;
    const read: string[] = [];
    const ocr: TextOcr = {
      detect: async () => lines[call++] ?? [],
      recognise: async (line) => {
        const [text, mean] = line.box[0][0] === 446 ? leftRead : rightRead;
        read.push(text);
        return { text, mean, chars: [...text].map(() => mean) };
      },
    };
    return { ocr, read };
  };
  const stored = (boxes: Awaited<ReturnType<typeof readTextBoxes>>) =>
    readBibs(boxes)
      .filter((r) => !r.partial)
      .map((r) => r.bib);
  const everyView = [null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES, true, null, undefined, true] as const;

  it('keeps the longer whole read where one holds the other and it is sure (463 seen whole as 1463)', async () => {
    const { ocr, read } = fake(['463', 0.86], ['1463', 1]);
    const boxes = await readTextBoxes(ocr, photo(), crops, ...everyView);
    expect(read).toEqual(['463', '1463']);
    expect(boxes).toHaveLength(1);
    expect(stored(boxes)).toEqual(['1463']);
  });

  it('keeps the shorter read where the longer is unsure, the more confident where they differ otherwise', async () => {
    const unsure = await readTextBoxes(fake(['3628', 0.95], ['13628', 0.6]).ocr, photo(), crops, ...everyView);
    expect(stored(unsure)).toEqual(['3628']);
    const misread = await readTextBoxes(fake(['3621', 0.89], ['3638', 0.99]).ocr, photo(), crops, ...everyView);
    expect(stored(misread)).toEqual(['3638']);
  });

  it('without it reads the kept view only, and its fragment is stored', async () => {
    const { ocr, read } = fake(['463', 0.86], ['1463', 1]);
    const boxes = await readTextBoxes(ocr, photo(), crops, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(read).toEqual(['463']);
    expect(stored(boxes)).toEqual(['463']);
  });
});

describe('readTextBoxes, the other detector input where a crop yields no number', () => {
  const whole = [{ x: 0, y: 0, width: W, height: H, scale: 1 }];
  const fake = (first: TextLine[], other: TextLine[], text: (line: TextLine) => string) => {
    const calls = { detect: 0, other: 0 };
    const ocr: TextOcr = {
      detect: async () => (calls.detect++, first),
      detectOther: async () => (calls.other++, other),
      recognise: async (line) => ({ text: text(line), mean: 0.99, chars: [...text(line)].map(() => 0.99) }),
    };
    return { ocr, calls };
  };
  const number = { box: box(466, 296, 574, 344) };
  const word = { box: box(466, 240, 574, 270) };

  it('reads the number the other input finds on a crop where the first found no number', async () => {
    const { ocr, calls } = fake([word], [word, number], (l) => (l === number ? '1432' : 'PROM'));
    const boxes = await readTextBoxes(ocr, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(calls).toEqual({ detect: 1, other: 1 });
    expect(boxes.map((b) => b.text)).toEqual(['1432']); // the word, on no patch, fails the print rule
  });

  it("runs it on a crop whose middle holds no number though a neighbour's number lies at its side", async () => {
    // Crops of 1000 x 800: the number (x 466-574, y 296-344) lies in the middle of the first and at the left side of
    // the second (x from 380); each crop's detector finds it.
    const sides = [
      { x: 0, y: 0, width: 1000, height: H, scale: 1 },
      { x: 380, y: 0, width: 620, height: H, scale: 1 },
    ];
    const lines: TextLine[][] = [[{ box: box(466, 296, 574, 344) }], [{ box: box(86, 296, 194, 344) }]];
    let call = 0;
    const otherOn: number[] = [];
    const ocr: TextOcr = {
      detect: async () => lines[call++] ?? [],
      detectOther: async (image) => (otherOn.push(image.width), []),
      recognise: async () => ({ text: '552', mean: 0.99, chars: [0.99, 0.99, 0.99] }),
    };
    await readTextBoxes(ocr, photo(), sides, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(otherOn).toEqual([620]); // the second crop alone
  });

  it('does not run it on a crop where a number was read', async () => {
    const { ocr, calls } = fake([number], [word], (l) => (l === number ? '1432' : 'PROM'));
    const boxes = await readTextBoxes(ocr, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(calls).toEqual({ detect: 1, other: 0 });
    expect(boxes.map((b) => b.text)).toEqual(['1432']);
    // A level read is no later look's, and its ends are not measured.
    expect(boxes[0].look).toBeUndefined();
    expect(boxes[0].geometry?.endsInInk).toBeUndefined();
  });
});

describe('readTextBoxes, the tilted look where a crop yields no number', () => {
  it('reads the number only the tilted look finds, on the crops of the people in front when asked', async () => {
    // A runner in front and one behind (as the crop planner tells them); neither's level look finds a number.
    const front = { x: 0, y: 0, width: 1000, height: H, scale: 1, front: true };
    const behind = { x: 700, y: 0, width: 300, height: 260, scale: 1, front: false };
    const tiltedOn = (frontOnly?: boolean) => {
      const seen: number[] = [];
      const ocr: TextOcr = {
        detect: async () => [],
        detectTilted: async (image) => (
          seen.push(image.height),
          image.height === H ? [{ box: box(466, 296, 574, 344) }] : []
        ),
        tiltedFrontOnly: frontOnly,
        recognise: async () => ({ text: '979', mean: 0.99, chars: [0.99, 0.99, 0.99] }),
      };
      return readTextBoxes(ocr, photo(), [front, behind], null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES).then(
        (boxes) => ({
          seen,
          read: boxes.map((b) => b.text),
          tilted: boxes.map((b) => b.look === 'tilted'),
          endsMeasured: boxes.map((b) => b.geometry?.endsInInk !== undefined),
        }),
      );
    };
    // Marked as the tilted look's, its ends measured (tiltedEndsInPaper judges them).
    expect(await tiltedOn()).toEqual({ seen: [H, 260], read: ['979'], tilted: [true], endsMeasured: [true] });
    expect(await tiltedOn(true)).toEqual({ seen: [H], read: ['979'], tilted: [true], endsMeasured: [true] });
  });
});

describe('readTextBoxes, detecting again where nothing passed the gates', () => {
  const whole = [{ x: 0, y: 0, width: W, height: H, scale: 1 }];
  const fake = (first: TextLine[], again: TextLine[]) => {
    const calls = { detect: 0, again: 0 };
    const ocr: TextOcr = {
      detect: async () => (calls.detect++, first),
      detectAgain: async () => (calls.again++, again),
      recognise: async () => ({ text: '123', mean: 0.99, chars: [0.99, 0.99, 0.99] }),
    };
    return { ocr, calls };
  };

  it('reads what the second detection finds on a crop where the first found nothing', async () => {
    const { ocr, calls } = fake([], [{ box: box(466, 296, 574, 344) }]);
    const boxes = await readTextBoxes(ocr, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(calls).toEqual({ detect: 1, again: 1 });
    expect(boxes.map((b) => b.text)).toEqual(['123']);
  });

  it('also where the first found only what fails the print rule (the grey ground, not a patch)', async () => {
    const { ocr, calls } = fake([{ box: box(100, 100, 200, 140) }], [{ box: box(466, 296, 574, 344) }]);
    const boxes = await readTextBoxes(ocr, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(calls.again).toBe(1);
    expect(boxes).toHaveLength(1);
  });

  it('does not look again where the first detection found print that passes the gates', async () => {
    const { ocr, calls } = fake([{ box: box(466, 296, 574, 344) }], [{ box: box(100, 100, 200, 140) }]);
    const boxes = await readTextBoxes(ocr, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(calls).toEqual({ detect: 1, again: 0 });
    expect(boxes).toHaveLength(1);
  });

  it('with againWhereNoNumber, looks again where print passed but no number was read on the crop', async () => {
    // The colour pass finds a word on the patch; the luminance pass finds the number (a tinted sheet).
    const calls = { detect: 0, again: 0 };
    const line = { box: box(466, 296, 518, 344) }; // half the number's place: not the same text as the whole
    const ocr: TextOcr = {
      detect: async () => (calls.detect++, [line]),
      detectAgain: async () => (calls.again++, [{ box: box(466, 296, 574, 344) }]),
      againWhereNoNumber: true,
      recognise: async (l) =>
        l === line
          ? { text: 'RUN', mean: 0.99, chars: [0.99, 0.99, 0.99] }
          : { text: '184', mean: 0.99, chars: [1, 1, 1] },
    };
    const boxes = await readTextBoxes(ocr, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(calls).toEqual({ detect: 1, again: 1 });
    expect(boxes.map((b) => b.text)).toEqual(['RUN', '184']);
    // Without it the luminance pass never runs there: print passed the gates in colour.
    const without = await readTextBoxes(
      { ...ocr, againWhereNoNumber: false },
      photo(),
      whole,
      null,
      DEFAULT_BIB_RULES,
      DEFAULT_TORSO_RULES,
    );
    expect(without.map((b) => b.text)).toEqual(['RUN']);
  });

  it('with againWhereNoNumber, does not look twice at a crop already seen in luminance', async () => {
    const { ocr, calls } = fake([], []);
    await readTextBoxes(
      { ...ocr, againWhereNoNumber: true },
      photo(),
      whole,
      null,
      DEFAULT_BIB_RULES,
      DEFAULT_TORSO_RULES,
    );
    expect(calls).toEqual({ detect: 1, again: 1 });
  });
});

describe('readTextBoxes, second look', () => {
  // A runner far behind (the number at x 470-570 on their torso) and a taller one in front, at the left.
  const far = { x: 0.42, y: 0.2, width: 0.2, height: 0.47, score: 0.8 };
  const near = { x: 0.02, y: 0, width: 0.3, height: 0.95, score: 0.8 };
  const people = [near, far];
  const first = planTextCrops(people, W, H);
  const look = planSecondLook(people, () => false, W, H).find((c) => c.x < 470 && c.x + c.width > 570)!;

  /** A detector that finds the small number only at `foundFrom` scale and above, in the crop around it. */
  function ocr(foundFrom: number): TextOcr & { recognised: number; scales: number[] } {
    const fake = {
      recognised: 0,
      scales: [] as number[],
      detect: async (image: Rgba, scale: number) => {
        fake.scales.push(scale);
        const crop = [...first, look].find((c) => c.width === image.width && c.height === image.height && c.x < 470);
        if (!crop || scale < foundFrom) return [];
        return [{ box: box(468 - crop.x, 300 - crop.y, 572 - crop.x, 340 - crop.y) }];
      },
      recognise: async () => {
        fake.recognised++;
        return { text: '123', mean: 0.99, chars: [0.99, 0.99, 0.99] };
      },
    };
    return fake;
  }
  const read = (fake: TextOcr, secondLook = true) =>
    readTextBoxes(
      fake,
      photo(),
      first,
      people,
      DEFAULT_BIB_RULES,
      DEFAULT_TORSO_RULES,
      true,
      secondLook ? DEFAULT_TEXT_CROP_OPTIONS : null,
    );

  it('finds a small number the first pass missed by looking again at the largest scale', async () => {
    expect(look).toBeDefined();
    expect(first.find((c) => c.x < 470 && c.x + c.width > 570)?.scale).toBeLessThan(DEFAULT_TEXT_CROP_OPTIONS.maxScale);
    const fake = ocr(DEFAULT_TEXT_CROP_OPTIONS.maxScale);
    const boxes = await read(fake);
    expect(boxes.map((b) => b.text)).toEqual(['123']);
    expect(fake.scales).toContain(DEFAULT_TEXT_CROP_OPTIONS.maxScale);
    expect(await read(ocr(DEFAULT_TEXT_CROP_OPTIONS.maxScale), false)).toEqual([]);
  });

  it('does not read again a number the first pass read', async () => {
    const fake = ocr(1);
    const boxes = await read(fake);
    expect(boxes).toHaveLength(1);
    expect(fake.recognised).toBe(1);
  });
});

describe('readTextBoxes, lines widened on either side', () => {
  // In the crop at x 400: a box that ends inside the stroke at x 488-491 (a leading "1" it cut), or holds every stroke.
  const crop = { x: 400, y: 0, width: 600, height: H, scale: 1 };
  const widenedImage = { widened: true };
  function ocr(x0: number, glyphCheck = true): TextOcr {
    const region = { x: x0 - 12, y: 296, width: 174 + 12 - (x0 - 12), height: 48 };
    return {
      detect: async () => [{ box: box(x0, 296, 174, 344), widened: { image: widenedImage, region, glyphCheck } }],
      recognise: async (line) => {
        const text = line.image === widenedImage ? '123' : '23';
        return { text, mean: 0.99, chars: [...text].map(() => 0.99) };
      },
    };
  }
  const read = (fake: TextOcr) => readTextBoxes(fake, photo(), [crop], null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);

  it('keeps the widened read when the glyph it gained beyond the box is a stroke with ground on both sides', async () => {
    expect((await read(ocr(90))).map((b) => b.text)).toEqual(['123']);
  });

  it('keeps the read as cut when the widened one differs with no glyph beyond the box', async () => {
    expect((await read(ocr(66))).map((b) => b.text)).toEqual(['23']);
    expect((await read(ocr(66, false))).map((b) => b.text)).toEqual(['123']);
  });

  it('reads a line widened only where a glyph beyond its box could be gained, or a leading "1" weighed', async () => {
    const widenedReads = async (x0: number, narrowText: string, sheetEdgeOne = false) => {
      let wide = 0;
      const fake: TextOcr = {
        ...ocr(x0),
        sheetEdgeOne,
        recognise: async (line) => {
          if (line.image === widenedImage) wide++;
          return { text: narrowText, mean: 0.99, chars: [...narrowText].map(() => 0.99) };
        },
      };
      return { read: (await read(fake)).map((b) => b.text), wide };
    };
    // The box cuts the leading stroke: the widened read is made (and reads the same here).
    expect(await widenedReads(90, '23')).toEqual({ read: ['23'], wide: 1 });
    // A box holding every stroke has only the sheet's edges beyond it: the read as cut stands, unread widened.
    expect(await widenedReads(66, '23')).toEqual({ read: ['23'], wide: 0 });
    // A leading "1" is weighed against the widened read when the sheet's edge may be read as one.
    expect(await widenedReads(66, '123', true)).toEqual({ read: ['123'], wide: 1 });
    expect(await widenedReads(66, '123')).toEqual({ read: ['123'], wide: 0 });
  });

  it('marks a number with a digit-shaped glyph beside it that the read left out (a fragment)', async () => {
    const leftOut: TextOcr = { ...ocr(90), recognise: async () => ({ text: '23', mean: 0.99, chars: [0.99, 0.99] }) };
    const [fragment] = await read(leftOut);
    expect(fragment.geometry?.digitBeside).toBe(true);
    expect(readBibs([fragment], { ...DEFAULT_BIB_RULES, digitBesideCut: true })[0].partial).toBe(true);
    expect(readBibs([fragment])[0].partial).toBe(false);
    // The widened read took the glyph in; a box holding every stroke has only the sheet's edges beyond it.
    expect((await read(ocr(90)))[0].geometry?.digitBeside).toBe(false);
    expect((await read(ocr(66)))[0].geometry?.digitBeside).toBe(false);
  });
});

describe('readTextBoxes, a look at a larger scale where no number was read', () => {
  const whole = [{ x: 0, y: 0, width: W, height: H, scale: 1 }];
  const number: TextLine = { box: box(466, 296, 574, 344) };
  // The luminance view shows the number only at twice the crop's scale (a bib smaller than its runner implies).
  function ocr(largerScale?: number, inColour: TextLine[] = [], largerUpTo?: number) {
    const colour: number[] = [];
    const luminance: number[] = [];
    const fake: TextOcr = {
      detect: async (_image, scale) => (colour.push(scale), inColour),
      detectAgain: async (_image, scale) => (luminance.push(scale), scale === 2 ? [number] : []),
      againWhereNoNumber: true,
      largerScale,
      largerUpTo,
      recognise: async () => ({ text: '123', mean: 0.99, chars: [0.99, 0.99, 0.99] }),
    };
    return { fake, colour, luminance };
  }
  const read = (fake: TextOcr) => readTextBoxes(fake, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);

  it("reads the number the crop's luminance shows at the larger scale when neither look found one", async () => {
    const { fake, colour, luminance } = ocr(2);
    const boxes = await read(fake);
    expect(boxes.map((b) => b.text)).toEqual(['123']);
    expect(colour).toEqual([1]);
    expect(luminance).toEqual([1, 2]);
    // Marked as the larger look's; only a tilted read's ends are weighed, so none are measured here.
    expect(boxes[0].look).toBe('larger');
    expect(boxes[0].geometry?.endsInInk).toBeUndefined();
  });

  it('does not look without the option, nor where a number was read, nor past the largest scale', async () => {
    expect(await read(ocr().fake)).toEqual([]);
    const read1 = ocr(2, [number]);
    expect((await read(read1.fake)).map((b) => b.text)).toEqual(['123']);
    expect(read1.luminance).toEqual([]);
    const capped = ocr(2, [], 1.2);
    expect(await read(capped.fake)).toEqual([]);
    expect(capped.luminance).toEqual([1]);
  });

  it("sees only the part of the crop around its middle with largerAroundMiddle: the margins cost 4x and hold no runner's own bib", async () => {
    const sizes: number[][] = [];
    const fake: TextOcr = {
      detect: async () => [],
      detectAgain: async (image, scale) => (sizes.push([image.width, image.height, scale]), []),
      largerScale: 2,
      largerAroundMiddle: true,
      recognise: async () => undefined,
    };
    await read(fake);
    expect(sizes).toEqual([
      [W, H, 1],
      [Math.round((W * 3) / 4), Math.round((H * 4) / 5), 2],
    ]);
  });

  it('looks only at the people in front when asked', async () => {
    const front = { x: 0, y: 0, width: 1000, height: H, scale: 1, front: true };
    const behind = { x: 700, y: 0, width: 300, height: 260, scale: 1, front: false };
    const looked = async (largerFrontOnly?: boolean) => {
      const larger: number[] = [];
      const fake: TextOcr = {
        detect: async () => [],
        detectAgain: async (image, scale) => (scale === 2 && larger.push(image.height), []),
        largerScale: 2,
        largerFrontOnly,
        recognise: async () => undefined,
      };
      await readTextBoxes(fake, photo(), [front, behind], null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
      return larger;
    };
    expect(await looked()).toEqual([H, 260]);
    expect(await looked(true)).toEqual([H]);
  });

  it('looks only as far as the largest scale', async () => {
    const { fake, luminance } = ocr(3, [], 2);
    expect((await read(fake)).map((b) => b.text)).toEqual(['123']);
    expect(luminance).toEqual([1, 2]);
  });
});

describe('readTextBoxes, traced', () => {
  const whole = [{ x: 0, y: 0, width: W, height: H, scale: 1 }];
  // A number on the patch, a line on the grey ground (fails the print rule), and the number again for a person.
  const lines: TextLine[] = [{ box: box(466, 296, 574, 344) }, { box: box(100, 100, 200, 140) }];
  const fake = (): TextOcr & { recognised: number } => {
    const ocr = {
      recognised: 0,
      detect: async () => lines,
      recognise: async () => (ocr.recognised++, { text: '123', mean: 0.99, chars: [0.99, 0.99, 0.99] }),
    };
    return ocr;
  };

  it('tells what became of every line, reading refused ones only when traced', async () => {
    const trace: TracedLine[] = [];
    const traced = fake();
    const boxes = await readTextBoxes(
      traced,
      photo(),
      whole,
      null,
      DEFAULT_BIB_RULES,
      DEFAULT_TORSO_RULES,
      true,
      null,
      trace,
    );
    expect(boxes.map((b) => b.text)).toEqual(['123']);
    expect(trace.map((l) => [l.fate, l.text])).toEqual([
      ['read', '123'],
      ['print', '123'],
    ]);
    const plain = fake();
    await readTextBoxes(plain, photo(), whole, null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES);
    expect(plain.recognised).toBe(1);
  });

  it('names the torso gate for print on nobody', async () => {
    const trace: TracedLine[] = [];
    const elsewhere = [{ x: 0.8, y: 0.1, width: 0.15, height: 0.5, score: 0.9 }];
    await readTextBoxes(fake(), photo(), whole, elsewhere, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES, true, null, trace);
    expect(trace.map((l) => l.fate)).toEqual(['torso', 'print']);
  });
});

describe('readTextBoxes, a weak line read again sharpened', () => {
  /** One line on one crop, read `plain` as it is and `sharp` sharpened; counts the sharpened reads. */
  function blurred(plain: [string, number] | undefined, sharp: [string, number]): TextOcr & { sharpened: number } {
    const reading = ([text, mean]: [string, number]) => ({ text, mean, chars: [...text].map(() => mean) });
    const fake = {
      sharpened: 0,
      sharpenBelow: DEFAULT_BIB_RULES.minConfidence,
      detect: async () => [{ box: box(466, 296, 574, 344) }],
      recognise: async () => plain && reading(plain),
      recogniseSharpened: async () => {
        fake.sharpened++;
        return reading(sharp);
      },
    };
    return fake;
  }
  const read = (fake: TextOcr) =>
    readTextBoxes(fake, photo(), [crops[0]], null, DEFAULT_BIB_RULES, DEFAULT_TORSO_RULES).then((boxes) =>
      boxes.map((b) => [b.text, b.confidence]),
    );

  it('keeps the sharpened read where the line read under minConfidence and the sharpened read is more confident', async () => {
    expect(await read(blurred(['311', 0.6], ['311', 0.9]))).toEqual([['311', 0.9]]);
    expect(await read(blurred(['377', 0.7], ['311', 0.9]))).toEqual([['311', 0.9]]);
  });

  it('reads a line read empty again sharpened', async () => {
    expect(await read(blurred(undefined, ['80', 0.85]))).toEqual([['80', 0.85]]);
  });

  it('keeps the shorter read where the sharpened one adds a digit unsurely (a sheet edge sharpened into a 1)', async () => {
    expect(await read(blurred(['311', 0.7], ['1311', 0.75]))).toEqual([['311', 0.7]]);
  });

  it('does not read a line that passes minConfidence again: a sharp photo costs nothing more', async () => {
    const fake = blurred(['311', 0.84], ['371', 0.99]);
    expect(await read(fake)).toEqual([['311', 0.84]]);
    expect(fake.sharpened).toBe(0);
  });
});

describe("endsInInk (a number's line judged on its levelled cut when slanted)", () => {
  /** A light sheet 60 x 40 with a dark glyph 5 px wide on rows 10-30 at each of `lefts`. */
  const sheet = (lefts: number[]): Rgba => {
    const data = new Uint8Array(60 * 40 * 4);
    for (let y = 0; y < 40; y++)
      for (let x = 0; x < 60; x++) {
        const v = y >= 10 && y < 30 && lefts.some((l) => x >= l && x < l + 5) ? 30 : 230;
        data.set([v, v, v, 255], (y * 60 + x) * 4);
      }
    return { data, width: 60, height: 40 };
  };
  const region = { x: 0, y: 0, width: 60, height: 40 };
  const crop = { x: 0, y: 0, width: 60, height: 40 };

  it("looks at the levelled cut's pixels, not the photo's, for a slanted line", () => {
    const cut = sheet([18, 28, 38]);
    const levelled = (pixels: Rgba) => ({
      image: null,
      region,
      glyphCheck: true,
      levelled: { pixels, box: box(26, 8, 45, 32) },
    });
    // The cut holds a digit just before the box's first (x 18-22): 979's first 9 beside "79".
    const line = { box: box(0, 0, 1, 1), widened: levelled(cut) };
    expect(endsInInk(sheet([]), line, crop)).toBe(true);
    expect(endsInInk(sheet([18, 28, 38]), { ...line, widened: levelled(sheet([28, 38])) }, crop)).toBe(false);
    // A line never widened is not judged.
    expect(endsInInk(cut, { box: box(26, 8, 45, 32) }, crop)).toBe(false);
  });
});
