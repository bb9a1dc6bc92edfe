import { generateApiKey, PAGE_LIMITS, pageInfo, resolvePage, toEpochSeconds } from '@em/core';
import { openDatabase, Orm, SqlPhotosRepository } from '@em/core/data';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'pg';
import { Platform, startPlatform } from '@em/platform';
import { freePlatformPorts } from './platform-ports';
import { BenchRow } from './table';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => Promise<{
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}>;

const PHOTOS = 50_000;
const CONNECTIONS = 64;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);

/**
 * The REST read path under load, against a direct baseline in the same run: an event of 50,000
 * photos seeded in bulk, `GET .../images?page_size=32` through rest-adapter -> gateway -> images
 * subgraph, and the same page from a minimal handler (one process, same query, same database, no
 * auth). Also BIB search and the timeline, the services' memory afterwards, and the cold start.
 */
export async function readPathBench(rows: BenchRow[]): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'em-bench-platform-'));
  const ports = await freePlatformPorts();
  const options = {
    dataDir,
    ports,
    seed: false,
    // NODE_ENV as the production image runs the services (graphql-js skips its development checks).
    extraEnv: {
      NODE_ENV: process.env.BENCH_NODE_ENV ?? 'production',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_READS: '1000000000',
      API_KEY_CACHE_SECONDS: '30',
      // BENCH_CPU_PROF=<dir>: every service writes a V8 CPU profile there when it stops (gallery load only).
      ...(process.env.BENCH_CPU_PROF
        ? {
            BENCH_CPU_PROF: path.resolve(process.env.BENCH_CPU_PROF),
            NODE_OPTIONS: `--require ${path.join(__dirname, 'cpu-profile-preload.js')}`,
          }
        : {}),
    },
    log: () => undefined,
    onServiceOutput: () => undefined,
  };
  let platform: Platform | null = await startPlatform(options);
  const db = new Pool({ connectionString: platform.env.DATABASE_URL, max: 8 });
  db.on('error', () => undefined); // idle connections end when the platform restarts for the cold start
  try {
    const { orgId, eventId, key } = await seedLargeEvent(db);
    const base = `${platform.restUrl}/api/v1/ext/${orgId}/event/${eventId}`;
    const direct = await startDirectHandler(
      await openDatabase({ DATABASE_URL: platform.env.DATABASE_URL, DATABASE_POOL_MAX: 8 }),
      platform.cfg.MEDIA_URL,
    );
    const page = (i: number) => 1 + (i % Math.floor(PHOTOS / 32));
    const load = (url: string, headers: Record<string, string> = {}) => autocannonRun(url, headers, page);

    const cpuBefore: Record<string, number> = {
      ...(await serviceCpuSeconds(ports)),
      ...infrastructureCpuSeconds(dataDir, ports.redis),
    };
    const full = await load(`${base}/images`, { 'x-api-key': key });
    const cpuAfter: Record<string, number> = {
      ...(await serviceCpuSeconds(ports)),
      ...infrastructureCpuSeconds(dataDir, ports.redis),
    };
    const baseline = process.env.BENCH_CPU_PROF
      ? full
      : await load(`http://127.0.0.1:${direct.port}/api/v1/ext/${orgId}/event/${eventId}/images`);
    rows.push({
      figure: 'REST read path vs direct handler, 50k-photo event',
      value: `${full.requests.average.toFixed(0)} vs ${baseline.requests.average.toFixed(0)} req/s = ${(full.requests.average / baseline.requests.average).toFixed(2)}; p50 ${full.latency.p50} vs ${baseline.latency.p50} ms, p99 ${full.latency.p99} vs ${baseline.latency.p99} ms`,
      target: 'ratio >= 0.6, both >= 300 req/s',
      how: `GET .../images?page_size=32 over all pages, ${CONNECTIONS} connections, ${SECONDS} s each (autocannon, same machine); full path = rest-adapter -> gateway (auth, rate limit) -> images subgraph; direct = one node:http process, the same gallery query of @em/core, same Postgres, no auth; errors ${full.errors + full.non2xx} / ${baseline.errors + baseline.non2xx}`,
    });
    rows.push({
      figure: 'CPU per service on the full read path',
      value: Object.keys(cpuAfter)
        .map((name) => `${name} ${(((cpuAfter[name] - cpuBefore[name]) / full.requests.total) * 1000).toFixed(2)} ms`)
        .join(', '),
      target: '',
      how: 'process_cpu_seconds_total of each service over the full-path run, per request answered; postgres and redis: user+system time from /proc (Linux) of the postmaster and its backends, and of redis-server',
    });
    if (process.env.BENCH_CPU_PROF) return void (direct.server.close(), await direct.orm.close()); // profiles of the gallery load only
    const bib = await load(`${base}/bibs/1234`, { 'x-api-key': key });
    const timeline = await autocannonRun(
      `${base}/timeline/images`,
      { 'x-api-key': key },
      (i) => 1 + (i % 5),
      (i) => `&from=${1_780_000_000 + (i % 20) * 600}&to=${1_780_000_000 + (i % 20) * 600 + 3600}`,
    );
    rows.push({
      figure: 'BIB search and timeline window, same event',
      value: `${bib.requests.average.toFixed(0)} req/s (p99 ${bib.latency.p99} ms); ${timeline.requests.average.toFixed(0)} req/s (p99 ${timeline.latency.p99} ms)`,
      target: '',
      how: `full path, ${CONNECTIONS} connections, ${SECONDS} s each; errors ${bib.errors + bib.non2xx} / ${timeline.errors + timeline.non2xx}`,
    });
    rows.push({
      figure: 'service memory after the load',
      value: await serviceMemory(ports),
      target: '',
      how: 'process_resident_memory_bytes from each /metrics',
    });
    direct.server.close();
    await direct.orm.close();

    await platform.stop();
    platform = null;
    const started = Date.now();
    platform = await startPlatform(options);
    const serving = Date.now();
    await platform.mlWorkerReady;
    rows.push({
      figure: 'cold start with existing data',
      value: `${((serving - started) / 1000).toFixed(1)} s to reads served, ${((Date.now() - started) / 1000).toFixed(1)} s to the ml-worker ready`,
      target: '',
      how: "startPlatform (what npm start runs, without the demo seed) on the data directory of this run: to REST and the gateway serving, then to the ml-worker's models loaded",
    });
  } finally {
    await db.end();
    await platform?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function autocannonRun(
  url: string,
  headers: Record<string, string>,
  page: (i: number) => number,
  extra: (i: number) => string = () => '',
) {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers,
    requests: Array.from({ length: 50 }, (_, i) => ({
      method: 'GET',
      path: `${new URL(url).pathname}?page_size=32&page=${page(i * 37)}${extra(i)}`,
      headers,
    })),
  });
}

