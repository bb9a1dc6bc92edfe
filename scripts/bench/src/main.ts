import 'reflect-metadata';
import { REPO_ROOT } from '@em/core';
import { BibReader, FaceAnalyzer, PersonDetector, PHOTO_FACE_OPTIONS } from '@em/ml-worker';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chipCost, searchLatency, selfieAccuracy } from './face-search';
import { bibPrecisionBench } from './bib-precision';
import { bibRacesBench } from './bib-races';
import { turnedVideoBench } from './video-turned';
import { bibAccuracy, facesOnGroups, racePhotos, STEPS_BEFORE, throughput, withWasmConcat } from './photo-pipeline';
import { idleBench } from './idle';
import { ingestBench } from './ingest';
import { bibPlatformBench } from './bib-platform';
import { participantPageBench } from './participant-page';
import { dashboardPageBench } from './dashboard-page';
import { readPathBench } from './read-path';
import { selfieLatencyBench } from './selfie-latency';
import { surgeBench } from './surge';
import { BenchRow, markdownTable } from './table';
import { videoBench } from './video';

/**
 * `npm run bench`: figures measured on this machine, in one run, printed as a table and written to
 * bench/results.md. Fixture-based rows need ../shared/fixtures and say so when it is absent.
 */
const FIXTURES = path.join(REPO_ROOT, '..', 'shared', 'fixtures');

/** The parts of the bench, in order; `npm run bench -- read-path video` runs only those named. */
const SECTIONS: Record<string, (rows: BenchRow[], models: Models) => Promise<void>> = {
  bibs: async (rows, models) => bibAccuracy(rows, await models.reader(), FIXTURES),
  'bib-races': async (rows, models) => bibRacesBench(rows, await models.reader(), FIXTURES),
  'bib-precision': async (rows, models) => bibPrecisionBench(rows, await models.reader(), FIXTURES),
  'photo-pipeline': async (rows, models) => {
    // One after the other: both initialise the same tfjs backend in this thread.
    const reader = await models.reader();
    const faces = await models.faces();
    await facesOnGroups(rows, faces, FIXTURES);
    // BENCH_HEAD_PASS_BEFORE=1: first without the head pass of the face step, for a before/after in one run.
    if (process.env.BENCH_HEAD_PASS_BEFORE)
      await throughput(
        rows,
        racePhotos(FIXTURES),
        reader,
        faces,
        { ...PHOTO_FACE_OPTIONS, personHeads: false },
        ' (faces without the head pass, before)',
      );
    // BENCH_PIPELINE_BEFORE=1: first the photo job as it ran before one decode per photo (a decode of the original per step, mozjpeg for every preview, tfjs-wasm's Concat), for a before/after in one run.
    if (process.env.BENCH_PIPELINE_BEFORE)
      await withWasmConcat(() =>
        throughput(
          rows,
          racePhotos(FIXTURES),
          reader,
          faces,
          PHOTO_FACE_OPTIONS,
          " (a decode per step, tfjs-wasm's Concat, before)",
          STEPS_BEFORE,
        ),
      );
    await throughput(rows, racePhotos(FIXTURES), reader, faces);
  },
  ingest: async (rows, models) => ingestBench(rows, await models.faces(), FIXTURES),
  'bib-platform': async (rows) => bibPlatformBench(rows, FIXTURES),
  'face-search': async (rows, models) => {
    const faces = await models.faces();
    // One after the other: both initialise the same tfjs backend in this thread.
    const persons = new PersonDetector();
    await persons.load();
    // Before/after in one run: the tiny detector alone (as before the second detector), then BlazeFace too without and with the people's heads, as the worker now.
    await selfieAccuracy(rows, faces, FIXTURES, {
      label: 'tiny detector alone, before',
      options: { ...PHOTO_FACE_OPTIONS, detector: 'tiny', personHeads: false },
    });
    await selfieAccuracy(rows, faces, FIXTURES, {
      label: `${PHOTO_FACE_OPTIONS.detector}, no head pass, before`,
      options: { ...PHOTO_FACE_OPTIONS, personHeads: false },
    });
    // The face chip, before/after in one run: face-api's box (descriptor versions 2-3, as stored before), then dlib's chip (versions 4-5) as the worker now.
    await selfieAccuracy(rows, faces, FIXTURES, {
      label: `worker photo path, face-api's box chip (descriptor version 2), before`,
      options: { ...PHOTO_FACE_OPTIONS, chip: 'box' },
      persons,
    });
    await selfieAccuracy(rows, faces, FIXTURES, {
      label: `worker photo path: ${PHOTO_FACE_OPTIONS.detector} + people's heads, dlib's chip (descriptor version 4)`,
      options: PHOTO_FACE_OPTIONS,
      persons,
    });
    chipCost(rows);
    // BENCH_FACES_ON_PIXELS=1: the worker's path on the large preview's pixels before JPEG encoding too (measured, not adopted).
    if (process.env.BENCH_FACES_ON_PIXELS)
      await selfieAccuracy(rows, faces, FIXTURES, {
        label: "worker photo path on the preview's pixels before encoding",
        options: PHOTO_FACE_OPTIONS,
        persons,
        onPixels: true,
      });
    await searchLatency(rows);
  },
  'selfie-latency': async (rows, models) => selfieLatencyBench(rows, await models.faces(), FIXTURES),
  video: async (rows, models) => {
    const faces = await models.faces();
    await videoBench(rows, faces);
    await turnedVideoBench(rows, faces, FIXTURES);
  },
  'read-path': async (rows) => readPathBench(rows),
  'participant-page': async (rows) => participantPageBench(rows),
  'dashboard-page': async (rows) => dashboardPageBench(rows),
  surge: async (rows) => surgeBench(rows, FIXTURES),
  idle: async (rows) => idleBench(rows),
};

/** The models, each loaded on first use (a faces-only section does not wait for the OCR model). */
interface Models {
  reader(): Promise<BibReader>;
  faces(): Promise<FaceAnalyzer>;
}

async function main() {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !SECTIONS[name]);
  if (unknown.length)
    throw new Error(`unknown bench section(s) ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  let reader: Promise<BibReader> | undefined;
  let faces: Promise<FaceAnalyzer> | undefined;
  const models: Models = {
    reader: () =>
      (reader ??= (async () => {
        const r = new BibReader();
        await r.load();
        return r;
      })()),
    faces: () =>
      (faces ??= (async () => {
        const f = new FaceAnalyzer();
        await f.load();
        return f;
      })()),
  };
  const rows: BenchRow[] = [];
  for (const [name, run] of Object.entries(SECTIONS))
    if (!wanted.length || wanted.includes(name)) await run(rows, models);
  if (reader || faces)
    rows.push({
      figure: 'ml-worker resident memory after the run',
      value: `${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB`,
      target: '',
      how: 'RSS of this process with both models loaded (and the 250k-face index of the search benchmark)',
    });

  const table = markdownTable(rows);
  console.log(table);
  if (wanted.length) return; // a partial run only prints
  mkdirSync(path.join(REPO_ROOT, 'bench'), { recursive: true });
  writeFileSync(
    path.join(REPO_ROOT, 'bench', 'results.md'),
    `# npm run bench (${new Date().toISOString().slice(0, 16)}Z, ${process.platform}, node ${process.version})\n\n${table}\n`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
