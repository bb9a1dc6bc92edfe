import {
  BOX_DESCRIPTOR_VERSION,
  BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION,
  DEFAULT_MATCH_PERCENT,
  FACE_DESCRIPTOR_VERSION,
  FaceMatrix,
  maxDistanceFor,
  nearerToStranger,
  openImage,
  percentToDistance,
  QUALITY_DISTANCE_BONUS,
  SECOND_DETECTOR_DESCRIPTOR_VERSION,
} from '@em/core/media';
import {
  CHIP_PADDING,
  chipTransform,
  DetectedFace,
  FaceAnalyzer,
  FaceAnalyzerOptions,
  meanFaceOnChip,
  OCR_MAX_SIDE,
  PersonBox,
  PersonDetector,
  PHOTO_FACE_OPTIONS,
  RgbPixels,
  sampleChip,
} from '@em/ml-worker';
import { faceQuality, renderPreviews } from '@em/ml-worker';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { GROUP_FACES } from './faces-ground-truth';
import { hardFaceSet } from './faces-hard-set';
import { BenchRow, ms } from './table';

interface IndexedPhoto {
  name: string;
  /** crop, group, or the hard set's kind of photo. */
  kind: string;
  people: Set<string>;
  /** The crop a hard photo was made from: never counted for that crop's own selfie. */
  source?: string;
}

/** How photos of the event are analysed: the worker's options, named for the bench table. */
export interface PhotoPath {
  label: string;
  options: FaceAnalyzerOptions;
  /** The people of each photo, as the worker's BIB step finds them (for `options.personHeads`). */
  persons?: PersonDetector;
  /** Faces on the large preview's pixels before JPEG encoding instead of on its JPEG, as the worker finds them (measured, not adopted: docs/benchmarks.md). */
  onPixels?: boolean;
}

