import { REPO_ROOT } from '@em/core';
import { BibReaderPool, FaceAnalyzer, PHOTO_FACE_OPTIONS } from '@em/ml-worker';
import { Platform } from '@em/platform';
import { startBenchPlatform } from './platform-ports';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import sharp from 'sharp';
import { WORKER_STEPS } from './photo-pipeline';
import { platformProcesses, runnableSeconds } from './process-cpu';
import { BenchRow, ms } from './table';

/**
 * The photo sizes imported, in megapixels: a small camera or phone export, a usual race photo, a full-size DSLR frame
 * (BENCH_INGEST_SIZES=3,20: some of them).
 */
const SIZES_MP = (process.env.BENCH_INGEST_SIZES ?? '0.5,3,20').split(',').map(Number);
const PHOTOS = Number(process.env.BENCH_INGEST_PHOTOS ?? 16);
const STEPS = ['fetch', 'decode', 'previews', 'store', 'bibs', 'faces', 'save'];
/** BENCH_INGEST_CLI_BEFORE: another build's cli.js, imported with too at 3 and 20 MP (the same platform, one run). */
const CLI_BEFORE = process.env.BENCH_INGEST_CLI_BEFORE;
const beforeLabel = () => (CLI_BEFORE ? `the CLI at ${CLI_BEFORE}` : 'queued after the import');

/**
 * `npm run bench -- ingest`: photos imported with the organiser CLI (`npm run cli -- import-photos`,
 * as a user runs it) into a live event of a platform this bench starts, timed from the command's
 * start until every photo is published; the CPU each process spent on it (/proc/PID/stat before and
 * after); where the ml-worker's time went (em_photo_step_seconds on its /metrics). Beside each, the
 * same photos through the photo job's steps in this process (the photo-pipeline bench's path, as
 * many at once as the worker runs), so the ratio is of one run on one machine.
 */