export async function seedLargeEvent(
  db: Pool,
  photos = PHOTOS,
): Promise<{ orgId: number; eventId: number; key: string }> {
  const [org] = (
    await db.query(`insert into organisations (name, slug) values ('Bench', 'bench-${Date.now()}') returning id`)
  ).rows;
  const [event] = (
    await db.query(
      `insert into events (organisation_id, name, slug, status, bib_search, selfie_search, timeline_search) values ($1, 'Bench 50k', 'bench-50k', 'active', true, true, true) returning id`,
      [org.id],
    )
  ).rows;
  const generated = generateApiKey();
  await db.query(
    'insert into api_keys (organisation_id, name, prefix, key_hash, active, allowed_hosts) values ($1, $2, $3, $4, true, $5)',
    [org.id, 'bench', generated.displayPrefix, generated.keyHash, []],
  );
  await db.query(
    `insert into photos (id, event_id, status, content_hash, original_key, original_file_name, mime_type, width, height, large_key, large_width, large_height, thumbnail_key, captured_at, photographer_name, source, published_at)
     select gen_random_uuid(), $1::int, 'processed', 'hash-' || g, 'originals/' || $1::int || '/' || g || '.jpg', 'IMG_' || g || '.jpg', 'image/jpeg', 4000, 3000,
            'public/' || $1::int || '/large/' || g || '.jpg', 1600, 1200, 'public/' || $1::int || '/thumb/' || g || '.jpg',
            to_timestamp(1780000000 + g * 2), 'Bench', 'bench', now()
       from generate_series(1, $2::int) g`,
    [event.id, photos],
  );
  await db.query(
    `insert into photo_bibs (photo_id, event_id, bib, confidence) select id, event_id, (abs(hashtext(id::text)) % 5000)::text, 0.99 from photos where event_id = $1`,
    [event.id],
  );
  // What autovacuum leaves after a bulk load (all-visible pages: index-only scans need no heap visit).
  await db.query('vacuum analyze photos');
  await db.query('vacuum analyze photo_bibs');
  return { orgId: org.id, eventId: event.id, key: generated.rawKey };
}