/** The people on a photo as the BIB step finds them: on the oriented photo, at most OCR_MAX_SIDE. */
async function peopleOn(persons: PersonDetector | undefined, image: Buffer): Promise<PersonBox[]> {
  if (!persons) return [];
  const { data, info } = await openImage(image)
    .rotate()
    .resize(OCR_MAX_SIDE, OCR_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return persons.detect({ data, width: info.width, height: info.height });
}

/**
 * Selfie search accuracy on ../shared/fixtures/faces: each crop is a selfie (through the worker's
 * selfie path) against an event made of every other crop, the group shots and the harder set made
 * from the crops (faces found as the worker finds them on photos with `photoPath`), at the default
 * threshold. Also: the distance of the nearest wrong-person photo (the margin of the threshold) and
 * the CPU time of indexing.
 */
export async function selfieAccuracy(
  rows: BenchRow[],
  faces: FaceAnalyzer,
  fixtures: string,
  photoPath: PhotoPath = { label: 'photo path', options: PHOTO_FACE_OPTIONS },
): Promise<void> {
  const dir = path.join(fixtures, 'faces');
  if (!existsSync(path.join(dir, 'group'))) {
    rows.push({
      figure: 'selfie search recall / wrong matches',
      value: 'skipped',
      target: 'recall >= 0.97, 0 wrong',
      how: '../shared/fixtures/faces is absent',
    });
    return;
  }
  const people = readdirSync(dir)
    .filter((p) => p !== 'group' && !p.startsWith('.'))
    .sort();
  const boxChip = photoPath.options.chip === 'box';
  const photos: IndexedPhoto[] = [];
  const matrix = new FaceMatrix();
  const rowPhoto: number[] = [];
  /** Descriptor version of each row (crops: the selfie path's, always the current one). */
  const rowVersion: number[] = [];
  /** Quality of each row (faceQuality), as the worker stores it. */
  const rowQuality: Array<number | null> = [];
  const cropRow = new Map<string, number>();
  const embedMs: number[] = [];
  const selfies = new Map<string, Float32Array | null>();
  const crops: Array<{ person: string; name: string; image: Buffer }> = [];

  for (const person of people) {
    for (const file of readdirSync(path.join(dir, person))
      .filter((f) => /\.(png|jpe?g)$/i.test(f))
      .sort()) {
      const name = `${person}/${file}`;
      const image = readFileSync(path.join(dir, person, file));
      crops.push({ person, name, image });
      const t = process.hrtime.bigint();
      const selfie = await faces.embedSelfie(image);
      embedMs.push(ms(t));
      // The photo path's chip decides the family: dlib's (version 4) as the worker now, or face-api's box (version 2, before).
      const descriptor = boxChip ? (selfie.boxDescriptor ?? null) : selfie.descriptor;
      const quality = selfie.quality;
      selfies.set(name, descriptor);
      // As a photo of the event, a crop holds the one face found on it, described as photo faces are
      // (mirror-averaged, descriptor version 4, or 2 before: the same computation as the selfie's).
      const asPhoto = descriptor;
      if (asPhoto) {
        cropRow.set(name, matrix.add(asPhoto));
        rowVersion.push(boxChip ? BOX_DESCRIPTOR_VERSION : FACE_DESCRIPTOR_VERSION);
        rowQuality.push(quality ?? null);
        rowPhoto.push(photos.push({ name, kind: 'crop', people: new Set([person]) }) - 1);
      }
    }
  }
  let groupFaces = 0;
  let cpuMsTotal = 0;
  const detect = async (image: Buffer, analysed: Buffer | RgbPixels) => {
    const people = await peopleOn(photoPath.persons, image); // the BIB step's work, not counted here
    const cpu = process.cpuUsage();
    const found = Buffer.isBuffer(analysed)
      ? await faces.detectAll(analysed, photoPath.options, people)
      : await faces.detectAllPixels(analysed, photoPath.options, people);
    cpuMsTotal += cpuMs(cpu);
    return found;
  };
  /** What the worker analyses of a photo: its large preview's JPEG without watermark (or its pixels before encoding). */
  const previewOf = async (original: Buffer) => {
    const { plainLarge, largePixels } = await renderPreviews(original);
    return photoPath.onPixels ? largePixels : plainLarge.buffer;
  };
  /** Adds a photo's faces to the index as the search subgraph holds them; how many. */
  const indexFaces = (photo: number, found: DetectedFace[]): number => {
    for (const face of found) {
      matrix.add(face.descriptor);
      rowPhoto.push(photo);
      rowVersion.push(face.descriptorVersion);
      rowQuality.push(faceQuality(face.signals));
    }
    return found.length;
  };
  for (const [shot, labels] of Object.entries(GROUP_FACES)) {
    const original = readFileSync(path.join(dir, 'group', shot));
    const photo = photos.push({ name: shot, kind: 'group', people: new Set(labels.map(([p]) => p)) }) - 1;
    groupFaces += indexFaces(photo, await detect(original, await previewOf(original)));
  }
  const groupCpu = cpuMsTotal / Object.keys(GROUP_FACES).length;
  // The race photos hold none of the eight people: every face found there is a stranger to every selfie.
  let strangerFaces = 0;
  cpuMsTotal = 0;
  const race = raceOriginals(fixtures);
  for (const { name, image } of race) {
    const photo = photos.push({ name, kind: 'race', people: new Set() }) - 1;
    strangerFaces += indexFaces(photo, await detect(image, await previewOf(image)));
  }
  const raceCpu = race.length ? cpuMsTotal / race.length : NaN;
  const hard = await hardFaceSet(crops);
  // Hard photos are analysed as they are (JPEG, at most 1920 px): their decoded pixels, the same either way.
  for (const h of hard) {
    const photo =
      photos.push({ name: `${h.kind}:${h.source}`, kind: h.kind, people: new Set([h.person]), source: h.source }) - 1;
    indexFaces(photo, await detect(h.image, h.image));
  }

  const maxDistance = percentToDistance(DEFAULT_MATCH_PERCENT);
  const found = new Map<string, number>();
  const relevant = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  let wrong = 0;
  let wrongHard = 0;
  let wrongRace = 0;
  const wrongRaceSeen: string[] = [];
  let nearestWrong = Infinity;
  let noFace = 0;
  let strangerDropped = 0;
  // A held-out view: the people in two halves (alternate names), each half's selfies counted apart.
  const halves = [0, 1].map(() => ({ found: 0, relevant: 0, wrong: 0 }));
  for (const [name, descriptor] of selfies) {
    const person = name.split('/')[0];
    const half = halves[people.indexOf(person) % 2];
    const candidates = photos.filter((p) => !(p.kind === 'crop' && p.name === name) && p.source !== name);
    for (const p of candidates) {
      if (p.people.has(person) && (p.kind !== 'crop' || cropRow.has(p.name))) {
        bump(relevant, p.kind);
        if (p.kind === 'crop' || p.kind === 'group') half.relevant++;
      }
    }
    if (!descriptor) {
      noFace++;
      continue;
    }
    // As EventFaceIndex.search: the selfie's own crop and the photos made from it are not in its event.
    const absent = (row: number) => row === cropRow.get(name) || photos[rowPhoto[row]].source === name;
    const hits = matrix.within(descriptor, 2, matrix.size).filter((h) => !absent(h.row));
    // A row's distance as the index weighs it: rows matched more strictly (maxDistanceFor) count as farther,
    // and a row nearer to someone surely else than to the selfie (nearerToStranger) as no match.
    const nearest = new Map<number, number>();
    for (const h of hits) {
      const limit = maxDistanceFor(rowVersion[h.row], maxDistance, rowQuality[h.row]);
      if (
        h.distance <= limit &&
        nearerToStranger(matrix, descriptor, h.row, h.distance, (a, b) => rowPhoto[a] === rowPhoto[b], absent)
      ) {
        strangerDropped++;
        continue;
      }
      const weighed = h.distance + maxDistance - limit;
      nearest.set(rowPhoto[h.row], Math.min(nearest.get(rowPhoto[h.row]) ?? Infinity, weighed));
    }
    for (const [i, distance] of nearest) {
      const p = photos[i];
      if (p.source === name) continue;
      if (!p.people.has(person)) nearestWrong = Math.min(nearestWrong, distance);
      if (distance > maxDistance) continue;
      if (p.people.has(person)) {
        bump(found, p.kind);
        if (p.kind === 'crop' || p.kind === 'group') half.found++;
        continue;
      }
      half.wrong++;
      if (p.kind === 'crop' || p.kind === 'group') wrong++;
      else if (p.kind === 'race') {
        wrongRace++;
        wrongRaceSeen.push(`${name} on ${p.name} at ${distance.toFixed(3)}`);
      } else wrongHard++;
    }
  }
  const rate = (kinds: string[]) =>
    kinds.reduce((s, k) => s + (found.get(k) ?? 0), 0) / kinds.reduce((s, k) => s + (relevant.get(k) ?? 0), 0);
  const hardKinds = [...new Set(hard.map((h) => h.kind))];
  rows.push({
    figure: `race photos as strangers: faces / wrong-person photos / CPU per race photo (${photoPath.label})`,
    value: `${strangerFaces} / ${wrongRace}${wrongRaceSeen.length ? ` (${wrongRaceSeen.join('; ')})` : ''} / ${raceCpu.toFixed(0)} ms`,
    target: '0 wrong',
    how: `the ${race.length} race photos of ../shared/fixtures/bibs in the event (none of the eight people is on them): every face found there (large preview${photoPath.onPixels ? "'s pixels" : ' JPEG'}, ${describeOptions(photoPath.options)}) is a wrong match for every selfie; CPU of the face step only (the people come from the BIB step)`,
  });
  rows.push({
    figure: `selfie search recall / wrong-person photos (${photoPath.label})`,
    value: `${rate(['crop', 'group']).toFixed(3)} (crops ${rate(['crop']).toFixed(2)}, group shots ${rate(['group']).toFixed(2)}) / ${wrong}`,
    target: 'recall >= 0.97, 0 wrong',
    how: `${selfies.size} crops of ${people.length} people each as a selfie against the other crops and the 5 group shots, threshold ${DEFAULT_MATCH_PERCENT}% (euclidean ${maxDistance.toFixed(3)}: faces of descriptor version ${boxChip ? `${BOX_DESCRIPTOR_VERSION} within ${maxDistanceFor(BOX_DESCRIPTOR_VERSION, maxDistance).toFixed(3)}, ${BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION} within ${maxDistanceFor(BOX_SECOND_DETECTOR_DESCRIPTOR_VERSION, maxDistance).toFixed(3)}` : `${FACE_DESCRIPTOR_VERSION} within ${maxDistanceFor(FACE_DESCRIPTOR_VERSION, maxDistance).toFixed(3)}, ${SECOND_DETECTOR_DESCRIPTOR_VERSION} within ${maxDistanceFor(SECOND_DETECTOR_DESCRIPTOR_VERSION, maxDistance).toFixed(3)}`}, plus up to ${QUALITY_DISTANCE_BONUS} by quality); photo level; ${noFace} selfies without a face; wrong-person photos among them`,
  });
  rows.push({
    figure: `selfie search by halves of the people: recall / wrong-person photos, half A; half B (${photoPath.label})`,
    value: halves.map((h) => `${(h.found / h.relevant).toFixed(3)} / ${h.wrong}`).join('; '),
    target: 'both >= 0.97, 0 wrong',
    how: `the ${people.length} people in two halves (alternate names: A ${people.filter((_, i) => i % 2 === 0).join(', ')}; B the others), each half's selfies counted apart (crops and group shots found; wrong photos of any kind, race and harder set included). The version 4 chip's padding and threshold were picked by a rule on one half of a split and checked on the other (docs/benchmarks.md)`,
  });
  rows.push({
    figure: `harder face set recall (${photoPath.label})`,
    value: `${rate(hardKinds).toFixed(3)} (${hardKinds.map((k) => `${k} ${rate([k]).toFixed(2)}`).join(', ')}) / ${wrongHard}`,
    target: 'recall >= 0.97 (unseen photos), 0 wrong',
    how: `${hard.length} photos made from the crops (scripts/bench/src/faces-hard-set.ts), each searched by the selfies of the person's other crops, same threshold; then the wrong-person hard photos found. Matched as EventFaceIndex matches: each face's limit by descriptor version and quality (up to +${QUALITY_DISTANCE_BONUS} for quality 1), faces nearer to a surely-other face than to the selfie dropped (${strangerDropped} face matches dropped so, over every selfie)`,
  });
  rows.push({
    figure: `nearest wrong-person photo / margin to the threshold (${photoPath.label})`,
    value: `${nearestWrong.toFixed(3)} / ${(nearestWrong - maxDistance).toFixed(3)}`,
    target: '> 0',
    how: 'smallest euclidean distance from a selfie to a photo without that person (crops, group shots, hard set), faces matched more strictly (maxDistanceFor) counted that much farther',
  });
  rows.push({
    figure: `faces found on the group shots / CPU per group shot (${photoPath.label})`,
    value: `${groupFaces} / ${groupCpu.toFixed(0)} ms`,
    target: '23 (hand count)',
    how: `large preview${photoPath.onPixels ? "'s pixels" : ' JPEG'}, ${describeOptions(photoPath.options)}; process CPU time (user + system)`,
  });
  rows.push({
    figure: 'selfie embedding time',
    value: `median ${median(embedMs).toFixed(0)} ms, p95 ${percentile(embedMs, 0.95).toFixed(0)} ms`,
    target: '',
    how: 'ml-worker selfie path: 25% margin, tiny detector 224 (SSD when it finds nothing), landmarks, descriptor of the aligned face and of its mirror image (mean); warm models',
  });
}

function describeOptions(o: FaceAnalyzerOptions): string {
  return `${o.detector} detector${o.detector === 'ssd' ? '' : ` ${o.inputSize}`}, >= ${o.minFaceWidth} px${o.personHeads ? ', heads of the people without a face looked at again' : ''}`;
}

function raceOriginals(fixtures: string): Array<{ name: string; image: Buffer }> {
  const dir = path.join(fixtures, 'bibs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /\.jpe?g$/i.test(f))
    .sort()
    .map((name) => ({ name, image: readFileSync(path.join(dir, name)) }));
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
}

/** CPU of dlib's face chip (descriptor version 4) per face: the landmarks' similarity fit and the bilinear 150x150 sampling, in JS. */
export function chipCost(rows: BenchRow[]): void {
  const width = 2048;
  const height = 1365;
  const rgb = new Uint8Array(width * height * 3).map((_, i) => (i * 2654435761) >>> 24);
  // A tilted face of ~300 px somewhere on the photo: the mean face scaled 2x, turned 12 degrees.
  const angle = (12 * Math.PI) / 180;
  const landmarks = [
    ...Array.from({ length: 17 }, () => ({ x: 0, y: 0 })),
    ...meanFaceOnChip().map((p) => ({
      x: 2 * (Math.cos(angle) * p.x - Math.sin(angle) * p.y) + 900,
      y: 2 * (Math.sin(angle) * p.x + Math.cos(angle) * p.y) + 500,
    })),
  ];
  const n = 500;
  let sink = 0;
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) sink += sampleChip(rgb, width, height, chipTransform(landmarks))[i];
  const perChip = cpuMs(cpu) / n;
  if (Number.isNaN(sink)) throw new Error('unreachable: keeps the chips alive');
  rows.push({
    figure: 'face chip (descriptor version 4): CPU per face',
    value: `${perChip.toFixed(2)} ms`,
    target: '<= 2 ms',
    how: `${n} chips of a tilted face on a 2048x1365 raw RGB photo: similarity fit of landmarks 17-67 onto dlib's mean face (padding ${CHIP_PADDING}) and bilinear 150x150x3 sampling (ml-worker face-chip.ts); process CPU; it replaces face-api's box crop (slice, pad, resize), not measured apart`,
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