export async function ingestBench(rows: BenchRow[], faces: FaceAnalyzer, fixtures: string): Promise<void> {
  const sources = sourcePhotos(fixtures);
  if (!sources.length) {
    rows.push({
      figure: 'ingest through the CLI',
      value: 'skipped',
      target: '',
      how: '../shared/fixtures/bibs is absent',
    });
    return;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'em-bench-ingest-'));
  // A data directory of its own: the platform gives Postgres's user access to it, not to its parents.
  const dataDir = mkdtempSync(path.join(tmpdir(), 'em-bench-ingest-data-'));
  let platform: Platform | undefined;
  let pool: BibReaderPool | undefined;
  try {
    const sets = new Map<number, string>();
    for (const mp of SIZES_MP) sets.set(mp, await writeResized(sources, mp, path.join(work, `${mp}mp`)));
    console.error(`ingest: ${sources.length} photos at ${SIZES_MP.join(', ')} MP written; starting a platform`);
    // BENCH_CPU_PROF=<dir>: every service (and each CLI import) writes a V8 CPU profile there when it stops.
    platform = await startBenchPlatform(dataDir, profiledEnv());
    const db = new Pool({ connectionString: platform.env.DATABASE_URL, max: 2 });
    const concurrency = platform.cfg.PHOTO_CONCURRENCY;
    pool = new BibReaderPool(concurrency);
    await pool.load();
    const processes = platformProcesses(platform, dataDir);
    const metricsUrl = `http://127.0.0.1:${platform.cfg.ML_WORKER_PORT}/metrics`;
    try {
      const org = (
        await db.query(
          `insert into organisations (name, slug) values ('Bench ingest', 'bench-ingest-${Date.now()}') returning id`,
        )
      ).rows[0].id as number;
      const results = new Map<string, EndToEnd>();
      const warmSize = SIZES_MP.includes(3) ? 3 : SIZES_MP[0];
      const inProcess = new Map<number, InProcess>();
      // Warm: the worker's models and threads, and this process's, on one photo each (a running worker is warm).
      await importThroughCli(
        platform,
        db,
        org,
        await oneFileDir(sets.get(warmSize)!, path.join(work, 'warm')),
        processes,
        metricsUrl,
        'queue as imported',
      );
      await inProcessRate(
        [readFileSync(path.join(sets.get(warmSize)!, readdirSync(sets.get(warmSize)!)[0]))],
        pool,
        faces,
        concurrency,
      );
      const idle = await idleRates(processes);
      for (const mp of SIZES_MP) {
        const dir = sets.get(mp)!;
        console.error(`ingest: ${mp} MP in-process`);
        inProcess.set(
          mp,
          await inProcessRate(
            readdirSync(dir).map((f) => readFileSync(path.join(dir, f))),
            pool,
            faces,
            concurrency,
          ),
        );
        if (CLI_BEFORE && mp !== 0.5) {
          console.error(`ingest: ${mp} MP through the CLI at ${CLI_BEFORE} (before)`);
          results.set(
            `${mp}-before`,
            await importThroughCli(platform, db, org, dir, processes, metricsUrl, 'queue as imported', CLI_BEFORE),
          );
        } else if (!CLI_BEFORE && mp === 3) {
          // The older order on the usual size (every file imported before the first is queued), then as the CLI now runs.
          console.error(`ingest: ${mp} MP through the CLI, queued after the import (before)`);
          results.set(
            `${mp}-before`,
            await importThroughCli(platform, db, org, dir, processes, metricsUrl, 'queue after import'),
          );
        }
        console.error(`ingest: ${mp} MP through the CLI`);
        results.set(
          `${mp}`,
          await importThroughCli(platform, db, org, dir, processes, metricsUrl, 'queue as imported'),
        );
      }
      // One photo at a time, so that each step's CPU is its own: where a small photo's cost goes against a 3 MP one's.
      const bySteps =
        SIZES_MP.includes(0.5) && SIZES_MP.includes(3)
          ? [await stepCpu(photosOf(sets.get(0.5)!), pool, faces), await stepCpu(photosOf(sets.get(3)!), pool, faces)]
          : null;
      const load = loadavg()[0].toFixed(1);
      for (const mp of SIZES_MP) {
        const e2e = results.get(`${mp}`)!;
        const local = inProcess.get(mp)!;
        const before = results.get(`${mp}-before`);
        rows.push({
          figure: `ingest ${mp} MP: photos/min, import to live through the CLI vs in-process; ratio`,
          value: `**${e2e.perMinute.toFixed(1)}** vs ${local.perMinute.toFixed(1)} = **${(e2e.perMinute / local.perMinute).toFixed(2)}**${before ? ` (${beforeLabel()}, before: ${before.perMinute.toFixed(1)} = ${(before.perMinute / local.perMinute).toFixed(2)})` : ''}; CPU ratio ml-worker / in-process ${(e2e.cpuPerPhoto['ml-worker'] / local.cpuPerPhoto).toFixed(2)}`,
          target: 'ratio >= 0.9',
          how: `${e2e.photos} photos of ${mp} MP (the fixture race photos resized with sharp, JPEG q90) imported by \`npm run cli -- import-photos\` into a live event: wall time from the command's start to the last photo published (${e2e.liveSeconds.toFixed(1)} s; the command exited after ${e2e.cliSeconds.toFixed(1)} s), ${e2e.published} published. In-process: the same photos through the photo job's steps (decode, previews, BIBs on ${concurrency} OCR threads, faces), ${concurrency} at once as PHOTO_CONCURRENCY, ${local.cpuPerPhoto.toFixed(2)} CPU-s per photo; load average ${load} at the end`,
        });
        const { firstIn, lastIn, firstLive } = e2e.timeline;
        rows.push({
          figure: `ingest ${mp} MP: where the wall time goes (s from the command's start)`,
          value: `first photo in ${firstIn.toFixed(1)}, first live ${firstLive.toFixed(1)}, last in ${lastIn.toFixed(1)}, last live ${e2e.liveSeconds.toFixed(1)}${before ? ` (before: first in ${before.timeline.firstIn.toFixed(1)}, last live ${before.liveSeconds.toFixed(1)})` : ''}; cores on a core / runnable: ml-worker ${((e2e.cpuPerPhoto['ml-worker'] * e2e.photos) / e2e.liveSeconds).toFixed(2)} / ${e2e.mlWorkerRunnableCores.toFixed(2)}, in-process ${local.cores.busy.toFixed(2)} / ${local.cores.runnable.toFixed(2)}`,
          target: '',
          how: "created_at of the event's first and last photo rows (the CLI's start before the first: npm, module loading, connections), the first and last published_at. Cores: CPU over the wall time (the ml-worker's until the last photo live), and time runnable (/proc/PID/task/*/schedstat: on a core or waiting in the run queue; the ml-worker's over the command's wall time) over the wall time: under 2 on 2 cores, its threads leave a core idle even on a free machine (a step waiting on I/O or on another's thread)",
        });
        rows.push({
          figure: `ingest ${mp} MP: CPU seconds per photo by process`,
          value: cpuText(e2e.cpuPerPhoto) + (before ? ` (before: ${cpuText(before.cpuPerPhoto)})` : ''),
          target: '',
          how: '/proc/PID/stat utime+stime of each process before and after the import (Postgres: the postmaster, its live backends and reaped children; cli: the import command, npm included; s3: the embedded S3, which runs in the bench process), over the photos',
        });
        rows.push({
          figure: `ingest ${mp} MP: of which the platform at rest over the same wall time (CPU s per photo)`,
          value: cpuText(
            Object.fromEntries(Object.entries(idle).map(([n, r]) => [n, (r * e2e.liveSeconds) / e2e.photos])),
          ),
          target: '',
          how: `each process's CPU per second over ${IDLE_SECONDS} s with no import (measured once, after the warm-up), times the import's wall time, over the photos: the part of the row above that is time, not photos`,
        });
        rows.push({
          figure: `ingest ${mp} MP: Postgres transactions and rows written per photo`,
          value: `${e2e.postgres.transactions.toFixed(1)} transactions; rows ${Object.entries(e2e.postgres.rows)
            .map(([t, n]) => `${t} ${n.toFixed(1)}`)
            .join(', ')}`,
          target: '',
          how: 'pg_stat_database xact_commit + xact_rollback of the platform database (every statement outside a transaction is one), pg_stat_user_tables inserted + updated + deleted rows by table, before and after the import (read after the backends flush their statistics), over the photos',
        });
        rows.push({
          figure: `ingest ${mp} MP: ml-worker time per step (wall ms per photo)`,
          value: STEPS.map((s) => `${s} ${(e2e.stepMs[s] ?? 0).toFixed(0)}`).join(', '),
          target: '',
          how: `em_photo_step_seconds{step} of the ml-worker's /metrics, sum over the run / photos; ${concurrency} photos at once, so steps overlap (BIBs on OCR threads beside another photo's faces)`,
        });
      }
      const cost = (mp: number) => results.get(`${mp}`)!.cpuPerPhoto['ml-worker'];
      if ([0.5, 3, 20].every((mp) => SIZES_MP.includes(mp)))
        rows.push({
          figure: 'ingest: CPU per photo of a 0.5 MP photo / a 3 MP photo (ml-worker); 20 MP / 3 MP',
          value: `**${(cost(0.5) / cost(3)).toFixed(2)}** (${cost(0.5).toFixed(2)} / ${cost(3).toFixed(2)} s; in-process ${(inProcess.get(0.5)!.cpuPerPhoto / inProcess.get(3)!.cpuPerPhoto).toFixed(2)}); 20 MP / 3 MP ${(cost(20) / cost(3)).toFixed(2)}`,
          target: '0.5 MP / 3 MP <= 0.25',
          how: 'the ml-worker CPU rows above, same run',
        });
      if (bySteps) {
        const [small, usual] = bySteps;
        const steps = (s: StepCpu) =>
          `previews ${s.previews.toFixed(2)}, bibs ${s.bibs.toFixed(2)}, faces ${s.faces.toFixed(2)}; all ${all(s).toFixed(2)}`;
        rows.push({
          figure: 'ingest: CPU s per photo by step, in-process one at a time, 0.5 MP; 3 MP; ratio',
          value: `${steps(small)}; ${steps(usual)}; **${(all(small) / all(usual)).toFixed(2)}**, of which previews and faces alone ${((small.previews + small.faces) / all(usual)).toFixed(2)}`,
          target: '0.5 MP / 3 MP <= 0.25',
          how: "the photo job's steps in this process on the same photos, one after the other (process CPU, the OCR thread's included); the last figure is what a 0.5 MP photo would cost against a 3 MP one with no BIB step at all",
        });
      }
    } finally {
      await db.end();
    }
  } finally {
    await pool?.close();
    await platform?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The fixture race photos, then RBNR's, up to PHOTOS. */
function sourcePhotos(fixtures: string): Buffer[] {
  const out: Buffer[] = [];
  for (const sub of ['bibs', 'rbnr']) {
    const dir = path.join(fixtures, sub);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)
      .filter((f) => /\.jpe?g$/i.test(f))
      .sort())
      if (out.length < PHOTOS) out.push(readFileSync(path.join(dir, name)));
  }
  return out;
}

