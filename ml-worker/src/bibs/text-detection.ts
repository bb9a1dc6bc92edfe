import { openImage } from '@em/core/media';
import type { Rgba } from './box-geometry';
import { boundsIou, cornerBounds, cropRgba, Region } from './text-crops';
import { Sharpening, unsharpMask } from './recognise-line';

/** A line of text the detector found: its four corners and its pixels, cut (deskewed) for recognition. */
export interface TextLine {
  box: number[][];
  /** The line widened on either side (paddedLineRegion), to read beside its cut (chooseWidenedRead). */
  widened?: WidenedLine;
  [key: string]: unknown;
}

export interface WidenedLine {
  /** Its pixels, as the recogniser takes them. */
  image: unknown;
  region: Region;
  /** Keep a widened read only when what it gained beyond the box is a digit's glyph; false: always keep it. */
  glyphCheck: boolean;
  /** The glyph check sees a thin stroke's faint ink and a glyph the box's edge falls on (glyphsBeyondBox). */
  thinStrokes?: boolean;
  /**
   * A slanted line, cut level along its own axes (levelledLineCut): the glyph check looks at these pixels, where
   * the line's box is `box` and `region` is read; absent for a level line (checked on the photo's pixels).
   */
  levelled?: { pixels: Rgba; box: number[][] };
}

/** Interleaved pixels of 1 band (grey: its R, G and B), 3 (R, G, B) or 4 (R, G, B, A). */
export interface Bands {
  data: Uint8Array | Buffer;
  width: number;
  height: number;
  channels: 1 | 3 | 4;
}

/** The parts of PP-OCR's detection model (@gutenye/ocr-common's Detection) this runs. */
export interface DetectionModel {
  imageToInput(image: Bands, options: object): { data: Float32Array; width: number; height: number };
  runModel(args: {
    modelData: { data: Float32Array; width: number; height: number };
  }): Promise<{ data: Float32Array; dims: readonly number[] }>;
}

/** @gutenye/ocr-common's splitIntoLineImages: boxes from the mask, mapped onto `source` (of any size) and cut from it. */
export type SplitIntoLines = (mask: Rgba, source: Rgba) => Promise<TextLine[]>;

/** A pixel whose text probability is above this is text (the library's own threshold). */
const TEXT_PROBABILITY = 0.03;

/**
 * The text lines of `image`, with the detector run on a copy scaled by `scale` and centred in a
 * black frame whose sides are the multiples of 32 the model needs (as the library letterboxes).
 * The boxes are mapped back onto `image` and the lines cut from `image` itself, so recognition
 * reads the photo's own pixels whatever the scale. This is the library's Detection.run with a
 * scale of our choosing and a typed-array mask.
 */
export async function detectTextLines(
  model: DetectionModel,
  split: SplitIntoLines,
  image: Rgba,
  scale: number,
  linePadding = 0,
  glyphCheck = true,
  luminance: LuminanceUse = 'off',
  input: DetectorInput = 'library',
  slantedWidening = false,
  thinStrokes = false,
  roll = 0,
  sharpen: Sharpening | null = null,
): Promise<TextLine[]> {
  // The detector alone sees the sharpened pixels: the lines are cut from the crop's own.
  const seen = sharpen ? (unsharpMask(image, sharpen) as Rgba) : image;
  const grey = luminance === 'off' ? seen : stretchedLuminance(seen);
  const normalisation = input === 'paddle' ? PADDLE_DETECTOR_NORMALISATION : {};
  const run = async (bands: Bands, frame: DetectorFrame) =>
    (await model.runModel({ modelData: model.imageToInput(await framedBands(bands, frame), normalisation) })).data;
  let mask: Rgba;
  if (roll) {
    const rolled = rolledCopy(grey, scale, roll);
    const frame = detectorFrame(rolled.width, rolled.height, 1);
    mask = rolledBackMask(await run(detectorBands(rolled, luminance !== 'off'), frame), frame, image, scale, roll);
  } else {
    const frame = detectorFrame(image.width, image.height, scale);
    mask = textMask(await run(detectorBands(grey, luminance !== 'off'), frame), frame);
  }
  const source = luminance === 'both' ? grey : image;
  const lines = await split(mask, source);
  if (linePadding <= 0) return lines;
  return lines.map((line) => {
    const region = paddedLineRegion(line.box, image.width, image.height, linePadding);
    if (region)
      return { ...line, widened: { image: lineImage(cropRgba(source, region)), region, glyphCheck, thinStrokes } };
    if (!slantedWidening) return line;
    const levelled = levelledLineCut(source, line.box, linePadding);
    return levelled
      ? { ...line, widened: { image: lineImage(levelled.line), glyphCheck, thinStrokes, ...levelled.check } }
      : line;
  });
}

