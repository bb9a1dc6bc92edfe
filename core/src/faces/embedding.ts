/** Face descriptors are 128 float32 values, stored little-endian in a bytea column. */
export const DESCRIPTOR_LENGTH = 128;

export function descriptorToBuffer(descriptor: ArrayLike<number>): Buffer {
  if (descriptor.length !== DESCRIPTOR_LENGTH) throw new Error(`a face descriptor has ${DESCRIPTOR_LENGTH} values, not ${descriptor.length}`);
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
 * Euclidean distance of two descriptors to a similarity percentage: 100 at 0.35, 62 at 0.54 (the
 * default match threshold), 0 at 0.85 and beyond (a typical other person). Measured on the face
 * fixtures: see docs/research/faces-tfjs-wasm.md.
 */
export function similarityPercent(distance: number): number {
  return Math.round(100 * Math.max(0, Math.min(1, (0.85 - distance) / 0.5)));
}

/**
 * The match threshold when an event configures none: 62% (euclidean 0.54). On the face fixtures the
 * nearest pair of different people is at 0.546 and recall is 0.90 (bench/results.md).
 */
export const DEFAULT_MATCH_PERCENT = 62;

/** The match threshold a search applies (and reports): the event's, or the default when it configures none. */
export function appliedMatchPercent(configured: number | null | undefined): number {
  return configured ?? DEFAULT_MATCH_PERCENT;
}

/** The euclidean distance a similarity percentage stands for (the inverse of similarityPercent). */
export function percentToDistance(percent: number): number {
  return 0.85 - 0.5 * (Math.max(0, Math.min(100, percent)) / 100);
}
