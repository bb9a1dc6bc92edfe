/** Face descriptors are 128 float32 values, stored little-endian in a bytea column. */
export const DESCRIPTOR_LENGTH = 128;

export function descriptorToBuffer(descriptor: ArrayLike<number>): Buffer {
  if (descriptor.length !== DESCRIPTOR_LENGTH)
    throw new Error(`a face descriptor has ${DESCRIPTOR_LENGTH} values, not ${descriptor.length}`);
  const buf = Buffer.alloc(DESCRIPTOR_LENGTH * 4);
  for (let i = 0; i < DESCRIPTOR_LENGTH; i++) buf.writeFloatLE(descriptor[i], i * 4);
  return buf;
}

export function bufferToDescriptor(buf: Buffer): Float32Array {
  const out = new Float32Array(DESCRIPTOR_LENGTH);
  for (let i = 0; i < DESCRIPTOR_LENGTH; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

/**
 * How a stored face descriptor was computed; each version has its own calibration (maxDistanceFor).
 * Two families, never compared with each other (their chips differ, so their distances do):
 * - the box family (1-3): face-api's alignment, an axis-aligned box from the eyes and mouth.
 *   1: one pass of the recognition net. 2: the mean of the face's and its mirror image's
 *   descriptors (same-person distances shorter, so version 1 rows are matched more strictly).
 *   3: as 2, the face found by the second detector only (matched more strictly).
 * - the chip family (4-5): dlib's own face chip (the landmarks' similarity transform onto dlib's mean
 *   face: the eyes levelled; ml-worker face-chip.ts), mirror-averaged. 4: the current version.
 *   5: as 4, the face found by the second detector only (BlazeFace or a person's head).
 * A re-processed photo or video is re-embedded at the current version; until every face of an event
 * is, a selfie is described in both families (SelfieDescriptors).
 */
export const FACE_DESCRIPTOR_VERSION = 4;
/** Version 5: computed as version 4, but found by the second detector only (turned, partly hidden, dark faces the tiny detector misses). */
export const SECOND_DETECTOR_DESCRIPTOR_VERSION = 5;
/** The box family's mirror-averaged version (what selfies of the box family are) and its second-detector version. */
export const BOX_DESCRIPTOR_VERSION = 2;
export const BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION = 3;
export type FaceDescriptorVersion = 1 | 2 | 3 | 4 | 5;
export type DescriptorFamily = 'chip' | 'box';

/** Which family a stored descriptor belongs to: descriptors of different families are never compared. */
export function descriptorFamily(version: number): DescriptorFamily {
  return version >= FACE_DESCRIPTOR_VERSION ? 'chip' : 'box';
}

/**
 * A selfie's descriptors, one per family: `chip` is compared with faces of versions 4-5 only,
 * `box` with faces of versions 1-3 only (stored before version 4; null when not computed, e.g. a
 * face search stored before version 4 has only `box`).
 */
export interface SelfieDescriptors {
  chip: Float32Array | null;
  box: Float32Array | null;
}

/**
 * A selfie's descriptors as stored with its search: the chip family's then the box family's, 1024
 * bytes (the box half all zero when it was not computed: no face gives the zero descriptor); 512
 * bytes is a box descriptor stored before version 4.
 */
export function selfieDescriptorsToBuffer(descriptors: SelfieDescriptors): Buffer | null {
  if (!descriptors.chip) return descriptors.box ? descriptorToBuffer(descriptors.box) : null;
  return Buffer.concat([
    descriptorToBuffer(descriptors.chip),
    descriptors.box ? descriptorToBuffer(descriptors.box) : Buffer.alloc(DESCRIPTOR_LENGTH * 4),
  ]);
}

export function bufferToSelfieDescriptors(buf: Buffer | null | undefined): SelfieDescriptors | null {
  if (!buf) return null;
  const size = DESCRIPTOR_LENGTH * 4;
  if (buf.length === size) return { chip: null, box: bufferToDescriptor(buf) };
  if (buf.length === 2 * size) {
    const box = buf.subarray(size);
    return {
      chip: bufferToDescriptor(buf.subarray(0, size)),
      box: box.some((byte) => byte !== 0) ? bufferToDescriptor(box) : null,
    };
  }
  throw new Error(`a stored selfie embedding has ${size} or ${2 * size} bytes, not ${buf.length}`);
}

/**
 * How much nearer than the threshold's distance a version-1 face must be: the default threshold
 * moved from euclidean 0.54 to 0.56 with version 2, and version-1 faces keep their old calibration
 * (at 0.56 they gave a wrong-person match on the face fixtures, version-2 faces none up to 0.572).
 */
const VERSION_1_DISTANCE_SHIFT = 0.02;
/** How much nearer a face found by the second detector only (version 3) must be: 0.56 -> 0.52 at the default threshold. */
const SECOND_DETECTOR_DISTANCE_SHIFT = 0.04;
/**
 * How much farther the chip family (versions 4-5) matches than the box family at the same threshold:
 * its same-person distances are shorter and its nearest wrong person farther (0.58 chosen on held-out
 * halves with the race photos as strangers: docs/benchmarks.md, "Face chip, descriptor version 4").
 */
export const CHIP_DISTANCE_SHIFT = 0.02;

/**
 * How much farther than the threshold's distance a face of quality 1 (frontal, sharp, large:
 * faceQuality) may be; a face of quality q gets q times as much, one stored without a quality none.
 * It finds the last same-person pairs of frontal faces; without the stranger check it would let a
 * look-alike in, so it is never used without it (EventFaceIndex.search; docs/benchmarks.md).
 */
export const QUALITY_DISTANCE_BONUS = 0.005;

/** The distance within which a face of this descriptor version (and quality, when measured) matches, for a threshold's distance. */
export function maxDistanceFor(version: number, maxDistance: number, quality: number | null = null): number {
  const bonus = QUALITY_DISTANCE_BONUS * Math.max(0, Math.min(1, quality ?? 0));
  if (version === FACE_DESCRIPTOR_VERSION) return maxDistance + CHIP_DISTANCE_SHIFT + bonus;
  if (version === SECOND_DETECTOR_DESCRIPTOR_VERSION)
    return maxDistance + CHIP_DISTANCE_SHIFT - SECOND_DETECTOR_DISTANCE_SHIFT + bonus;
  if (version === BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION) return maxDistance - SECOND_DETECTOR_DISTANCE_SHIFT + bonus;
  return version >= 2 ? maxDistance + bonus : maxDistance - VERSION_1_DISTANCE_SHIFT;
}

/** The farthest any face may match at a threshold's distance (what an index search first asks its matrix for). */
export function widestDistanceFor(maxDistance: number): number {
  return maxDistance + CHIP_DISTANCE_SHIFT + QUALITY_DISTANCE_BONUS;
}

/**
 * Euclidean distance of two descriptors to a similarity percentage: 100 at 0.35, 58 at 0.56 (the
 * default match threshold), 0 at 0.85 and beyond (a typical other person). Measured on the face
 * fixtures: see docs/research/faces-tfjs-wasm.md.
 */
export function similarityPercent(distance: number): number {
  return Math.round(100 * Math.max(0, Math.min(1, (0.85 - distance) / 0.5)));
}

/**
 * The match threshold when an event configures none: 58% (euclidean 0.56). On the face fixtures,
 * with mirror-averaged (version 2) photo faces, the nearest pair of different people is at 0.573
 * (bench/results.md); version-1 faces are matched as they were at 62% (maxDistanceFor).
 */
export const DEFAULT_MATCH_PERCENT = 58;

/** The match threshold a search applies (and reports): the event's, or the default when it configures none. */
export function appliedMatchPercent(configured: number | null | undefined): number {
  return configured ?? DEFAULT_MATCH_PERCENT;
}

/** The euclidean distance a similarity percentage stands for (the inverse of similarityPercent). */
export function percentToDistance(percent: number): number {
  return 0.85 - 0.5 * (Math.max(0, Math.min(100, percent)) / 100);
}

/** Euclidean distance between two face descriptors (what every threshold here is expressed in). */
export function descriptorDistance(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}
