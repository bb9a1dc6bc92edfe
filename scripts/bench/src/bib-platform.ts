import { Platform } from '@em/platform';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { loadRaces } from './bib-races';
import { visibleUnlabelled } from './bib-unlabelled';
import { runCli } from './ingest';
import { startBenchPlatform } from './platform-ports';
import { BenchRow } from './table';

/** The races imported (BENCH_BIB_PLATFORM_RACES=bibs,rbnr,rbnr-yellow: any race of `bib-races`). */
const RACES = (process.env.BENCH_BIB_PLATFORM_RACES ?? 'bibs,rbnr').split(',');

/**
 * `npm run bench -- bib-platform`: the BIB figures as a user gets them, which is how the product side
 * measures its hidden races: each race's photos imported with `npm run cli -- import-photos` into a live
 * event of a platform this bench starts, then the bibs a participant can search (the stored reads the
 * platform accepts) compared with the race's labels, photo by photo. No start list, the shipped rules.
 * The `bib-races` rows of the same race (its "as shipped" row, not the left-out one) read the same
 * photos in-process; a difference between the two is a difference between the bench and the product.
 */
export async function bibPlatformBench(rows: BenchRow[], fixtures: string): Promise<void> {
  const races = (await loadRaces(fixtures)).filter((race) => RACES.includes(race.name));
  if (!races.length) {
    rows.push({ figure: 'BIB reads through the platform', value: 'skipped', target: '', how: 'no race fixtures' });
    return;
  }
  const work = mkdtempSync(path.join(tmpdir(), 'em-bench-bib-platform-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'em-bench-bib-platform-data-'));
  let platform: Platform | undefined;
  try {
    platform = await startBenchPlatform(dataDir);
    const db = new Pool({ connectionString: platform.env.DATABASE_URL, max: 2 });
    try {
      const org = (
        await db.query(
          `insert into organisations (name, slug) values ('Bench BIBs', 'bench-bibs-${Date.now()}') returning id`,
        )
      ).rows[0].id as number;
      for (const race of races) {
        const dir = path.join(work, race.name);
        mkdirSync(dir);
        for (const photo of race.photos) writeFileSync(path.join(dir, photo.name), photo.file);
        const event = (
          await db.query(
            `insert into events (organisation_id, name, slug, status, bib_search, selfie_search, timeline_search, went_live_at)
             values ($1, $2, $3, 'active', true, true, true, now()) returning id`,
            [org, `BIBs of ${race.name}`, `bench-bibs-${race.name}-${Date.now()}`],
          )
        ).rows[0].id as number;
        console.error(`bib-platform: ${race.name}, ${race.photos.length} photos through import-photos`);
        const started = Date.now();
        await runCli(platform, undefined, ['import-photos', '--event', String(event), '--dir', dir]);
        const seconds = (Date.now() - started) / 1000;
        const stored = await searchableBibs(db, event);
        let tp = 0;
        const wrong: string[] = [];
        const missed: string[] = [];
        for (const photo of race.photos) {
          const found = stored.get(photo.name) ?? new Set<string>();
          for (const bib of found)
            if (photo.bibs.has(bib)) tp++;
            else wrong.push(`${bib} (${photo.name})`);
          for (const bib of photo.bibs) if (!found.has(bib)) missed.push(`${bib} (${photo.name})`);
        }
        const precision = tp / (tp + wrong.length || 1);
        const recall = tp / (tp + missed.length || 1);
        const seen = visibleUnlabelled(race.family, wrong);
        const byEye = (tp + seen.length) / (tp + wrong.length || 1);
        rows.push({
          figure: `BIB P / R through the platform (import-photos, searchable reads), race ${race.name}`,
          value: `**${precision.toFixed(3)} / ${recall.toFixed(3)}** (precision by eye ${byEye.toFixed(3)})`,
          target: 'recall >= 0.90, precision >= 0.95',
          how: `${race.photos.length} photos, ${tp + missed.length} labelled bibs, photo level; imported into a live event with the shipped rules and no start list, then the reads stored as accepted or completed (what a bib search finds) compared with the labels; ${seconds.toFixed(0)} s from the command's start to its end; wrong: ${wrong.join(', ') || 'none'}; missed: ${missed.join(', ') || 'none'}; unlabelled bibs looked at and counted right by eye: ${seen.join(', ') || 'none'}; load average ${loadavg()[0].toFixed(1)}`,
        });
      }
    } finally {
      await db.end();
    }
  } finally {
    await platform?.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Each photo's searchable bibs, by the file name it was imported as. */
async function searchableBibs(db: Pool, event: number): Promise<Map<string, Set<string>>> {
  const { rows } = await db.query<{ name: string; bib: string | null }>(
    `select p.original_file_name as name, b.bib
       from photos p left join photo_bibs b on b.photo_id = p.id and b.status in ('accepted', 'completed')
      where p.event_id = $1 and p.published_at is not null`,
    [event],
  );
  const byPhoto = new Map<string, Set<string>>();
  for (const { name, bib } of rows) {
    const bibs = byPhoto.get(name) ?? new Set<string>();
    if (bib) bibs.add(bib);
    byPhoto.set(name, bibs);
  }
  return byPhoto;
}
