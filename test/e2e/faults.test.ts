import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client, Pool } from 'pg';
import { connectRedis, REPO_ROOT } from '@em/core';
import { objectKeys } from '@em/core/storage';
import { jobIdOf, JOBS } from '@em/core/jobs';
import { EmbeddedRedisHandle, EmbeddedS3, isAlive, startEmbeddedRedis, startEmbeddedS3 } from '@em/platform';
import { drawnBibPhoto, drawnPhotosForm, expectDrawnPhotosProcessedOnce } from './support/drawn-photos';
import {
  closeDb,
  expectError,
  expectSuccess,
  fixturesOn,
  RestCall,
  restClient,
  waitForPipeline,
} from './support/platform';
import { freePorts, readPlatformInfo, servicePid, SpawnedPlatform, spawnPlatform } from './support/spawn-platform';

/**
 * Faults on a platform of its own (so the shared one is not disturbed): Redis and S3 run in this
 * process, where they can be stopped and started again; Postgres is the platform's embedded one,
 * killed and restarted by its lock file. Everything on loopback.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const S3_CREDENTIALS = { accessKeyId: 'fault-test', secretAccessKey: 'fault-test-secret-key-0123456789' };
const BUCKET = 'event-media';

async function waitGone(pid: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} still running after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** How a running process was started: its arguments, environment and user. */
function processLaunch(pid: number): { argv: string[]; env: Record<string, string>; uid: number; gid: number } {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  const env = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((e) => e.includes('='))
      .map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]),
  );
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const uid = Number(/^Uid:\s+(\d+)/m.exec(status)![1]);
  const gid = Number(/^Gid:\s+(\d+)/m.exec(status)![1]);
  return { argv, env, uid, gid };
}

