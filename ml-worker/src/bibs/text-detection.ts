import { openImage } from '@em/core/media';
import type { Rgba } from './box-geometry';

/** A line of text the detector found: its four corners and its pixels, cut (deskewed) for recognition. */
export interface TextLine {
  box: number[][];
  [key: string]: unknown;
}

/** The parts of PP-OCR's detection model (@gutenye/ocr-common's Detection) this runs. */
export interface DetectionModel {
  imageToInput(image: Rgba, options: object): { data: Float32Array; width: number; height: number };
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
): Promise<TextLine[]> {
  const frame = detectorFrame(image.width, image.height, scale);
  const input = await frameRgba(image, frame);
  const output = await model.runModel({ modelData: model.imageToInput(input, {}) });
  return split(textMask(output.data, frame), image);
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

async function frameRgba(image: Rgba, frame: DetectorFrame): Promise<Rgba> {
  const { width, height, left, top, frameWidth, frameHeight } = frame;
  if (frameWidth === image.width && frameHeight === image.height) return image;
  const raw = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  let pipeline = openImage(raw, { raw: { width: image.width, height: image.height, channels: 4 } });
  if (width !== image.width || height !== image.height) pipeline = pipeline.resize(width, height, { fit: 'fill' });
  const data = await pipeline
    .extend({
      left,
      top,
      right: frameWidth - width - left,
      bottom: frameHeight - height - top,
      background: { r: 0, g: 0, b: 0, alpha: 1 },
    })
    .raw()
    .toBuffer();
  return { data, width: frameWidth, height: frameHeight };
}
