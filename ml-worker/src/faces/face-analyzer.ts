import path from 'node:path';
import {
  BOX_DESCRIPTOR_VERSION,
  BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION,
  boundedCopy,
  FACE_DESCRIPTOR_VERSION,
  FaceDescriptorVersion,
  openImage,
  SECOND_DETECTOR_DESCRIPTOR_VERSION,
} from '@em/core/media';
import { boundedPixels, RgbPixels } from '../photos/photo-pixels';
import { faceQuality, landmarkSignals } from './face-quality';
import { FaceBox } from '../videos/face-tracks';
import { PersonBox } from '../bibs/torso-gate';
import { BlazeFaceDetector, detectInTiles, PixelBox } from './blazeface-detector';
import { addUnseen, clip, cutByFrame, squareTiles, tilesHolding } from './face-boxes';
import { facesInRegions, headRegions } from './head-regions';
import { useHeapSlice } from '../tfjs/heap-slice';
import { useFastConcat } from '../tfjs/fast-concat';
import { facePixelSignals } from './face-pixels';
import { refineFace } from './refine-face';
import { ChipKind, describeFaces, FaceImage } from './describe-faces';
import {
  DetectedFace,
  FaceAnalyzerOptions,
  FrameFace,
  PHOTO_FACE_OPTIONS,
  SELFIE_FACE_OPTIONS,
  SelfieFace,
  VIDEO_FACE_OPTIONS,
} from './face-options';

// The node-wasm build of face-api runs on @tensorflow/tfjs with the wasm backend (tfjs-node cannot
// be installed offline); its models ship inside the npm package.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const wasm = require('@tensorflow/tfjs-backend-wasm');

const WASM_PATH = `${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`;
/** Selfies and photos are analysed on a copy at most this large (boxes are relative, so they hold). */
const ANALYSIS_MAX_SIDE = 2048;
/** Tight face crops need a margin around the face before the detector sees it as one (a wider one when the first finds nothing). */
const SELFIE_PADDINGS = [0.25, 1];

interface LandmarkedFace {
  /** Pixels of the analysed image. */
  box: { x: number; y: number; width: number; height: number };
  score: number;
  landmarks: any;
  /** Found by BlazeFace or in a person's head only (descriptor version 5: matched more strictly). */
  secondDetector?: boolean;
}

/**
 * Face detection, landmarks and 128-d descriptors. Models load once per instance's thread; tfjs-wasm
 * is single-threaded, so calls are serialised (selfies have their own threads: SelfieThreads) and
 * parallelism comes from more worker processes.
 */
export class FaceAnalyzer {
  private ready: Promise<void> | null = null;
  private running = false;
  private readonly urgent: Array<() => void> = [];
  private readonly normal: Array<() => void> = [];
  private readonly blazeface = new BlazeFaceDetector();

  load(): Promise<void> {
    this.ready ??= (async () => {
      wasm.setWasmPaths(WASM_PATH);
      if (!(await faceapi.tf.setBackend('wasm'))) throw new Error('the tfjs wasm backend failed to initialise');
      await faceapi.tf.ready();
      useHeapSlice(); // each face is cut from the photo's tensor: no copy of the whole photo per cut
      useFastConcat(); // face-api joins its mean colour along the channels before every pass
      const models = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
      await faceapi.nets.tinyFaceDetector.loadFromDisk(models);
      await faceapi.nets.ssdMobilenetv1.loadFromDisk(models);
      await faceapi.nets.faceLandmark68Net.loadFromDisk(models);
      await faceapi.nets.faceRecognitionNet.loadFromDisk(models);
    })();
    return this.ready;
  }

  /**
   * Every face of a photo big enough to match, best score first. With `people` (the person
   * detector's boxes, relative to the photo) and `options.personHeads`, the head of each person
   * without a face is looked at again, enlarged (faces found so are version 3, as BlazeFace's).
   */
  detectAll(
    image: Buffer,
    options: FaceAnalyzerOptions = PHOTO_FACE_OPTIONS,
    people: PersonBox[] = [],
  ): Promise<DetectedFace[]> {
    return this.serialised('normal', () => this.detect(image, options, people));
  }

