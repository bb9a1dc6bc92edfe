import { addUnseen, clip, cutByFrame, iou, mergeTileFaces, squareTiles, tilesHolding } from './face-boxes';

describe('face boxes of two detectors', () => {
  it('iou: 1 for the same box, 0 apart, in between when they overlap', () => {
    const a = { x: 0, y: 0, width: 10, height: 10 };
    expect(iou(a, a)).toBe(1);
    expect(iou(a, { x: 20, y: 0, width: 10, height: 10 })).toBe(0);
    expect(iou(a, { x: 5, y: 0, width: 10, height: 10 })).toBeCloseTo(50 / 150);
  });

  it('keeps only the candidates that are no face already found, once each', () => {
    const found = [{ x: 100, y: 100, width: 50, height: 50 }];
    const sameFaceLooser = { x: 90, y: 85, width: 80, height: 80, score: 0.9 }; // the found face's centre lies inside
    const sameFaceTighter = { x: 110, y: 110, width: 30, height: 30, score: 0.9 };
    const other = { x: 300, y: 100, width: 50, height: 50, score: 0.8 };
    const otherAgain = { x: 305, y: 102, width: 48, height: 48, score: 0.7 };
    expect(addUnseen(found, [sameFaceLooser, sameFaceTighter, other, otherAgain])).toEqual([other]);
  });

  it('cutByFrame: a box at the border that is no longer square was cut by the frame; a whole face at the border or a square box inside is not', () => {
    expect(cutByFrame({ x: 0, y: 76, width: 76, height: 103 }, 675, 469)).toBe(true); // the stranger of bbt2
    expect(cutByFrame({ x: 599, y: 76, width: 76, height: 103 }, 675, 469)).toBe(true);
    expect(cutByFrame({ x: 0, y: 76, width: 100, height: 103 }, 675, 469)).toBe(false);
    expect(cutByFrame({ x: 56, y: 104, width: 152, height: 151 }, 675, 469)).toBe(false);
    expect(cutByFrame({ x: 56, y: 104, width: 100, height: 150 }, 675, 469)).toBe(false); // not at the border
  });

  it('clip keeps the box inside the image and its other fields', () => {
    expect(clip({ x: -10, y: 5, width: 50, height: 500, score: 0.9 }, 100, 100)).toEqual({
      x: 0,
      y: 5,
      width: 40,
      height: 95,
      score: 0.9,
    });
  });
});

describe('BlazeFace in square tiles', () => {
  it('a 720p frame is two 720x720 tiles overlapping by 160 px; a square one and a near-square one are one tile', () => {
    expect(squareTiles(1280, 720)).toEqual([
      { x: 0, y: 0, width: 720, height: 720 },
      { x: 560, y: 0, width: 720, height: 720 },
    ]);
    expect(squareTiles(640, 640)).toEqual([{ x: 0, y: 0, width: 640, height: 640 }]);
    expect(squareTiles(720, 640)).toEqual([{ x: 0, y: 0, width: 720, height: 640 }]);
  });

  it('a portrait frame is tiled top to bottom, and every tile lies inside the frame', () => {
    const tiles = squareTiles(720, 1280);
    expect(tiles).toEqual([
      { x: 0, y: 0, width: 720, height: 720 },
      { x: 0, y: 560, width: 720, height: 720 },
    ]);
    for (const t of squareTiles(1920, 500)) expect(t.x + t.width).toBeLessThanOrEqual(1920);
    expect(squareTiles(1920, 500)).toHaveLength(4);
  });

  it('maps tile faces to the frame, drops a face cut by its tile, and keeps a face seen by two tiles once', () => {
    const [left, right] = squareTiles(1280, 720);
    const merged = mergeTileFaces([
      // whole in the left tile (x 600-700), whole in the right one too (x 40-140 there)
      {
        tile: left,
        faces: [
          { x: 600, y: 100, width: 100, height: 100, score: 0.8 },
          { x: 680, y: 300, width: 40, height: 100, score: 0.9 },
        ],
      },
      {
        tile: right,
        faces: [
          { x: 40, y: 100, width: 100, height: 100, score: 0.95 },
          { x: 120, y: 300, width: 100, height: 100, score: 0.9 },
        ],
      },
    ]);
    // the left tile's second face is cut by the tile's edge (x 680-720, not square): the right tile's whole one is kept
    expect(merged).toEqual([
      { x: 600, y: 100, width: 100, height: 100, score: 0.95 },
      { x: 680, y: 300, width: 100, height: 100, score: 0.9 },
    ]);
  });

  it('joins a face wider than the overlap, cut in both tiles, into one box (BlazeFace finds both halves)', () => {
    const [left, right] = squareTiles(1280, 720);
    // a 240 px face at x 518-758: the left tile sees 518-720, the right one 560-758 (its own x 0-198)
    const merged = mergeTileFaces([
      { tile: left, faces: [{ x: 518, y: 200, width: 202, height: 242, score: 0.9 }] },
      { tile: right, faces: [{ x: 0, y: 200, width: 198, height: 243, score: 0.95 }] },
    ]);
    expect(merged).toEqual([{ x: 518, y: 200, width: 240, height: 243, score: 0.95 }]);
    // halves of a face the frame's top edge cuts stay dropped, as a face cut by the frame is
    expect(
      mergeTileFaces([
        { tile: left, faces: [{ x: 600, y: 0, width: 120, height: 60, score: 0.9 }] },
        { tile: right, faces: [{ x: 0, y: 0, width: 100, height: 60, score: 0.9 }] },
      ]),
    ).toEqual([]);
    // cut faces that do not meet are no face
    expect(
      mergeTileFaces([
        { tile: left, faces: [{ x: 680, y: 0, width: 40, height: 100, score: 0.9 }] },
        { tile: right, faces: [{ x: 0, y: 400, width: 40, height: 100, score: 0.9 }] },
      ]),
    ).toEqual([]);
  });

  it('tilesHolding: the one tile that holds a face whole with room to move (a quarter of its size each side), else every tile it meets; none for no face', () => {
    const [left, right] = squareTiles(1280, 720);
    const face = (x: number, width = 120) => ({ x, y: 300, width, height: width });
    expect(tilesHolding([left, right], [face(100)])).toEqual([left]);
    expect(tilesHolding([left, right], [face(1000)])).toEqual([right]);
    expect(tilesHolding([left, right], [face(640, 80)])).toEqual([right]); // in the overlap, too near the left tile's edge to be safe there
    expect(tilesHolding([left, right], [face(500, 300)])).toEqual([left, right]); // across the middle, wider than the overlap
    expect(tilesHolding([left, right], [face(1000), face(100)])).toEqual([left, right]);
    expect(tilesHolding([left, right], [])).toEqual([]);
  });
});
