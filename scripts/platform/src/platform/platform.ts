import { Config, connectRedis, ContentVersions, DEFAULT_PORTS, loadConfig, PLATFORM_ENV_FILE } from '@em/core';
import { migrateDatabase } from '@em/core/migrate';
import { openDatabase, Orm, SqlEventsRepository, SqlPhotosRepository, SqlVideosRepository } from '@em/core/data';
import { ObjectStore } from '@em/core/storage';
import { JobQueues } from '@em/core/jobs';
import { VideosService } from '@em/subgraph-media';
import { PipelineService } from '@em/subgraph-images';
import path from 'node:path';
import { DemoSeed, publishDemo, seedDemo, setDemoCover, writeDemoSelfie } from '../seed/demo';
import { Infrastructure, InfrastructurePorts, startInfrastructure } from './infrastructure';
import { isPortInUse } from './ports';
import { closeDataDir, makePrivateDir, writePrivateFile } from './private-files';
import { ServiceGroup, startServices } from './services';

export interface ServicePorts {
  rest: number;
  gateway: number;
  events: number;
  images: number;
  search: number;
  media: number;
  mlWorker: number;
  restOperator: number;
  identity: number;
}

export interface PlatformOptions {
  dataDir: string;
  ports?: Partial<ServicePorts & InfrastructurePorts>;
  /** Variables for the services on top of the infrastructure's (LOG_LEVEL, limits...). */
  extraEnv?: Record<string, string>;
  seed?: boolean;
  /** How long each service may take to answer /health (a hang detector; a bench on a loaded machine may give more). */
  serviceStartMs?: number;
  log: (line: string) => void;
  onServiceOutput: (service: string, line: string) => void;
}

export interface Platform {
  cfg: Config;
  env: Record<string, string>;
  orm: Orm;
  store: ObjectStore;
  demo: DemoSeed | null;
  infrastructure: Infrastructure;
  services: ServiceGroup;
  /** Resolves when the ml-worker has loaded its models; everything else is served before (selfies get 503 meanwhile). */
  mlWorkerReady: Promise<void>;
  restUrl: string;
  gatewayUrl: string;
  stop(): Promise<void>;
}

/**
 * The whole platform in one call: infrastructure (embedded or configured), migrations, the demo
 * seed, every service, and the demo photos through the worker and live. Used by `npm start` and
 * by the end-to-end tests.
 */