/** The photos resized to `mp` megapixels (aspect kept), as JPEG files in `dir`. */
async function writeResized(sources: Buffer[], mp: number, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  for (const [i, source] of sources.entries()) {
    const { width = 1, height = 1 } = await sharp(source).rotate().metadata();
    const w = Math.round(Math.sqrt((mp * 1e6 * width) / height));
    const h = Math.round((w * height) / width);
    writeFileSync(
      path.join(dir, `photo-${String(i).padStart(3, '0')}.jpg`),
      await sharp(source, { limitInputPixels: false })
        .rotate()
        .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
        .jpeg({ quality: 90 })
        .toBuffer(),
    );
  }
  return dir;
}

async function oneFileDir(from: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  // Another encoding of the first photo: its own content hash, so the runs that follow import it again.
  writeFileSync(
    path.join(dir, 'warm.jpg'),
    await sharp(path.join(from, readdirSync(from)[0]))
      .jpeg({ quality: 88 })
      .toBuffer(),
  );
  return dir;
}

const photosOf = (dir: string) => readdirSync(dir).map((f) => readFileSync(path.join(dir, f)));

interface StepCpu {
  previews: number;
  bibs: number;
  faces: number;
}

const all = (s: StepCpu) => s.previews + s.bibs + s.faces;

