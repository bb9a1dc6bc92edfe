import { DEFAULT_MATCH_PERCENT, FaceMatrix, percentToDistance, renderPreviews } from '@em/core/media';
import { FaceAnalyzer } from '@em/ml-worker';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GROUP_FACES } from './faces-ground-truth';
import { BenchRow, ms } from './table';

interface IndexedPhoto {
  name: string;
  kind: 'crop' | 'group';
  people: Set<string>;
}

/**
 * Selfie search accuracy on ../shared/fixtures/faces: each crop is a selfie (through the worker's
 * selfie path) against an event made of every other crop and the group shots (faces found as the
 * worker finds them on photos), at the default threshold.
 */
export async function selfieAccuracy(rows: BenchRow[], faces: FaceAnalyzer, fixtures: string): Promise<void> {
  const dir = path.join(fixtures, 'faces');
  if (!existsSync(path.join(dir, 'group'))) {
    rows.push({ figure: 'selfie search recall / wrong matches', value: 'skipped', target: 'recall >= 0.97, 0 wrong', how: '../shared/fixtures/faces is absent' });
    return;
  }
  const people = readdirSync(dir).filter((p) => p !== 'group' && !p.startsWith('.')).sort();
  const photos: IndexedPhoto[] = [];
  const matrix = new FaceMatrix();
  const rowPhoto: number[] = [];
  const cropRow = new Map<string, number>();
  const embedMs: number[] = [];
  const selfies = new Map<string, Float32Array | null>();

  for (const person of people) {
    for (const file of readdirSync(path.join(dir, person)).filter((f) => /\.(png|jpe?g)$/i.test(f)).sort()) {
      const name = `${person}/${file}`;
      const image = readFileSync(path.join(dir, person, file));
      const t = process.hrtime.bigint();
      const { descriptor } = await faces.embedSelfie(image);
      embedMs.push(ms(t));
      selfies.set(name, descriptor);
      // As a photo of the event, a crop holds the one face found on it, described as photo faces are
      // (mirror-averaged, descriptor version 2: the same computation as the selfie's).
      const asPhoto = descriptor;
      if (asPhoto) {
        cropRow.set(name, matrix.add(asPhoto));
        rowPhoto.push(photos.push({ name, kind: 'crop', people: new Set([person]) }) - 1);
      }
    }
  }
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const { plainLarge } = await renderPreviews(readFileSync(path.join(dir, 'group', shot)));
    const photo = photos.push({ name: shot, kind: 'group', people: new Set(labels.map(([p]) => p)) }) - 1;
    for (const face of await faces.detectAll(plainLarge.buffer)) {
      matrix.add(face.descriptor);
      rowPhoto.push(photo);
    }
  }

  const maxDistance = percentToDistance(DEFAULT_MATCH_PERCENT);
  const searchMs: number[] = [];
  const found = { crop: 0, group: 0 };
  const relevant = { crop: 0, group: 0 };
  let wrong = 0;
  let noFace = 0;
  for (const [name, descriptor] of selfies) {
    const person = name.split('/')[0];
    const expected = photos.filter((p, i) => p.people.has(person) && !(p.kind === 'crop' && p.name === name) && (p.kind === 'group' || rowPhoto.includes(i)));
    for (const p of expected) relevant[p.kind]++;
    if (!descriptor) {
      noFace++;
      continue;
    }
    const t = process.hrtime.bigint();
    const hits = matrix.within(descriptor, maxDistance, matrix.size).filter((h) => h.row !== cropRow.get(name));
    searchMs.push(ms(t));
    const photosFound = new Set(hits.map((h) => rowPhoto[h.row]));
    for (const i of photosFound) {
      const p = photos[i];
      if (p.people.has(person)) found[p.kind]++;
      else wrong++;
    }
  }
  const recall = (found.crop + found.group) / (relevant.crop + relevant.group);
  rows.push({
    figure: 'selfie search recall / wrong-person photos',
    value: `${recall.toFixed(3)} (crops ${(found.crop / relevant.crop).toFixed(2)}, group shots ${(found.group / relevant.group).toFixed(2)}) / ${wrong}`,
    target: 'recall >= 0.97, 0 wrong',
    how: `${selfies.size} crops of ${people.length} people each as a selfie against the ${photos.length - 1} other photos (crops + 5 group shots), threshold ${DEFAULT_MATCH_PERCENT}% (euclidean ${maxDistance.toFixed(2)}); photo level; ${noFace} selfies without a face`,
  });
  rows.push({
    figure: 'selfie embedding time',
    value: `median ${median(embedMs).toFixed(0)} ms, p95 ${percentile(embedMs, 0.95).toFixed(0)} ms`,
    target: '',
    how: 'ml-worker selfie path: 25% margin, tiny detector 224 (SSD when it finds nothing), landmarks, descriptor of the aligned face and of its mirror image (mean); warm models',
  });
}

/** Exact search time over synthetic indexes of real-looking size, apart from embedding. */
export async function searchLatency(rows: BenchRow[]): Promise<void> {
  const sizes = [10_000, 100_000, 250_000];
  const results: string[] = [];
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const vector = () => Float32Array.from({ length: 128 }, () => (random() - 0.5) * 0.18);
  const matrix = new FaceMatrix(sizes[sizes.length - 1]);
  const maxDistance = percentToDistance(DEFAULT_MATCH_PERCENT);
  for (const size of sizes) {
    while (matrix.size < size) matrix.add(vector());
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const query = vector();
      const t = process.hrtime.bigint();
      matrix.within(query, maxDistance, 20_000);
      times.push(ms(t));
    }
    results.push(`${size / 1000}k: ${median(times).toFixed(1)} ms (p95 ${percentile(times, 0.95).toFixed(1)})`);
  }
  rows.push({
    figure: 'face index search time (median, p95)',
    value: results.join('; '),
    target: '<= 30 ms at 250k',
    how: `exact euclidean search (${FaceMatrix.engine}) of one selfie descriptor over N indexed faces, 30 queries each, without embedding; random 128-d descriptors`,
  });
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