/** The baseline: the gallery page straight from the shared query, in the spec's envelope. */
async function startDirectHandler(
  orm: Orm,
  mediaUrl: string,
): Promise<{ server: http.Server; port: number; orm: Orm }> {
  const photos = new SqlPhotosRepository(orm);
  const server = http.createServer(
    (req, res) =>
      void galleryResponse(req, res).catch((err) =>
        res.writeHead(500).end(JSON.stringify({ responseType: 'error', message: String(err), data: null })),
      ),
  );
  async function galleryResponse(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    const eventId = Number(/\/event\/(\d+)\//.exec(url.pathname)?.[1]);
    const request = resolvePage(
      Number(url.searchParams.get('page') ?? 1),
      Number(url.searchParams.get('page_size') ?? 32),
      PAGE_LIMITS.photos,
    );
    const { total, rows } = await photos.galleryPage(eventId, request);
    const images = rows.map((p) => ({
      img_url: `${mediaUrl}/${p.large_key}`,
      height: p.large_height,
      width: p.large_width,
      image_id: p.id,
      thumbnail_url: `${mediaUrl}/${p.thumbnail_key}`,
      original_url: null,
      meta_info: {
        photo_timestamp: p.captured_at_ms === null ? null : toEpochSeconds(new Date(Number(p.captured_at_ms))),
        photographer_name: p.photographer_name,
        original_file_name: p.original_file_name,
        source: p.source,
        image_path: p.original_key,
        external_drive_url: p.external_url,
      },
    }));
    const info = pageInfo(total, request);
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        responseType: 'success',
        message: 'ok',
        data: {
          images,
          pagination: {
            total,
            currentPage: info.currentPage,
            totalPages: info.totalPages,
            hasNextPage: info.hasNextPage,
            hasPreviousPage: info.hasPreviousPage,
            page_size: info.pageSize,
          },
        },
      }),
    );
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, orm };
}

const SERVICES = ['rest', 'gateway', 'events', 'images', 'search', 'media', 'mlWorker'] as const;

/** One process metric of each service, read from its /metrics (NaN when it cannot be read). */
export async function scrapeServices(
  ports: Record<string, number>,
  metric: string,
  services: readonly string[] = SERVICES,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const name of services) {
    const port = name === 'rest' ? ports.restOperator : ports[name]; // the REST adapter's /metrics is on its operator port
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text().catch(() => '');
    out[name] = Number(new RegExp(`^${metric}(?:\\{[^}]*\\})? ([\\d.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  }
  return out;
}

/**
 * CPU seconds of the embedded infrastructure of this run, from /proc (NaN off Linux): Postgres (the
 * postmaster with its reaped children, and its live backends) and Redis (the rate limiter's counters).
 */
export function infrastructureCpuSeconds(dataDir: string, redisPort: number): { postgres: number; redis: number } {
  try {
    const postmaster = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    let postgres = 0;
    let redis = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat = '';
      let cmdline = '';
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      } catch {
        continue; // gone meanwhile
      }
      // The fields after the command name: state ppid ... utime(14) stime(15) cutime(16) cstime(17), 1-based from pid.
      const fields = (stat.split(') ')[1] ?? '').split(' ');
      const ticks = (from: number, to: number) => fields.slice(from, to + 1).reduce((sum, f) => sum + Number(f), 0);
      if (Number(entry) === postmaster) postgres += ticks(11, 14);
      else if (Number(fields[1]) === postmaster) postgres += ticks(11, 12);
      else if (new RegExp(`redis-server\\S* \\S+:${redisPort}\\b`).test(cmdline)) redis += ticks(11, 12); // redis-server retitles itself `redis-server host:port`
    }
    return { postgres: postgres / 100, redis: redis / 100 }; // USER_HZ
  } catch {
    return { postgres: NaN, redis: NaN };
  }
}

const serviceCpuSeconds = (ports: Record<string, number>) =>
  scrapeServices(ports, 'process_cpu_seconds_total', ['rest', 'gateway', 'images']);

async function serviceMemory(ports: Record<string, number>): Promise<string> {
  const rss = await scrapeServices(ports, 'process_resident_memory_bytes');
  return Object.entries(rss)
    .filter(([, bytes]) => Number.isFinite(bytes))
    .map(([name, bytes]) => `${name} ${(bytes / 1024 / 1024).toFixed(0)} MB`)
    .join(', ');
}