/** CPU seconds per photo of each of the photo job's steps, one photo at a time in this process. */
async function stepCpu(photos: Buffer[], pool: BibReaderPool, faces: FaceAnalyzer): Promise<StepCpu> {
  const out: StepCpu = { previews: 0, bibs: 0, faces: 0 };
  const timed = async <T>(step: keyof StepCpu, work: () => Promise<T>): Promise<T> => {
    const cpu0 = process.cpuUsage();
    const result = await work();
    const cpu = process.cpuUsage(cpu0);
    out[step] += (cpu.user + cpu.system) / 1e6 / photos.length;
    return result;
  };
  for (const photo of photos) {
    const decoded = await timed('previews', () => WORKER_STEPS.previews(photo));
    const { people } = await timed('bibs', () => WORKER_STEPS.bibs(pool, photo, decoded));
    await timed('faces', () => WORKER_STEPS.faces(faces, decoded, PHOTO_FACE_OPTIONS, people ?? []));
  }
  return out;
}

interface InProcess {
  perMinute: number;
  cpuPerPhoto: number;
  /** This process's threads: cores on average on a core, and runnable (on a core or waiting for one). */
  cores: { busy: number; runnable: number };
}

/** The photo job's steps in this process on `photos`, `concurrency` at once (the photo-pipeline bench's path). */
async function inProcessRate(
  photos: Buffer[],
  pool: BibReaderPool,
  faces: FaceAnalyzer,
  concurrency: number,
): Promise<InProcess> {
  const queue = [...photos];
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const runnable0 = runnableSeconds(process.pid);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let photo = queue.shift(); photo; photo = queue.shift()) {
        const decoded = await WORKER_STEPS.previews(photo);
        const { people } = await WORKER_STEPS.bibs(pool, photo, decoded);
        await WORKER_STEPS.faces(faces, decoded, PHOTO_FACE_OPTIONS, people ?? []);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const seconds = ms(t0) / 1000;
  return {
    perMinute: (photos.length / seconds) * 60,
    cpuPerPhoto: (cpu.user + cpu.system) / 1e6 / photos.length,
    cores: {
      busy: (cpu.user + cpu.system) / 1e6 / seconds,
      runnable: (runnableSeconds(process.pid) - runnable0) / seconds,
    },
  };
}

