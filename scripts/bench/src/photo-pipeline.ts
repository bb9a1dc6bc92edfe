import { renderPreviews } from '@em/core/media';
import { BibReader, FaceAnalyzer } from '@em/ml-worker';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BenchRow, ms } from './table';

export async function bibAccuracy(rows: BenchRow[], reader: BibReader, fixtures: string): Promise<Array<{ name: string; file: Buffer }>> {
  const dir = path.join(fixtures, 'bibs');
  if (!existsSync(dir)) {
    rows.push({ figure: 'BIB precision / recall / F1', value: 'skipped', target: 'F1 >= 0.85', how: '../shared/fixtures/bibs is absent' });
    return [];
  }
  const truth = new Map<string, Set<string>>();
  for (const line of readFileSync(path.join(dir, 'ground-truth.csv'), 'utf8').split(/\r?\n/)) {
    const [file, ...bibs] = line.trim().split(';');
    if (file) truth.set(file, new Set(bibs.filter(Boolean)));
  }
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const photos: Array<{ name: string; file: Buffer }> = [];
  for (const [name, bibs] of truth) {
    const file = readFileSync(path.join(dir, name));
    photos.push({ name, file });
    const found = await reader.read(file);
    for (const bib of found.keys()) (bibs.has(bib) ? tp++ : fp++);
    for (const bib of bibs) if (!found.has(bib)) fn++;
  }
  const p = tp / (tp + fp);
  const r = tp / (tp + fn);
  rows.push({
    figure: 'BIB precision / recall / F1',
    value: `${p.toFixed(3)} / ${r.toFixed(3)} / ${((2 * p * r) / (p + r)).toFixed(3)}`,
    target: 'F1 >= 0.85',
    how: `photo level, ${truth.size} photos, ${tp + fn} bibs of ground-truth.csv (a bib counts when read on its photo, as BIB search finds it)`,
  });
  return photos;
}

export async function facesOnGroups(rows: BenchRow[], faces: FaceAnalyzer, fixtures: string): Promise<void> {
  const dir = path.join(fixtures, 'faces', 'group');
  if (!existsSync(dir)) {
    rows.push({ figure: 'faces found on group shots', value: 'skipped', target: '', how: '../shared/fixtures/faces/group is absent' });
    return;
  }
  let total = 0;
  const names = readdirSync(dir).filter((f) => /\.jpe?g$/i.test(f)).sort();
  for (const name of names) {
    const { large } = await renderPreviews(readFileSync(path.join(dir, name)));
    total += (await faces.detectAll(large.buffer)).length;
  }
  rows.push({ figure: 'faces found on group shots', value: `${total}`, target: '23 (hand count)', how: `${names.length} shots, through the worker's path (large preview, tiny detector 512, >= 48 px)` });
}

export async function throughput(rows: BenchRow[], photos: Array<{ name: string; file: Buffer }>, reader: BibReader, faces: FaceAnalyzer): Promise<void> {
  if (!photos.length) return;
  const steps = { previews: 0, bibs: 0, faces: 0 };
  const t0 = process.hrtime.bigint();
  for (const { file } of photos) {
    let t = process.hrtime.bigint();
    const { large } = await renderPreviews(file);
    steps.previews += ms(t);
    t = process.hrtime.bigint();
    await reader.read(file);
    steps.bibs += ms(t);
    t = process.hrtime.bigint();
    await faces.detectAll(large.buffer);
    steps.faces += ms(t);
  }
  const total = ms(t0);
  const perMinute = (photos.length / total) * 60_000;
  const dominant = Object.entries(steps).sort((a, b) => b[1] - a[1])[0];
  rows.push({
    figure: 'process stage, one worker process',
    value: `${perMinute.toFixed(1)} photos/min`,
    target: '>= 60 photos/min',
    how: `${photos.length} fixture photos of 2048 px, previews + BIB OCR + faces in sequence, warm models, one process (several worker processes in parallel are not measured yet)`,
  });
  const share = (v: number) => `${((v / total) * 100).toFixed(0)}% (${(v / photos.length).toFixed(0)} ms/photo)`;
  rows.push({
    figure: 'time per step',
    value: `previews ${share(steps.previews)}, bibs ${share(steps.bibs)}, faces ${share(steps.faces)}`,
    target: '',
    how: `dominant step: ${dominant[0]}`,
  });
}

