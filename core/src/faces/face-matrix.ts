import { DESCRIPTOR_LENGTH } from './embedding';

type ExactSearch = (
  dataset: Float32Array,
  query: Float32Array,
  dimensions: number,
  count: number,
  metric: 'l2sq',
) => { keys: BigUint64Array; distances: Float32Array };

/** usearch's SIMD exact search when its prebuilt binary loads on this platform; a plain loop otherwise. */
const nativeExactSearch: ExactSearch | null = (() => {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('usearch') as { exactSearch: ExactSearch }).exactSearch;
  } catch {
    return null;
  }
})();

export interface RowMatch {
  row: number;
  /** Euclidean distance. */
  distance: number;
}

/**
 * Face descriptors in one growing Float32Array (row = one face), searched exactly: every row whose
 * euclidean distance to the query is within the limit, nearest first. 250k faces take ~10 ms.
 */
export class FaceMatrix {
  private data: Float32Array;
  private rows = 0;

  constructor(initialCapacity = 1024) {
    this.data = new Float32Array(Math.max(1, initialCapacity) * DESCRIPTOR_LENGTH);
  }

  get size(): number {
    return this.rows;
  }

  static get engine(): 'usearch' | 'loop' {
    return nativeExactSearch ? 'usearch' : 'loop';
  }

  /** Appends one descriptor and returns its row. */
  add(descriptor: Float32Array): number {
    if (descriptor.length !== DESCRIPTOR_LENGTH) throw new Error(`a face descriptor has ${DESCRIPTOR_LENGTH} values`);
    if ((this.rows + 1) * DESCRIPTOR_LENGTH > this.data.length) {
      const grown = new Float32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(descriptor, this.rows * DESCRIPTOR_LENGTH);
    return this.rows++;
  }

  /** A copy of a row's descriptor (a copy: usearch reads a view's buffer from its start). */
  row(row: number): Float32Array {
    if (row < 0 || row >= this.rows) throw new Error(`no face row ${row}`);
    return this.data.slice(row * DESCRIPTOR_LENGTH, (row + 1) * DESCRIPTOR_LENGTH);
  }

  /** Rows within `maxDistance` of the query, nearest first, at most `limit` of them. */
  within(query: Float32Array, maxDistance: number, limit: number): RowMatch[] {
    if (this.rows === 0) return [];
    const maxSquared = maxDistance * maxDistance;
    const dataset = this.data.subarray(0, this.rows * DESCRIPTOR_LENGTH);
    const out: RowMatch[] = [];
    if (nativeExactSearch) {
      const found = nativeExactSearch(dataset, query, DESCRIPTOR_LENGTH, Math.min(this.rows, limit), 'l2sq');
      for (let i = 0; i < found.keys.length; i++) {
        if (found.distances[i] > maxSquared) break;
        out.push({ row: Number(found.keys[i]), distance: Math.sqrt(found.distances[i]) });
      }
      return out;
    }
    for (let row = 0, offset = 0; row < this.rows; row++, offset += DESCRIPTOR_LENGTH) {
      let sum = 0;
      for (let j = 0; j < DESCRIPTOR_LENGTH && sum <= maxSquared; j++) {
        const d = dataset[offset + j] - query[j];
        sum += d * d;
      }
      if (sum <= maxSquared) out.push({ row, distance: Math.sqrt(sum) });
    }
    out.sort((a, b) => a.distance - b.distance || a.row - b.row);
    return out.slice(0, limit);
  }
}