interface EndToEnd {
  photos: number;
  published: number;
  perMinute: number;
  liveSeconds: number;
  cliSeconds: number;
  /** Seconds from the command's start: the first photo's row (the CLI's own start before it), the last one's, the first photo live. */
  timeline: { firstIn: number; lastIn: number; firstLive: number };
  /** The ml-worker's threads runnable (on a core or waiting for one) over the command's wall time, in cores. */
  mlWorkerRunnableCores: number;
  cpuPerPhoto: Record<string, number>;
  stepMs: Record<string, number>;
  postgres: PostgresWork;
}

/** A live event, then `npm run cli -- import-photos` into it, until every photo is published. */
async function importThroughCli(
  platform: Platform,
  db: Pool,
  org: number,
  dir: string,
  processes: () => Record<string, number>,
  metricsUrl: string,
  order: 'queue as imported' | 'queue after import',
  cli?: string,
): Promise<EndToEnd> {
  const photos = readdirSync(dir).length;
  const event = (
    await db.query(
      `insert into events (organisation_id, name, slug, status, bib_search, selfie_search, timeline_search, went_live_at) values ($1, 'Bench ingest', 'bench-ingest-' || (select count(*) from events), 'active', true, true, true, now()) returning id`,
      [org],
    )
  ).rows[0].id as number;
  const steps0 = await stepSums(metricsUrl);
  const pg0 = await postgresWork(db);
  const cpu0 = processes();
  const mlWorker = platform.services.services.find((s) => s.def.name === 'ml-worker')!.child.pid!;
  const runnable0 = runnableSeconds(mlWorker);
  const started = Date.now();
  const t0 = process.hrtime.bigint();
  await runCli(platform, cli, [
    'import-photos',
    '--event',
    String(event),
    '--dir',
    dir,
    ...(order === 'queue after import' ? ['--queue-after-import'] : []),
  ]);
  const cliSeconds = ms(t0) / 1000;
  const cpu1 = processes();
  const runnable1 = runnableSeconds(mlWorker);
  const steps1 = await stepSums(metricsUrl);
  const pg1 = await postgresWork(db);
  const { rows } = await db.query(
    `select count(*)::int as published, max(published_at) as last, min(published_at) as first_live,
       (select min(created_at) from photos where event_id = $1) as first_in, (select max(created_at) from photos where event_id = $1) as last_in
     from photos where event_id = $1 and published_at is not null`,
    [event],
  );
  const since = (at: Date | null) => (at ? (new Date(at).getTime() - started) / 1000 : NaN);
  const liveSeconds = since(rows[0].last);
  const cpuPerPhoto = Object.fromEntries(
    Object.keys(cpu1).map((name) => [name, (cpu1[name] - (cpu0[name] ?? 0)) / photos]),
  );
  const stepMs = Object.fromEntries(STEPS.map((s) => [s, (((steps1[s] ?? 0) - (steps0[s] ?? 0)) * 1000) / photos]));
  return {
    photos,
    published: rows[0].published,
    perMinute: (photos / liveSeconds) * 60,
    liveSeconds,
    cliSeconds,
    timeline: {
      firstIn: since(rows[0].first_in),
      lastIn: since(rows[0].last_in),
      firstLive: since(rows[0].first_live),
    },
    mlWorkerRunnableCores: (runnable1 - runnable0) / cliSeconds,
    cpuPerPhoto,
    stepMs,
    postgres: {
      transactions: (pg1.transactions - pg0.transactions) / photos,
      rows: Object.fromEntries(
        Object.entries(pg1.rows)
          .map(([t, n]) => [t, (n - (pg0.rows[t] ?? 0)) / photos] as const)
          .filter(([, n]) => n > 0),
      ),
    },
  };
}

