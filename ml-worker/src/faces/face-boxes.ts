import { overlap as iou } from '../videos/face-tracks';

/** Intersection over union, the one the video tracker uses. */
export { iou };

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether the centre of `inner` lies inside `outer`. */
export function centreInside(outer: Box, inner: Box): boolean {
  const cx = inner.x + inner.width / 2;
  const cy = inner.y + inner.height / 2;
  return cx >= outer.x && cx <= outer.x + outer.width && cy >= outer.y && cy <= outer.y + outer.height;
}

/**
 * The candidates that are no face already found: a candidate overlapping a found face (IoU > 0.3)
 * or sharing its centre region is the same face seen by another detector; candidates also
 * de-duplicate among themselves (the first wins).
 */
export function addUnseen<T extends Box>(found: Box[], candidates: T[]): T[] {
  const kept: T[] = [];
  const same = (a: Box, b: Box) => iou(a, b) > 0.3 || centreInside(a, b) || centreInside(b, a);
  for (const c of candidates) if (![...found, ...kept].some((f) => same(f, c))) kept.push(c);
  return kept;
}

/**
 * A face cut by the frame: too little of it is there to describe reliably (on the group shots, such
 * a stranger's face matched another person at 0.507). FaceMesh boxes are square and human clips
 * them to the image, so a box at the border that is no longer square (sides < 85% of each other)
 * was cut. Faces only BlazeFace finds are kept only when whole.
 */
export function cutByFrame(b: Box, width: number, height: number): boolean {
  const atBorder = b.x <= 0 || b.y <= 0 || b.x + b.width >= width - 1 || b.y + b.height >= height - 1;
  return atBorder && Math.min(b.width, b.height) < 0.85 * Math.max(b.width, b.height);
}

/** The box cut to the image. */
export function clip<T extends Box>(b: T, width: number, height: number): T {
  const x = Math.max(0, b.x);
  const y = Math.max(0, b.y);
  return { ...b, x, y, width: Math.min(width, b.x + b.width) - x, height: Math.min(height, b.y + b.height) - y };
}

/**
 * Square tiles covering a wide (or tall) image, side by side along its long side and overlapping
 * evenly; an image about square is one tile. BlazeFace's input is square: a 16:9 frame squashed
 * into it narrows every face by 1.78 on top of shrinking it, and 3/4-profile heads of 120 px in a
 * 720p frame were lost; in two 720x720 tiles they are found.
 */
export function squareTiles(width: number, height: number): Box[] {
  const long = Math.max(width, height);
  const side = Math.min(width, height);
  if (long <= side * 1.2) return [{ x: 0, y: 0, width, height }];
  const count = Math.ceil(long / side);
  return Array.from({ length: count }, (_, i) => {
    const at = Math.round((i * (long - side)) / (count - 1));
    return width >= height ? { x: at, y: 0, width: side, height } : { x: 0, y: at, width, height: side };
  });
}

/** Room a known face is given to have moved since it was seen, each side, as a part of its size (tilesHolding). */
const MOVE_ROOM = 0.25;

/**
 * The tiles to look at for faces known from nearby frames (a followed face): for each, the first
 * tile that holds it whole with MOVE_ROOM around it, else every tile it meets; in tile order, once
 * each. A face cut by a tile is dropped (mergeTileFaces): a tile that holds it whole must be seen.
 */
export function tilesHolding(tiles: Box[], faces: Box[]): Box[] {
  const wanted = new Set<Box>();
  for (const f of faces) {
    const room = {
      x: f.x - f.width * MOVE_ROOM,
      y: f.y - f.height * MOVE_ROOM,
      width: f.width * (1 + 2 * MOVE_ROOM),
      height: f.height * (1 + 2 * MOVE_ROOM),
    };
    const holds = (t: Box) =>
      room.x >= t.x && room.y >= t.y && room.x + room.width <= t.x + t.width && room.y + room.height <= t.y + t.height;
    const meets = (t: Box) =>
      room.x < t.x + t.width && t.x < room.x + room.width && room.y < t.y + t.height && t.y < room.y + room.height;
    const holder = tiles.find(holds);
    for (const t of holder ? [holder] : tiles.filter(meets)) wanted.add(t);
  }
  return tiles.filter((t) => wanted.has(t));
}

/**
 * The faces found in each tile, in pixels of the whole image: a face cut by its tile (cutByFrame)
 * is dropped (the tile beside it holds it whole when it lies in their overlap), the same face from
 * two tiles is kept once (the higher score). A face wider than the overlap, across it, is cut in
 * both tiles: two cut faces of different tiles that overlap are joined into one box (unless the
 * frame itself cuts it).
 */
export function mergeTileFaces<T extends Box & { score: number }>(perTile: Array<{ tile: Box; faces: T[] }>): T[] {
  const whole: T[] = [];
  const cut: Array<{ tile: number; face: T }> = [];
  for (const [i, { tile, faces }] of perTile.entries()) {
    for (const f of faces) {
      const inside = clip(f, tile.width, tile.height);
      const face = { ...inside, x: inside.x + tile.x, y: inside.y + tile.y };
      if (cutByFrame(f, tile.width, tile.height)) cut.push({ tile: i, face });
      else whole.push(face);
    }
  }
  const frameWidth = Math.max(...perTile.map(({ tile }) => tile.x + tile.width));
  const frameHeight = Math.max(...perTile.map(({ tile }) => tile.y + tile.height));
  const joined = cut
    .flatMap((a, i) =>
      cut
        .slice(i + 1)
        .filter((b) => b.tile !== a.tile && iou(a.face, b.face) > 0)
        .map((b) => union(a.face, b.face)),
    )
    .filter((f) => !cutByFrame(f, frameWidth, frameHeight));
  return addUnseen(
    [],
    [...whole, ...joined].sort((a, b) => b.score - a.score),
  );
}

function union<T extends Box & { score: number }>(a: T, b: T): T {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return {
    ...a,
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
    score: Math.max(a.score, b.score),
  };
}