  /** detectAll on decoded pixels (a photo's large preview before JPEG encoding: the photo job's one decode). */
  detectAllPixels(
    pixels: RgbPixels,
    options: FaceAnalyzerOptions = PHOTO_FACE_OPTIONS,
    people: PersonBox[] = [],
  ): Promise<DetectedFace[]> {
    return this.serialised('normal', async () => {
      const { data, width, height } = await boundedPixels(pixels, ANALYSIS_MAX_SIDE);
      return this.detectPixels(data, width, height, options, people);
    });
  }

  /**
   * The largest face of a selfie (it goes ahead of queued photo work: someone is waiting). The
   * image gets a margin first; when the fast detector finds nothing, the slower SSD one tries, then
   * both again with a wide margin (a tight crop of a turned or cut-off face is found only so). With
   * `mirrored`, the descriptor is the mean of the face's and its mirror image's, as photo faces are
   * (descriptor version 4). The selfie is also described as faces stored before version 4 were
   * (`boxDescriptor`, version 2), for the events whose faces are not all re-embedded yet.
   */
  embedSelfie(image: Buffer, opts: { mirrored?: boolean; boxDescriptor?: boolean } = {}): Promise<SelfieFace> {
    return this.serialised('urgent', async () => {
      const began = performance.now();
      const bounded = (await boundedCopy(image, ANALYSIS_MAX_SIDE)).buffer;
      const meta = await openImage(bounded).metadata();
      const options = {
        ...SELFIE_FACE_OPTIONS,
        mirrored: opts.mirrored !== false,
        boxDescriptors: opts.mirrored !== false && opts.boxDescriptor !== false,
      };
      let faces: DetectedFace[] = [];
      for (const padding of SELFIE_PADDINGS) {
        const margin = Math.round(Math.max(meta.width ?? 0, meta.height ?? 0) * padding);
        const { data, info } = await openImage(bounded)
          .rotate()
          .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: 128, g: 128, b: 128 } })
          .removeAlpha()
          .toColourspace('srgb')
          .raw()
          .toBuffer({ resolveWithObject: true });
        faces = await this.selfieFaces(data, info.width, info.height, options);
        if (faces.length === 0)
          faces = await this.selfieFaces(data, info.width, info.height, { ...options, detector: 'ssd' });
        if (faces.length > 0) break;
      }
      const largest = faces[onlyTheLargest(faces.map((f) => f.box)).indexOf(true)];
      return {
        descriptor: largest?.descriptor ?? null,
        boxDescriptor: largest?.boxDescriptor ?? null,
        quality: largest ? faceQuality(largest.signals) : null,
        facesFound: faces.length,
        modelMs: Math.round(performance.now() - began),
      };
    });
  }

  /** Every face of a decoded video frame (raw RGB). */
  detectFrame(
    rgb: Buffer,
    width: number,
    height: number,
    options: FaceAnalyzerOptions = VIDEO_FACE_OPTIONS,
  ): Promise<DetectedFace[]> {
    return this.serialised('normal', () => this.detectPixels(rgb, width, height, options));
  }

  /**
   * The faces of a video frame; only those `pick` chooses from their boxes are landmarked and
   * described (a tracker's choice: a followed face is only located). The boxes are the detectors'
   * (BlazeFace's for faces only it finds, the same on every frame, so tracks hold). With `near`
   * (faces of the frames around, relative), BlazeFace looks only at the tiles holding those of them
   * the tiny detector did not find again (tilesHolding), or at none.
   */
  detectFrameFaces(
    rgb: Buffer,
    width: number,
    height: number,
    pick: (boxes: FaceBox[]) => boolean[],
    options: FaceAnalyzerOptions = VIDEO_FACE_OPTIONS,
    near?: FaceBox[],
  ): Promise<FrameFace[]> {
    return this.serialised('normal', () => this.frameFaces(rgb, width, height, options, pick, near));
  }

  private async detect(image: Buffer, options: FaceAnalyzerOptions, people: PersonBox[] = []): Promise<DetectedFace[]> {
    const bounded = (await boundedCopy(image, ANALYSIS_MAX_SIDE)).buffer;
    const { data, info } = await openImage(bounded)
      .rotate()
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    return this.detectPixels(data, info.width, info.height, options, people);
  }

  private async detectPixels(
    data: Buffer,
    width: number,
    height: number,
    options: FaceAnalyzerOptions,
    people: PersonBox[] = [],
  ): Promise<DetectedFace[]> {
    return (await this.facesOf(
      data,
      width,
      height,
      options,
      (boxes) => boxes.map(() => true),
      people,
    )) as DetectedFace[];
  }

  /** A selfie's faces: only the largest, the one a search uses, is described (each other one cost two to four recognition passes). */
  private async selfieFaces(
    data: Buffer,
    width: number,
    height: number,
    options: FaceAnalyzerOptions,
  ): Promise<DetectedFace[]> {
    return (await this.facesOf(data, width, height, options, onlyTheLargest)) as DetectedFace[];
  }

  /** Faces found, best score first; the landmarked faces `pick` chooses (from their boxes) get descriptors, the others null. */
  private async facesOf(
    data: Buffer,
    width: number,
    height: number,
    options: FaceAnalyzerOptions,
    pick: (boxes: FaceBox[]) => boolean[],
    people: PersonBox[] = [],
  ): Promise<FrameFace[]> {
    await this.load();
    const tensor = faceapi.tf.tensor3d(data, [height, width, 3], 'int32');
    try {
      const found = (await this.locate(tensor, options, people))
        .filter((r) => r.box.width >= options.minFaceWidth)
        .sort((a, b) => b.score - a.score);
      const boxes: FaceBox[] = found.map((r) => ({
        x: r.box.x / width,
        y: r.box.y / height,
        width: r.box.width / width,
        height: r.box.height / height,
      }));
      const wanted = pick(boxes);
      const picked = found.filter((_, i) => wanted[i]);
      const image: FaceImage = { tensor, rgb: data, width, height };
      const descriptors = await describeFaces(
        image,
        picked.map((f) => f.landmarks),
        options.mirrored,
        chipKind(options),
      );
      const boxDescriptors =
        options.boxDescriptors && options.mirrored
          ? await describeFaces(
              image,
              picked.map((f) => f.landmarks),
              true,
              'box',
            )
          : null;
      return found.map((r, i) => ({
        box: boxes[i],
        score: r.score,
        descriptor: wanted[i] ? descriptors[picked.indexOf(r)] : null,
        ...(boxDescriptors && wanted[i] ? { boxDescriptor: boxDescriptors[picked.indexOf(r)] } : {}),
        descriptorVersion: versionOf(options, r.secondDetector === true),
        signals: {
          ...landmarkSignals(r.landmarks.positions),
          score: r.score,
          ...facePixelSignals(data, width, height, r.box),
        },
      }));
    } finally {
      tensor.dispose();
    }
  }

  private async frameFaces(
    data: Buffer,
    width: number,
    height: number,
    options: FaceAnalyzerOptions,
    pick: (boxes: FaceBox[]) => boolean[],
    near?: FaceBox[],
  ): Promise<FrameFace[]> {
    await this.load();
    const tensor = faceapi.tf.tensor3d(data, [height, width, 3], 'int32');
    try {
      const detections = await this.tinyOnFrame(tensor, options);
      const located: Array<{ box: PixelBox; detection?: any }> = detections.map((d) => ({
        box: { x: d.box.x, y: d.box.y, width: d.box.width, height: d.box.height, score: d.score },
        detection: d,
      }));
      if (options.detector === 'tiny+blazeface') {
        const missed =
          near &&
          addUnseen(
            located.map((f) => f.box),
            near.map((b) => ({ x: b.x * width, y: b.y * height, width: b.width * width, height: b.height * height })),
          );
        located.push(
          ...(
            await this.blazefaceUnseen(
              tensor,
              located.map((f) => f.box),
              options,
              missed,
            )
          ).map((box) => ({ box })),
        );
      }
      const faces = located
        .filter((f) => f.box.width >= options.minFaceWidth)
        .sort((a, b) => b.box.score - a.box.score);
      const boxes: FaceBox[] = faces.map(({ box: b }) => ({
        x: b.x / width,
        y: b.y / height,
        width: b.width / width,
        height: b.height / height,
      }));
      const wanted = pick(boxes);
      const out: FrameFace[] = [];
      for (const [i, f] of faces.entries()) {
        const descriptorVersion = versionOf(options, !f.detection);
        const face: FrameFace = {
          box: boxes[i],
          score: f.box.score,
          descriptor: null,
          descriptorVersion,
          signals: null,
        };
        const landmarked = !wanted[i]
          ? null
          : f.detection
            ? await this.landmarksOn(tensor, f.box, f.detection)
            : (await this.landmarked(tensor, [f.box], options.confirmedOnly))[0];
        if (landmarked && landmarked.box.width >= options.minFaceWidth) {
          face.descriptor = (
            await describeFaces(
              { tensor, rgb: data, width, height },
              [landmarked.landmarks],
              options.mirrored,
              chipKind(options),
            )
          )[0];
          face.signals = {
            ...landmarkSignals(landmarked.landmarks.positions),
            score: f.box.score,
            ...facePixelSignals(data, width, height, landmarked.box),
          };
        }
        out.push(face);
      }
      return out;
    } finally {
      tensor.dispose();
    }
  }

  /**
   * The detector's faces of a frame, in its pixels. face-api pads a frame to a square, then resizes
   * it to the tiny detector's input: resized first (same scale, so the same input but for the padding),
   * the frame costs a quarter of that.
   */
  private async tinyOnFrame(tensor: any, options: FaceAnalyzerOptions): Promise<any[]> {
    const [height, width] = tensor.shape;
    const scale = options.inputSize / Math.max(width, height);
    if (options.detector === 'ssd' || scale >= 1) return faceapi.detectAllFaces(tensor, this.detectorOptions(options));
    const small = faceapi.tf.image.resizeBilinear(tensor, [Math.round(height * scale), Math.round(width * scale)]);
    try {
      return (await faceapi.detectAllFaces(small, this.detectorOptions(options))).map((d: any) =>
        d.forSize(width, height),
      );
    } finally {
      small.dispose();
    }
  }

  /** The tiny detector's face landmarked as face-api's withFaceLandmarks does. */
  private async landmarksOn(tensor: any, box: PixelBox, detection: any): Promise<LandmarkedFace> {
    const [crop] = await faceapi.extractFaceTensors(tensor, [detection]);
    try {
      const landmarks = await faceapi.nets.faceLandmark68Net.detectLandmarks(crop);
      return { box, score: box.score, landmarks: landmarks.shiftBy(detection.box.x, detection.box.y) };
    } finally {
      crop.dispose();
    }
  }

  private detectorOptions(options: FaceAnalyzerOptions): unknown {
    return options.detector === 'ssd'
      ? new faceapi.SsdMobilenetv1Options({ minConfidence: options.scoreThreshold })
      : new faceapi.TinyFaceDetectorOptions({ inputSize: options.inputSize, scoreThreshold: options.scoreThreshold });
  }

  /** BlazeFace's faces that are none of `found` (whole frames only: a face cut by the frame is dropped); with `near`, only in the tiles holding those. */
  private async blazefaceUnseen(
    tensor: any,
    found: PixelBox[],
    options: FaceAnalyzerOptions,
    near?: Array<Omit<PixelBox, 'score'>>,
  ): Promise<PixelBox[]> {
    const [height, width] = tensor.shape;
    const tiles = near && options.squareTiles ? tilesHolding(squareTiles(width, height), near) : null;
    if (tiles?.length === 0) return [];
    // Loaded on first use: the selfie thread's analyzer never needs it.
    await this.blazeface.load(WASM_PATH);
    const whole = options.squareTiles
      ? await detectInTiles(this.blazeface, tensor, tiles ?? squareTiles(width, height))
      : (await this.blazeface.detect(tensor)).filter((b) => !cutByFrame(b, width, height));
    return addUnseen(
      found,
      whole.map((b) => clip(b, width, height)),
    );
  }

  /** Faces with their 68 landmarks: face-api's detector's, plus BlazeFace's unseen ones landmarked by face-api on their box. */
  private async locate(tensor: any, options: FaceAnalyzerOptions, people: PersonBox[]): Promise<LandmarkedFace[]> {
    const found: LandmarkedFace[] = (
      await faceapi.detectAllFaces(tensor, this.detectorOptions(options)).withFaceLandmarks()
    ).map((r: any) => ({
      box: { x: r.detection.box.x, y: r.detection.box.y, width: r.detection.box.width, height: r.detection.box.height },
      score: r.detection.score,
      landmarks: r.landmarks,
    }));
    const withBlazeFace =
      options.detector === 'tiny+blazeface'
        ? [
            ...found,
            ...(await this.landmarked(
              tensor,
              await this.blazefaceUnseen(
                tensor,
                found.map((f) => ({ ...f.box, score: f.score })),
                options,
              ),
              options.confirmedOnly,
            )),
          ]
        : found;
    return options.personHeads && people.length
      ? [...withBlazeFace, ...(await this.headFaces(tensor, withBlazeFace, people))]
      : withBlazeFace;
  }

  /** Faces in the heads of people without a face (head-regions.ts): small, partly hidden faces the whole-photo passes miss. */
  private async headFaces(tensor: any, found: LandmarkedFace[], people: PersonBox[]): Promise<LandmarkedFace[]> {
    const [height, width] = tensor.shape;
    const heads = await facesInRegions(
      tensor,
      headRegions(
        people,
        found.map((f) => f.box),
        width,
        height,
      ),
    );
    const unseen = addUnseen(
      found.map((f) => f.box),
      heads.map((h) => h.box),
    );
    return heads.filter((h) => unseen.includes(h.box)).map((h) => ({ ...h, secondDetector: true }));
  }

  /** BlazeFace's faces landmarked: refined by the tiny detector on a crop around each (refineFace), else landmarked on BlazeFace's box (dropped when `confirmedOnly`). */
  private async landmarked(tensor: any, boxes: PixelBox[], confirmedOnly: boolean): Promise<LandmarkedFace[]> {
    if (boxes.length === 0) return [];
    const out: LandmarkedFace[] = [];
    const unrefined: PixelBox[] = [];
    for (const box of boxes) {
      const refined = await refineFace(tensor, box, { ssdFallback: !confirmedOnly });
      if (refined) out.push({ box: refined.box, score: box.score, landmarks: refined.landmarks, secondDetector: true });
      else unrefined.push(box);
    }
    if (unrefined.length === 0 || confirmedOnly) return out;
    const crops = await faceapi.extractFaceTensors(
      tensor,
      unrefined.map((b) => new faceapi.Rect(b.x, b.y, b.width, b.height)),
    );
    try {
      for (let i = 0; i < crops.length; i++) {
        const landmarks = await faceapi.nets.faceLandmark68Net.detectLandmarks(crops[i]);
        out.push({
          box: unrefined[i],
          score: unrefined[i].score,
          landmarks: landmarks.shiftBy(unrefined[i].x, unrefined[i].y),
          secondDetector: true,
        });
      }
    } finally {
      for (const crop of crops) crop.dispose();
    }
    return out;
  }

  /** One call at a time (tfjs-wasm is single-threaded); urgent calls go before waiting normal ones. */
  private serialised<T>(priority: 'urgent' | 'normal', work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (priority === 'urgent' ? this.urgent : this.normal).push(() => {
        work()
          .then(resolve, reject)
          .finally(() => {
            this.running = false;
            this.next();
          });
      });
      this.next();
    });
  }

  private next(): void {
    if (this.running) return;
    const task = this.urgent.shift() ?? this.normal.shift();
    if (!task) return;
    this.running = true;
    task();
  }
}

/** Mirror-averaged faces get dlib's chip (versions 4-5) unless `options.chip` says otherwise; a single pass (version 1, a timing baseline only) keeps face-api's box. */
function chipKind(options: FaceAnalyzerOptions): ChipKind {
  return options.mirrored ? (options.chip ?? 'chip') : 'box';
}

function versionOf(options: FaceAnalyzerOptions, secondDetector: boolean): FaceDescriptorVersion {
  if (!options.mirrored) return 1;
  if (chipKind(options) === 'box')
    return secondDetector ? BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION : BOX_DESCRIPTOR_VERSION;
  return secondDetector ? SECOND_DETECTOR_DESCRIPTOR_VERSION : FACE_DESCRIPTOR_VERSION;
}

/** The largest box (the first of equals) picked, no other: the face a selfie search uses. */
function onlyTheLargest(boxes: FaceBox[]): boolean[] {
  const areas = boxes.map((b) => b.width * b.height);
  const largest = areas.indexOf(Math.max(...areas));
  return boxes.map((_, i) => i === largest);
}