describe('faults: infrastructure restarts, an object store outage and graceful stops', () => {
  let platform: SpawnedPlatform;
  let infraDir: string;
  let ports: { redis: number; s3: number };
  let redis: EmbeddedRedisHandle;
  let s3: EmbeddedS3;
  let db: Pool;
  let call: RestCall;
  let fx: ReturnType<typeof fixturesOn>;
  const spawned: ChildProcess[] = [];

  const startRedis = () => startEmbeddedRedis({ dataDir: infraDir, port: ports.redis, log: () => undefined });
  const startS3 = () =>
    startEmbeddedS3({
      dataDir: infraDir,
      port: ports.s3,
      bucket: BUCKET,
      credentials: S3_CREDENTIALS,
      publicPrefix: objectKeys.publicPrefix,
    });
  const photoCount = async (eventId: number) =>
    Number((await db.query('select count(*) as n from photos where event_id = $1', [eventId])).rows[0].n);

  /** A new organisation and event on this platform; returns the REST base path and key. */
  async function newEvent(): Promise<{ base: string; key: string; eventId: number }> {
    const { orgId, key } = await fx.organisation();
    const eventId = await fx.event(orgId);
    return { base: `/${orgId}/event/${eventId}`, key, eventId };
  }

  async function importDrawn(base: string, key: string, bibs: number[]) {
    return call(`${base}/pipeline/photos/import`, {
      key,
      method: 'POST',
      body: await drawnPhotosForm(bibs, { width: 700, height: 450 }),
      timeoutMs: 90_000,
    });
  }

  const expectEachPhotoOnce = (eventId: number, bibs: number[]) =>
    expectDrawnPhotosProcessedOnce(async (text, params) => (await db.query(text, params)).rows, eventId, bibs);

  beforeAll(async () => {
    infraDir = mkdtempSync(path.join(os.tmpdir(), 'em-faults-infra-'));
    ports = await freePorts(['redis', 's3'] as const);
    redis = await startRedis();
    s3 = await startS3();
    platform = await spawnPlatform({
      prefix: 'em-faults-',
      env: {
        REDIS_URL: redis.url,
        S3_ENDPOINT: s3.endpoint,
        S3_REGION: 'us-east-1',
        S3_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
        S3_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
        S3_BUCKET: BUCKET,
        S3_FORCE_PATH_STYLE: 'true',
        API_KEY_CACHE_SECONDS: '0',
      },
    });
    const info = readPlatformInfo(platform);
    db = new Pool({ connectionString: info.env.DATABASE_URL, max: 2 });
    db.on('error', () => undefined); // its idle connections die with the Postgres restart
    fx = fixturesOn(async (text, params) => (await db.query(text, params as unknown[])).rows, info.env.DATABASE_URL);
    call = restClient(info.restUrl, info.demo.apiKey);
  }, 300_000);

  afterAll(async () => {
    for (const child of spawned) child.kill('SIGTERM');
    await db?.end().catch(() => undefined);
    await closeDb().catch(() => undefined);
    await platform?.stop();
    await redis?.stop();
    await s3?.stop().catch(() => undefined);
    rmSync(infraDir, { recursive: true, force: true });
  }, 60_000);

  it('Redis restarted in the middle of processing: reads go on, services reconnect, no queued job is lost', async () => {
    const { base, key, eventId } = await newEvent();
    const bibs = Array.from({ length: 16 }, (_, i) => 4100 + i);
    expect(expectSuccess(await importDrawn(base, key, bibs)).imported).toBe(16);
    expectSuccess(await call(`${base}/pipeline/photos/process`, { key, method: 'POST' }));

    await redis.stop();
    // Reads need no Redis: they answer (rate limits let calls through while it is away).
    expect((await call(`${base}/images`, { key, timeoutMs: 10_000 })).status).toBe(200);
    await sleep(2000);
    redis = await startRedis();

    const done = await waitForPipeline(base, key, 240_000, call);
    expect(done).toMatchObject({ total: 16, processed: 16, failed: 0 });
    await expectEachPhotoOnce(eventId, bibs);
  }, 300_000);

  it('S3 unavailable: an upload fails with 503 and writes nothing; processing waits and finishes once S3 is back', async () => {
    const { base, key, eventId } = await newEvent();
    expect(expectSuccess(await importDrawn(base, key, [4301, 4302, 4303])).imported).toBe(3);

    await s3.stop();
    const refused = await importDrawn(base, key, [4304, 4305]);
    expectError(refused, 503);
    expect(await photoCount(eventId)).toBe(3);
    // Jobs for photos whose originals cannot be read fail and are retried with backoff.
    expectSuccess(await call(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
    await sleep(3000);
    s3 = await startS3();

    const done = await waitForPipeline(base, key, 120_000, call);
    expect(done).toMatchObject({ total: 3, processed: 3, failed: 0 });
    expect(expectSuccess(await importDrawn(base, key, [4304, 4305])).imported).toBe(2);
  }, 200_000);

  it('Postgres restarted: every call answers 503 in the envelope while it is down, then recovers', async () => {
    const { base, key, eventId } = await newEvent();
    const orgPath = base.split('/event/')[0];
    await fx.photos(eventId, [{ capturedAt: new Date('2026-05-01T08:00:00Z'), bibs: ['77'] }]);
    const paths = [`${orgPath}/events`, `${base}/images`, `${base}/bibs/77`, `${base}/timeline/days`];
    for (const p of paths) expect((await call(p, { key })).status).toBe(200);

    const lockFile = path.join(platform.dataDir, 'postgres', 'postmaster.pid');
    const postmaster = Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
    const launch = processLaunch(postmaster);
    process.kill(postmaster, 'SIGINT');
    await waitGone(postmaster);

    for (const p of paths) expectError(await call(p, { key, timeoutMs: 20_000 }), 503);

    const restarted = spawn(launch.argv[0], launch.argv.slice(1), {
      env: launch.env,
      uid: launch.uid,
      gid: launch.gid,
      stdio: 'ignore',
    });
    spawned.push(restarted);
    const url = readPlatformInfo(platform).env.DATABASE_URL;
    for (const deadline = Date.now() + 30_000; ;) {
      const client = new Client({ connectionString: url });
      client.on('error', () => undefined);
      const up = await client.connect().then(
        () => true,
        () => false,
      );
      await client.end().catch(() => undefined);
      if (up) break;
      if (Date.now() > deadline) throw new Error('Postgres did not come back');
      await sleep(200);
    }

    // The services' pools drop their dead connections and reconnect.
    for (const deadline = Date.now() + 30_000; ;) {
      const res = await call(paths[0], { key, timeoutMs: 20_000 });
      if (res.status === 200) break;
      expectError(res, 503);
      if (Date.now() > deadline) throw new Error('no recovery within 30 s');
      await sleep(500);
    }
    for (const p of paths) expect((await call(p, { key })).status).toBe(200);
  }, 150_000);

  it('SIGTERM: the ml-worker finishes the jobs it holds before it exits; nothing is left active', async () => {
    const { base, key, eventId } = await newEvent();
    const bibs = Array.from({ length: 8 }, (_, i) => 4400 + i);
    expect(expectSuccess(await importDrawn(base, key, bibs)).imported).toBe(8);
    const worker = servicePid(platform.dataDir, 'ml-worker/dist/main.js')!;
    expect(worker).not.toBeNull();
    const launch = processLaunch(worker);
    const queue = connectRedis(redis.url);
    try {
      const activeKey = `bull:${JOBS.photos.queue}:active`;
      expectSuccess(await call(`${base}/pipeline/photos/process`, { key, method: 'POST' }));
      let held: string[] = [];
      for (const deadline = Date.now() + 60_000; !held.length; await sleep(20)) {
        held = await queue.lrange(activeKey, 0, -1);
        if (Date.now() > deadline) throw new Error('the worker took no job');
      }
      process.kill(worker, 'SIGTERM');
      await waitGone(worker, 60_000);

      expect(await queue.llen(activeKey)).toBe(0);
      const photoIds = (await db.query('select id, status from photos where event_id = $1', [eventId])).rows;
      const heldPhotos = photoIds.filter((p) => held.includes(jobIdOf('photos', { photoId: p.id })!));
      expect(heldPhotos.length).toBe(held.length);
      expect(heldPhotos.map((p) => p.status)).toEqual(held.map(() => 'processed'));

      const replacement = spawn(process.execPath, [path.join(REPO_ROOT, 'ml-worker/dist/main.js')], {
        env: launch.env,
        stdio: 'ignore',
      });
      spawned.push(replacement);
      expect(await waitForPipeline(base, key, 180_000, call)).toMatchObject({ total: 8, processed: 8, failed: 0 });
      await expectEachPhotoOnce(eventId, bibs);
    } finally {
      queue.disconnect();
    }
  }, 300_000);

  it('SIGTERM: the REST adapter stops taking connections and finishes the request in flight', async () => {
    const { base, key } = await newEvent();
    const adapter = servicePid(platform.dataDir, 'rest-adapter/dist/main')!;
    expect(adapter).not.toBeNull();
    const restUrl = new URL(readPlatformInfo(platform).restUrl);

    // An upload whose body is still arriving when the signal comes.
    const boundary = 'fault-test-boundary';
    const photo = await drawnBibPhoto(4501, { width: 700, height: 450 });
    const head = Buffer.from(
      `--${boundary}\r\ncontent-disposition: form-data; name="files"; filename="runner-4501.jpg"\r\ncontent-type: image/jpeg\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([head, photo, tail]);
    const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.request(
        {
          host: restUrl.hostname,
          port: restUrl.port,
          method: 'POST',
          path: `/api/v1/ext${base}/pipeline/photos/import`,
          headers: {
            'x-api-key': key,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': body.length,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, head.length + 100));
      setTimeout(() => {
        process.kill(adapter, 'SIGTERM');
        setTimeout(() => req.end(body.subarray(head.length + 100)), 700);
      }, 500);
    });
    await sleep(900);
    expect(isAlive(adapter)).toBe(true);
    await expect(fetch(`${restUrl.origin}/health/live`)).rejects.toThrow();

    const res = await answer;
    expect(res).toMatchObject({ status: 200, body: { responseType: 'success', data: { imported: 1 } } });
    await waitGone(adapter, 15_000);
  }, 60_000);
});
