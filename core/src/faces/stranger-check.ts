import { descriptorDistance } from './embedding';
import { FaceMatrix } from './face-matrix';

/**
 * A match farther than this from the selfie is checked against the strangers around it
 * (nearerToStranger); nearer ones are sure. On the face fixtures every wrong-person match of the
 * harder set was beyond 0.53, and checking from 0.45 or 0.50 gave the same results.
 */
export const STRANGER_CHECK_FROM = 0.45;
/** A face this far from the selfie is surely someone else (a typical other person is at 0.85; the default threshold is 0.56). */
export const STRANGER_DISTANCE = 0.7;
/** How many of the candidate's neighbours are looked at. */
const NEIGHBOURS = 32;

/**
 * Whether the indexed face at `row`, `distance` from the selfie, lies nearer to a face that is surely
 * someone else (farther than STRANGER_DISTANCE from the selfie) than to the selfie: then it is more
 * likely that stranger's face seen badly (a look-alike, a turned or squeezed face) than the selfie's
 * person. `sameOwner(a, b)` says two rows are faces of one photo (or one video track): never
 * evidence against each other. It removes look-alike matches at the cost of very few right ones
 * (docs/benchmarks.md, "Face quality, stranger check").
 */
export function nearerToStranger(
  matrix: FaceMatrix,
  query: Float32Array,
  row: number,
  distance: number,
  sameOwner: (a: number, b: number) => boolean,
  ignore: (row: number) => boolean = () => false,
): boolean {
  if (distance <= STRANGER_CHECK_FROM) return false;
  for (const neighbour of matrix.within(matrix.row(row), distance, NEIGHBOURS)) {
    if (neighbour.row === row || sameOwner(row, neighbour.row) || ignore(neighbour.row)) continue;
    if (descriptorDistance(query, matrix.row(neighbour.row)) > STRANGER_DISTANCE) return true;
  }
  return false;
}
