import { freePort, Platform, startPlatform } from '@em/platform';

/** Free ports for every service and embedded server of a platform the bench starts (beside a running `npm start`). */
export async function freePlatformPorts() {
  const ports = {
    rest: 0,
    gateway: 0,
    events: 0,
    images: 0,
    search: 0,
    media: 0,
    mlWorker: 0,
    restOperator: 0,
    postgres: 0,
    redis: 0,
    s3: 0,
    identity: 0,
  };
  for (const name of Object.keys(ports) as Array<keyof typeof ports>) ports[name] = await freePort();
  return ports;
}

/**
 * A platform of the bench's own on free ports, no demo, production mode, quiet, returned once the ml-worker has
 * loaded its models (the platform answers before: a bench that needs the worker waits here).
 */
export async function startBenchPlatform(dataDir: string, extraEnv: Record<string, string> = {}): Promise<Platform> {
  const platform = await startPlatform({
    dataDir,
    ports: await freePlatformPorts(),
    seed: false,
    serviceStartMs: 600_000,
    extraEnv: { NODE_ENV: 'production', LOG_LEVEL: 'warn', ...extraEnv },
    log: () => undefined,
    onServiceOutput: () => undefined,
  });
  await platform.mlWorkerReady;
  return platform;
}