/**
 * `image` scaled by `scale` and turned by `degrees` (clockwise) about its centre, on a canvas holding all of it, black
 * around it as the detector's frame is: a bib on a turning body is tilted, and the detector misses a tilted line it
 * finds once levelled.
 */
export function rolledCopy(image: Rgba, scale: number, degrees: number): Rgba {
  const { w, h, rw, rh, cos, sin } = rollGeometry(image, scale, degrees);
  const data = new Uint8Array(rw * rh * 4);
  const d = image.data;
  for (let j = 0; j < rh; j++)
    for (let i = 0; i < rw; i++) {
      const [qx, qy] = [i + 0.5 - rw / 2, j + 0.5 - rh / 2];
      // The scaled image's point this canvas pixel shows, in the image's own pixels.
      const x = ((cos * qx + sin * qy + w / 2) * image.width) / w - 0.5;
      const y = ((-sin * qx + cos * qy + h / 2) * image.height) / h - 0.5;
      const o = (j * rw + i) * 4;
      data[o + 3] = 255;
      if (x < -0.5 || y < -0.5 || x > image.width - 0.5 || y > image.height - 0.5) continue;
      const [x0, y0] = [Math.max(0, Math.floor(x)), Math.max(0, Math.floor(y))];
      const [x1, y1] = [Math.min(image.width - 1, x0 + 1), Math.min(image.height - 1, y0 + 1)];
      const [fx, fy] = [Math.min(1, Math.max(0, x - x0)), Math.min(1, Math.max(0, y - y0))];
      for (let c = 0; c < 3; c++) {
        const top = d[(y0 * image.width + x0) * 4 + c] * (1 - fx) + d[(y0 * image.width + x1) * 4 + c] * fx;
        const bottom = d[(y1 * image.width + x0) * 4 + c] * (1 - fx) + d[(y1 * image.width + x1) * 4 + c] * fx;
        data[o + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  return { data, width: rw, height: rh };
}

/**
 * The detector's map of `rolledCopy(image, scale, degrees)` (framed in `frame`) turned back onto `image` scaled by
 * `scale`: the mask the line splitter reads, as `textMask` gives for a level look.
 */
export function rolledBackMask(
  probabilities: ArrayLike<number>,
  frame: DetectorFrame,
  image: { width: number; height: number },
  scale: number,
  degrees: number,
): Rgba {
  const { w, h, rw, rh, cos, sin } = rollGeometry(image, scale, degrees);
  const data = new Uint8Array(w * h * 4);
  const pixels = new Uint32Array(data.buffer);
  const text = 0xffffffff;
  const ground = new Uint32Array(new Uint8Array([0, 0, 0, 255]).buffer)[0];
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const [px, py] = [x + 0.5 - w / 2, y + 0.5 - h / 2];
      const i = Math.min(rw - 1, Math.max(0, Math.floor(cos * px - sin * py + rw / 2)));
      const j = Math.min(rh - 1, Math.max(0, Math.floor(sin * px + cos * py + rh / 2)));
      pixels[y * w + x] =
        probabilities[(j + frame.top) * frame.frameWidth + i + frame.left] > TEXT_PROBABILITY ? text : ground;
    }
  return { data, width: w, height: h };
}

/** The lines of two looks at one crop, a line the second found that the first did too left out (read once). */
export function linesOnce(first: TextLine[], second: TextLine[]): TextLine[] {
  const seen = first.map((line) => cornerBounds(line.box));
  return [...first, ...second.filter((line) => !seen.some((b) => boundsIou(b, cornerBounds(line.box)) > 0.5))];
}

/** The scaled image's size, its turned canvas's and the turn's cosine and sine. */
function rollGeometry(image: { width: number; height: number }, scale: number, degrees: number) {
  const w = Math.max(1, Math.round(image.width * scale));
  const h = Math.max(1, Math.round(image.height * scale));
  const a = (degrees * Math.PI) / 180;
  const [cos, sin] = [Math.cos(a), Math.sin(a)];
  // Less a hair: cos(90 degrees) is not quite 0 in floating point.
  const rw = Math.ceil(w * Math.abs(cos) + h * Math.abs(sin) - 1e-9);
  const rh = Math.ceil(w * Math.abs(sin) + h * Math.abs(cos) - 1e-9);
  return { w, h, rw, rh, cos, sin };
}

/** A slanted line's cut, level, widened along its axis: the recogniser's pixels and the glyph check's. */
export interface LevelledCut {
  line: Rgba;
  check: { region: Region; levelled: { pixels: Rgba; box: number[][] } };
}

/** Lines taller than this share of their length are upright text (the library turns them): not widened. */
const MAX_LEVELLED_ASPECT = 1.5;

/**
 * A slanted line cut along its own axes (as the library deskews it) and widened by `padding` x its height
 * beyond either end: the box can cut a leading "1" there as it does on a level line. Also the same cut with a
 * line height of ground above, below and beside, for the glyph check. Null for upright text or a tiny box.
 */
export function levelledLineCut(image: Rgba, box: number[][], padding: number): LevelledCut | null {
  const [p0, p1, , p3] = box;
  const [ux, uy] = [p1[0] - p0[0], p1[1] - p0[1]];
  const [vx, vy] = [p3[0] - p0[0], p3[1] - p0[1]];
  const length = Math.hypot(ux, uy);
  const height = Math.hypot(vx, vy);
  if (length < 3 || height < 3 || height / length >= MAX_LEVELLED_ASPECT) return null;
  const [w, h] = [Math.round(length), Math.round(height)];
  const pad = Math.max(1, Math.round(padding * h));
  // The glyph check looks a line height beyond the box (widened-read's LOOK_BEYOND).
  const [mx, my] = [pad + h, h];
  const check = sampleAlong(image, p0, [ux / length, uy / length], [vx / height, vy / height], mx, my, w, h);
  const region = { x: mx - pad, y: my, width: w + 2 * pad, height: h };
  const boxInCheck = [
    [mx, my],
    [mx + w, my],
    [mx + w, my + h],
    [mx, my + h],
  ];
  return { line: cropRgba(check, region), check: { region, levelled: { pixels: check, box: boxInCheck } } };
}

/**
 * The pixels of `image` on a grid along unit axes `u`, `v` from `origin`, `w` x `h` plus margins `mx`, `my`
 * on either side, bilinear, edge pixels repeated beyond the image (as the library's cut does).
 */
function sampleAlong(
  image: Rgba,
  origin: number[],
  u: number[],
  v: number[],
  mx: number,
  my: number,
  w: number,
  h: number,
): Rgba {
  const [width, height] = [w + 2 * mx, h + 2 * my];
  const data = new Uint8Array(width * height * 4);
  const at = (x: number, y: number, c: number) =>
    image.data[
      (Math.min(image.height - 1, Math.max(0, y)) * image.width + Math.min(image.width - 1, Math.max(0, x))) * 4 + c
    ];
  for (let j = 0; j < height; j++)
    for (let i = 0; i < width; i++) {
      const [a, b] = [i - mx + 0.5, j - my + 0.5];
      const x = origin[0] + a * u[0] + b * v[0] - 0.5;
      const y = origin[1] + a * u[1] + b * v[1] - 0.5;
      const [x0, y0] = [Math.floor(x), Math.floor(y)];
      const [fx, fy] = [x - x0, y - y0];
      for (let c = 0; c < 4; c++) {
        const top = at(x0, y0, c) * (1 - fx) + at(x0 + 1, y0, c) * fx;
        const bottom = at(x0, y0 + 1, c) * (1 - fx) + at(x0 + 1, y0 + 1, c) * fx;
        data[(j * width + i) * 4 + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  return { data, width, height };
}

/**
 * How a crop's pixels become the detector's input: 'library' as 0..1 (the OCR library's way), 'paddle' with
 * ImageNet's mean and deviation taken off, as PaddleOCR trained and runs its detector.
 */
export type DetectorInput = 'library' | 'paddle';

/**
 * PaddleOCR's detector normalisation in imageToInput's R, G, B terms: PaddleOCR applies ImageNet's (R, G, B)
 * figures to the B, G, R channels of an OpenCV image, and the model was trained so.
 */
const PADDLE_DETECTOR_NORMALISATION = { mean: [0.406, 0.456, 0.485], std: [0.225, 0.224, 0.229] };

/**
 * What the OCR models see of a crop: its colours ('off'), or its luminance stretched to the full range for the
 * detector ('detector') or for the detector and the recogniser ('both'). A bib is dark print on a light sheet
 * whatever the sheet's colour; the models were trained mostly on dark text on white.
 */
export type LuminanceUse = 'off' | 'detector' | 'both';

/** Share of the darkest and of the lightest pixels left out of the stretch (a glint or a shadow decides nothing). */
const STRETCH_TAIL = 0.01;

/**
 * The image's luminance (Rec. 601) in its three channels, stretched so that its 1st and 99th percentiles become
 * black and white; an image with little contrast (under 32 levels between them) is only made grey.
 */
export function stretchedLuminance(image: Rgba): Rgba {
  const n = image.width * image.height;
  const d = image.data;
  const grey = new Uint8Array(n);
  const histogram = new Uint32Array(256);
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const y = (299 * d[i] + 587 * d[i + 1] + 114 * d[i + 2] + 500) / 1000;
    grey[p] = y;
    histogram[grey[p]]++;
  }
  const percentile = (share: number) => {
    let seen = 0;
    for (let v = 0; v < 256; v++) if ((seen += histogram[v]) > share * n) return v;
    return 255;
  };
  let [low, high] = [percentile(STRETCH_TAIL), percentile(1 - STRETCH_TAIL)];
  if (high - low < 32) [low, high] = [0, 255];
  const out = new Uint8Array(n * 4);
  for (let p = 0, i = 0; p < n; p++, i += 4) {
    const v = Math.max(0, Math.min(255, Math.round(((grey[p] - low) * 255) / (high - low))));
    out[i] = out[i + 1] = out[i + 2] = v;
    out[i + 3] = 255;
  }
  return { data: out, width: image.width, height: image.height };
}

/** Slope of a line's top edge above which it is cut as the library cuts it (deskewed), not padded. */
const MAX_PADDED_SLOPE = 0.1;

/**
 * The rectangle to read a level line from: its box widened by `padding` x its height on the left and
 * right, within the image. The detector's box can end inside a thin first or last glyph (a leading
 * "1" cut in half reads as nothing); the recogniser reads the ground beside a number as nothing.
 * Null for a slanted line (the library's deskewed cut reads it better).
 */
export function paddedLineRegion(box: number[][], width: number, height: number, padding: number): Region | null {
  const xs = box.map((p) => p[0]);
  const ys = box.map((p) => p[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [topLeft, topRight] = [...box]
    .sort((a, b) => a[1] - b[1] || a[0] - b[0])
    .slice(0, 2)
    .sort((a, b) => a[0] - b[0]);
  const run = topRight[0] - topLeft[0];
  if (run <= 0 || Math.abs(topRight[1] - topLeft[1]) / run > MAX_PADDED_SLOPE) return null;
  const pad = padding * (y1 - y0);
  const left = Math.max(0, Math.floor(x0 - pad));
  const top = Math.max(0, Math.floor(y0));
  const right = Math.min(width, Math.ceil(x1 + pad));
  const bottom = Math.min(height, Math.ceil(y1));
  if (right - left < 2 || bottom - top < 2) return null;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** A line's pixels as the recogniser takes them (`resize` to its input height, as the library's image does). */
function lineImage(pixels: Rgba) {
  return {
    ...pixels,
    async resize({ height }: { height: number }): Promise<Rgba> {
      const raw = Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength);
      const { data, info } = await openImage(raw, { raw: { width: pixels.width, height: pixels.height, channels: 4 } })
        .resize({ height })
        .raw()
        .toBuffer({ resolveWithObject: true });
      return { data, width: info.width, height: info.height };
    },
  };
}

/** Where the scaled image lies in the detector's input: `width` x `height` at (`left`, `top`) of a `frameWidth` x `frameHeight` frame. */
export interface DetectorFrame {
  width: number;
  height: number;
  left: number;
  top: number;
  frameWidth: number;
  frameHeight: number;
}

export function detectorFrame(width: number, height: number, scale: number): DetectorFrame {
  const scaledWidth = Math.max(1, Math.round(width * scale));
  const scaledHeight = Math.max(1, Math.round(height * scale));
  const frameWidth = Math.max(32, Math.ceil(scaledWidth / 32) * 32);
  const frameHeight = Math.max(32, Math.ceil(scaledHeight / 32) * 32);
  return {
    width: scaledWidth,
    height: scaledHeight,
    left: Math.floor((frameWidth - scaledWidth) / 2),
    top: Math.floor((frameHeight - scaledHeight) / 2),
    frameWidth,
    frameHeight,
  };
}

/** The detector's probability map, over the scaled image only, as the black-and-white RGBA image the line splitter reads. */
export function textMask(probabilities: ArrayLike<number>, frame: DetectorFrame, threshold = TEXT_PROBABILITY): Rgba {
  const { width, height } = frame;
  const data = new Uint8Array(width * height * 4);
  const pixels = new Uint32Array(data.buffer);
  const text = 0xffffffff;
  const ground = new Uint32Array(new Uint8Array([0, 0, 0, 255]).buffer)[0];
  for (let y = 0; y < height; y++) {
    const row = (y + frame.top) * frame.frameWidth + frame.left;
    for (let x = 0; x < width; x++) pixels[y * width + x] = probabilities[row + x] > threshold ? text : ground;
  }
  return { data, width, height };
}

/**
 * The bands the detector reads: R, G and B without alpha, or one band of a grey copy (its three are equal). libvips
 * resizes each band alone, to the values it gives it among four, so the detector's input is the same.
 */
export function detectorBands(image: Rgba, grey: boolean): Bands {
  const n = image.width * image.height;
  const d = image.data;
  if (grey) {
    const out = new Uint8Array(n);
    for (let p = 0; p < n; p++) out[p] = d[p * 4];
    return { data: out, width: image.width, height: image.height, channels: 1 };
  }
  const out = new Uint8Array(n * 3);
  for (let i = 0, j = 0; j < out.length; i += 4, j += 3) {
    out[j] = d[i];
    out[j + 1] = d[i + 1];
    out[j + 2] = d[i + 2];
  }
  return { data: out, width: image.width, height: image.height, channels: 3 };
}

/** `image` scaled to `frame`'s size and centred in its black frame. */
export async function framedBands(image: Bands, frame: DetectorFrame): Promise<Bands> {
  const { width, height, left, top, frameWidth, frameHeight } = frame;
  const { channels } = image;
  const scaled =
    width === image.width && height === image.height
      ? image.data
      : await openImage(Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength), {
          raw: { width: image.width, height: image.height, channels },
        })
          .resize(width, height, { fit: 'fill' })
          .toColourspace(channels === 1 ? 'b-w' : 'srgb')
          .raw()
          .toBuffer();
  if (frameWidth === width && frameHeight === height) return { data: scaled, width, height, channels };
  const out = new Uint8Array(frameWidth * frameHeight * channels);
  const row = width * channels;
  for (let y = 0; y < height; y++)
    out.set(scaled.subarray(y * row, (y + 1) * row), ((y + top) * frameWidth + left) * channels);
  return { data: out, width: frameWidth, height: frameHeight, channels };
}