export async function startPlatform(opts: PlatformOptions): Promise<Platform> {
  const startedAt = Date.now();
  // The start's timeline, one line per stage with the seconds since the start: where a slow restart spends them.
  const stageDone = (stage: string) => opts.log(`${stage} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`);
  closeDataDir(opts.dataDir);
  const p = { ...DEFAULT_PORTS, ...opts.ports };
  for (const [name, port] of Object.entries({
    rest: p.rest,
    gateway: p.gateway,
    events: p.events,
    images: p.images,
    search: p.search,
    media: p.media,
    'ml-worker': p.mlWorker,
    'rest-operator': p.restOperator,
    identity: p.identity,
  })) {
    if (await isPortInUse(port))
      throw new Error(
        `Port ${port} (${name}) is already in use: is the platform already running? Set ${name.toUpperCase().replace('-', '_')}_PORT to use another.`,
      );
  }
  const infrastructure = await startInfrastructure({
    dataDir: opts.dataDir,
    ports: { postgres: p.postgres, redis: p.redis, s3: p.s3 },
    env: {
      ...process.env,
      IDENTITY_PORT: String(p.identity),
      REST_PORT: String(p.rest),
      ...(opts.extraEnv?.DASHBOARD_URL ? { DASHBOARD_URL: opts.extraEnv.DASHBOARD_URL } : {}),
    },
    log: opts.log,
  });
  stageDone('infrastructure up');
  let orm: Orm | undefined;
  let jobs: JobQueues | undefined;
  let redis: ReturnType<typeof connectRedis> | undefined;
  let services: ServiceGroup | undefined;
  try {
    const env: Record<string, string> = {
      ...infrastructure.env,
      REST_PORT: String(p.rest),
      GATEWAY_PORT: String(p.gateway),
      EVENTS_PORT: String(p.events),
      IMAGES_PORT: String(p.images),
      SEARCH_PORT: String(p.search),
      MEDIA_PORT: String(p.media),
      ML_WORKER_PORT: String(p.mlWorker),
      REST_OPERATOR_PORT: String(p.restOperator),
      ...opts.extraEnv,
    };
    writePrivateFile(
      path.join(opts.dataDir, PLATFORM_ENV_FILE),
      `# Written by npm start: how the services of this data directory reach each other.\n${Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n')}\n`,
    );
    const cfg = loadConfig({ ...process.env, ...env });
    orm = await openDatabase(cfg);
    const applied = await migrateDatabase(orm);
    if (applied.length) opts.log(`applied migrations: ${applied.join(', ')}`);
    const store = new ObjectStore(cfg);
    await store.ensureBucket();
    stageDone('database migrated, bucket ready');

    let demo: DemoSeed | null = null;
    jobs = new JobQueues(cfg.REDIS_URL);
    const events = new SqlEventsRepository(orm);
    redis = connectRedis(cfg.REDIS_URL);
    const pipeline = new PipelineService(
      events,
      new SqlPhotosRepository(orm),
      store,
      jobs,
      new ContentVersions(events, redis),
    );
    const videos = new VideosService(events, new SqlVideosRepository(orm), store, jobs);
    if (opts.seed !== false)
      demo = await seedDemo({
        orm,
        store,
        pipeline,
        videos,
        redis,
        dataDir: opts.dataDir,
        log: opts.log,
        localSignIn: !!env.IDENTITY_COOKIE_SECRET,
      });
    if (demo) stageDone(demo.created ? 'demo seeded' : 'demo data found');
    // A loaded machine (several builds on few cores) starts services slower than the default allows.
    const timeoutMs = opts.serviceStartMs;
    const waveUp = {
      'read-path': 'galleries answering: events, images, gateway, REST adapter up',
      'after-read-path': 'searches, clips and sign-in up; the ml-worker loads its models',
    } as const;
    // Made private here: Node 22 would make it with the default umask on the first start.
    const compileCacheDir = path.join(opts.dataDir, 'compile-cache');
    makePrivateDir(compileCacheDir);
    services = await startServices({
      env,
      onOutput: opts.onServiceOutput,
      timeoutMs,
      onWaveUp: (wave) => stageDone(waveUp[wave]),
      // The read path's bundles are compiled once per build, not on every restart.
      compileCacheDir,
    });
    if (demo) {
      const { live, failed } = await publishDemo(pipeline, demo.eventId);
      await setDemoCover(orm, demo.eventId);
      opts.log(`demo event ${demo.eventId}: ${live} photos live${failed ? `, ${failed} failed` : ''}`);
      demo.selfieFile = await writeDemoSelfie(orm, store, demo.eventId, opts.dataDir);
    }
    const platform: Platform = {
      cfg,
      env,
      orm,
      store,
      demo,
      infrastructure,
      services,
      mlWorkerReady: services.readyInBackground,
      restUrl: `http://127.0.0.1:${p.rest}`,
      gatewayUrl: `http://127.0.0.1:${p.gateway}/graphql`,
      async stop() {
        await services!.stop();
        await jobs?.close();
        redis?.disconnect();
        await orm!.close();
        await infrastructure.stop();
      },
    };
    return platform;
  } catch (err) {
    await services?.stop().catch(() => undefined);
    await jobs?.close().catch(() => undefined);
    redis?.disconnect();
    await orm?.close().catch(() => undefined);
    await infrastructure.stop();
    throw err;
  }
}