const IDLE_SECONDS = 20;

/** CPU seconds per second of each process while nothing is imported: what the platform spends on time alone. */
async function idleRates(processes: () => Record<string, number>): Promise<Record<string, number>> {
  const before = processes();
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  const after = processes();
  return Object.fromEntries(
    Object.keys(after)
      .filter((name) => name !== 'cli')
      .map((name) => [name, (after[name] - (before[name] ?? 0)) / IDLE_SECONDS]),
  );
}

interface PostgresWork {
  transactions: number;
  rows: Record<string, number>;
}

/**
 * The platform database's transactions and rows written by table so far. Backends flush their
 * statistics when idle at most every 10 s (PostgreSQL 15+), so this waits that long first.
 */
async function postgresWork(db: Pool): Promise<PostgresWork> {
  await new Promise((resolve) => setTimeout(resolve, 11_000));
  await db.query('select pg_stat_clear_snapshot()');
  const xact = await db.query(
    'select (xact_commit + xact_rollback)::float8 as n from pg_stat_database where datname = current_database()',
  );
  const tables = await db.query(
    'select relname, (n_tup_ins + n_tup_upd + n_tup_del)::float8 as n from pg_stat_user_tables',
  );
  return {
    transactions: xact.rows[0].n,
    rows: Object.fromEntries(tables.rows.map((r) => [r.relname as string, r.n as number])),
  };
}

/**
 * `npm run cli -- ARGS`, or another build's cli.js through npm as well (`npm exec`: the same wrapper's cost).
 * BENCH_CPU_PROF=<dir>: the command (and npm) write a V8 CPU profile there when they exit.
 */
export function runCli(platform: Platform, cli: string | undefined, args: string[]): Promise<void> {
  const profiled = profiledEnv();
  return new Promise((resolve, reject) => {
    const command = cli ? ['exec', '--silent', '--offline', '--', 'node', cli] : ['run', '--silent', 'cli', '--'];
    const child = spawn('npm', [...command, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...platform.env, ...profiled },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err = (err + d).slice(-2000)));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`import-photos exited ${code}: ${err}`))));
  });
}

/** With BENCH_CPU_PROF=<dir>: the environment that makes a Node process write its CPU profile there at exit. */
function profiledEnv(): Record<string, string> {
  return process.env.BENCH_CPU_PROF
    ? {
        BENCH_CPU_PROF: path.resolve(process.env.BENCH_CPU_PROF),
        NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-profile-preload.js')}`,
      }
    : {};
}

/** em_photo_step_seconds_sum by step, from the ml-worker's /metrics. */
async function stepSums(url: string): Promise<Record<string, number>> {
  const text = await (await fetch(url)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^em_photo_step_seconds_sum\{([^}]*)\} ([\d.e+-]+)$/gm)) {
    const step = /step="([^"]+)"/.exec(m[1])?.[1];
    if (step) out[step] = Number(m[2]);
  }
  return out;
}

function cpuText(perPhoto: Record<string, number>): string {
  const total = Object.values(perPhoto)
    .filter(Number.isFinite)
    .reduce((n, v) => n + v, 0);
  return `${Object.entries(perPhoto)
    .map(([name, v]) => `${name} ${v.toFixed(2)}`)
    .join(', ')}; all ${total.toFixed(2)} s`;
}
